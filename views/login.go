package views

// LoginForm is the login page's state.
type LoginForm struct {
	Email     string
	Error     string
	CSRFToken string
}
