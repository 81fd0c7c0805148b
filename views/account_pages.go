package views

// SignupForm is /signup's state: what was typed (never the password) and
// the refusals beside each field.
type SignupForm struct {
	BusinessName, Document, Name, Email string
	Errors                              map[string]string // field -> message
	Error                               string
	CSRFToken                           string
}

// PasswordForm is a page that asks for one thing: an e-mail (forgot
// password) or a new password (reset), with a message after.
type PasswordForm struct {
	Email     string
	Token     string
	Error     string
	Done      string // the message once sent
	CSRFToken string
}

// InvitationForm is an invitation's page: who invites to what, and how to
// accept (sign in as the e-mail's user, or make one).
type InvitationForm struct {
	Token, Account, Inviter, Role, Email string
	// SignedInAs is the signed-in person's e-mail, if any; HasUser says the
	// invited e-mail has a user already (they sign in to accept).
	SignedInAs string
	HasUser    bool
	Name       string
	Error      string
	CSRFToken  string
}

// MessagePage is a page with a title, a message and a way on.
type MessagePage struct {
	Title, Text, LinkURL, LinkLabel string
	Error                           bool
}
