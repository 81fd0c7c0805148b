package views

// TeamPage lists the account's people and pending invitations; owners
// invite, change roles and remove.
type TeamPage struct {
	Nav         Nav
	Notice      Notice
	Members     []MemberRow
	Invitations []InvitationRow
	Roles       []string
	Form        InviteForm
	// SelfID is the signed-in person's user id.
	SelfID string
}

// MemberRow is one person of the account.
type MemberRow struct {
	UserID, Email, Role, Since string
}

// InvitationRow is one pending invitation.
type InvitationRow struct {
	ID, Email, Role, Expires string
}

// InviteForm is the invitation form as sent, with its refusal.
type InviteForm struct {
	Email, Role, Error string
}
