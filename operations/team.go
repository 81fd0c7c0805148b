package operations

import (
	"context"
	"errors"
	"net/mail"
	"slices"
	"strings"

	"payments/store"
)

// ErrBadEmail refuses an address that is not one.
var ErrBadEmail = errors.New("operations: invalid e-mail address")

// ErrAlreadyMember refuses inviting someone who is in the account already.
var ErrAlreadyMember = errors.New("operations: already a member of this account")

// checkEmail returns the address, trimmed, when it is one.
func checkEmail(email string) (string, error) {
	email = strings.TrimSpace(email)
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return "", ErrBadEmail
	}
	return email, nil
}

// InviteMember sends email an invitation to join the account in role: a
// single-use link, valid 7 days. Only owners manage the team.
func (o *Operations) InviteMember(ctx context.Context, who store.Actor, accountID, email, role, locale string) (inv *store.EmailToken, err error) {
	if err := o.stepUp(who, false); err != nil {
		return nil, err
	}
	if email, err = checkEmail(email); err != nil {
		return nil, err
	}
	if !slices.Contains(store.AccountRoles, role) {
		return nil, store.ErrUnknownRole
	}
	scope := store.Scope{AccountID: accountID}
	err = o.record(ctx, who, scope, rule("InviteMember"), "member.invited", func(ctx context.Context) (string, store.Changes, error) {
		members, err := o.Store.Members(ctx, accountID)
		if err != nil {
			return "", nil, err
		}
		for _, m := range members {
			if strings.EqualFold(m.Email, email) {
				return "", nil, ErrAlreadyMember
			}
		}
		inviter := who.ID
		inv = &store.EmailToken{Kind: store.TokenInvitation, Email: email, AccountID: &accountID, Role: &role, InvitedBy: &inviter}
		token, err := o.Store.CreateEmailToken(ctx, inv)
		if err != nil {
			return "", nil, err
		}
		acct, err := o.Store.Account(ctx, accountID)
		if err != nil {
			return "", nil, err
		}
		err = o.Store.QueueEmail(ctx, store.NewEmail{AccountID: accountID, To: email, Kind: store.MailInvitation, Locale: locale,
			Data: map[string]string{"link": o.BaseURL + "/invitations/accept?token=" + token, "account": acct.Name,
				"inviter": who.Name, "role": role}})
		return inv.ID, store.Changes{"email": {nil, email}, "role": {nil, role}}, err
	})
	return inv, err
}

// RevokeInvitation ends a pending invitation: its link stops working.
func (o *Operations) RevokeInvitation(ctx context.Context, who store.Actor, accountID, id string) error {
	if err := o.stepUp(who, false); err != nil {
		return err
	}
	return o.record(ctx, who, store.Scope{AccountID: accountID}, rule("RevokeInvitation"), "invitation.revoked", func(ctx context.Context) (string, store.Changes, error) {
		inv, err := o.Store.RevokeInvitation(ctx, accountID, id)
		if err != nil {
			return "", nil, err
		}
		return inv.ID, store.Changes{"email": {inv.Email, nil}}, nil
	})
}

// Joining is who accepts an invitation: a person signed in already (User,
// whose e-mail must be the invitation's), or a new one (Password, Name).
type Joining struct {
	User     *store.User
	Password string
	Name     string
	Locale   string
}

// ErrInvitationForAnother refuses accepting, signed in as someone else, an
// invitation sent to another address.
var ErrInvitationForAnother = errors.New("operations: this invitation was sent to another e-mail address")

// ErrSignInToAccept asks the person whose e-mail has a user already to
// sign in to accept.
var ErrSignInToAccept = errors.New("operations: sign in to accept this invitation")

// AcceptInvitation uses the invitation's link once: the signed-in person
// (or a new user made with the invitation's e-mail, proved by the link)
// joins its account in its role. It returns the member and the account.
func (o *Operations) AcceptInvitation(ctx context.Context, who store.Actor, token string, j Joining) (u *store.User, accountID string, err error) {
	var scope store.Scope
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		inv, err := o.Store.UseEmailToken(ctx, store.TokenInvitation, token)
		if err != nil {
			return err
		}
		accountID, scope = *inv.AccountID, store.Scope{AccountID: *inv.AccountID}
		if j.User != nil {
			if !strings.EqualFold(j.User.Email, inv.Email) {
				return ErrInvitationForAnother
			}
			if err := o.Store.AddMember(ctx, accountID, j.User.ID, *inv.Role); err != nil {
				return err
			}
			u = j.User
		} else {
			_, err := o.Store.UserByEmail(ctx, inv.Email)
			switch {
			case err == nil:
				// The address has a user: they sign in to accept.
				return ErrSignInToAccept
			case !errors.Is(err, store.ErrNotFound):
				return err
			}
			if u, err = o.Store.CreatePerson(ctx, store.NewPerson{Email: inv.Email, Password: j.Password, Name: j.Name,
				Role: *inv.Role, AccountID: accountID, Locale: j.Locale, Verified: true}); err != nil {
				return err
			}
		}
		who.ID, who.Name = store.ActorUser(u.ID).ID, u.Email
		return o.Store.Audit(store.WithActor(ctx, who), store.AuditRecord{Scope: scope, Action: "member.joined", ObjectID: u.ID,
			Changes: store.Changes{"role": {nil, *inv.Role}, "invitation": {nil, inv.ID}}})
	})
	if err != nil {
		return nil, "", err
	}
	return u, accountID, nil
}

// SetMemberRole changes a member's role; their sessions end, so the new
// role holds from their next request. The last owner stays owner.
func (o *Operations) SetMemberRole(ctx context.Context, who store.Actor, accountID, userID, role string) error {
	if err := o.stepUp(who, false); err != nil {
		return err
	}
	return o.record(ctx, who, store.Scope{AccountID: accountID}, rule("SetMemberRole"), "member.role_changed", func(ctx context.Context) (string, store.Changes, error) {
		before, err := o.Store.SetMemberRole(ctx, accountID, userID, role)
		return userID, store.Changes{"role": {before, role}}, err
	})
}

// RemoveMember takes a member out of the account; their sessions end and
// the keys they made are revoked (each audited). The last owner stays.
func (o *Operations) RemoveMember(ctx context.Context, who store.Actor, accountID, userID string) error {
	if err := o.stepUp(who, false); err != nil {
		return err
	}
	return o.record(ctx, who, store.Scope{AccountID: accountID}, rule("RemoveMember"), "member.removed", func(ctx context.Context) (string, store.Changes, error) {
		before, revoked, err := o.Store.RemoveMember(ctx, accountID, userID)
		if err != nil {
			return "", nil, err
		}
		for _, k := range revoked {
			err := o.Store.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: accountID, Livemode: k.Livemode}, Action: "api_key.revoked", ObjectID: k.ID,
				Changes: store.Changes{"revoked": {false, true}, "reason": {nil, store.KeyRevokedMakerRemoved}}})
			if err != nil {
				return "", nil, err
			}
		}
		return userID, store.Changes{"role": {before, nil}}, nil
	})
}
