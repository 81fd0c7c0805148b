package views

// LoginForm is the login page's state.
type LoginForm struct {
	Email     string
	Error     string
	CSRFToken string
	// Passkeys offers signing in with a passkey (the site has them).
	Passkeys bool
}
