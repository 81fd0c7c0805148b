package apimodel

// Account is the public shape of an account: a platform's subaccount.
type Account struct {
	ID          string  `json:"id"`
	Object      string  `json:"object"`
	Name        string  `json:"name"`
	Document    *string `json:"document"`
	Email       string  `json:"email"`
	PixKey      *string `json:"pix_key"`
	Status      string  `json:"status"`
	Platform    *string `json:"platform"`
	LiveEnabled bool    `json:"live_enabled"`
	CreatedAt   string  `json:"created_at"`
}
