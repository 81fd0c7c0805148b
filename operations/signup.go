package operations

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"payments/internal/useragent"
	"payments/pix"
	"payments/store"
)

// SignUp is what /signup asks a business for.
type SignUp struct {
	BusinessName string
	Document     string // CNPJ or CPF, with or without punctuation
	Name         string
	Email        string
	Password     string
	Locale       string
}

// Why a sign-up is refused (besides store.ErrWeakPassword and ErrBadEmail).
var (
	ErrBadDocument     = errors.New("operations: not a valid CNPJ or CPF")
	ErrBadBusinessName = errors.New("operations: a business name has 2 to 100 characters")
	ErrBadPersonName   = errors.New("operations: a name has 2 to 100 characters")
	ErrEmailTaken      = errors.New("operations: this e-mail already has an account")
)

// InvalidFields refuses a form, naming each field's refusal (every one of
// them at once, so a person fixes them together).
type InvalidFields map[string]error

func (f InvalidFields) Error() string {
	parts := make([]string, 0, len(f))
	for field, err := range f {
		parts = append(parts, field+": "+err.Error())
	}
	slices.Sort(parts)
	return "operations: invalid fields: " + strings.Join(parts, "; ")
}

// Unwrap lets errors.Is find each field's refusal.
func (f InvalidFields) Unwrap() []error {
	out := make([]error, 0, len(f))
	for _, err := range f {
		out = append(out, err)
	}
	return out
}

// SignUpBusiness makes an account usable in test mode at once (live mode
// waits for platform staff: ActivateLive), its owner, and the mail that
// asks the owner to verify their address (its link signs them in). who is
// the person signing up (their address and browser); the new owner is
// recorded as who did it. An e-mail that has a user already is
// ErrEmailTaken, after the same work (a password hashed, a mail queued):
// that person is told someone tried (signUpAttempted), and the one signing
// up must be told nothing different, so that no one learns from the
// sign-up page which e-mails are customers.
func (o *Operations) SignUpBusiness(ctx context.Context, who store.Actor, in SignUp) (u *store.User, acct *store.Account, err error) {
	in.BusinessName, in.Name = strings.TrimSpace(in.BusinessName), strings.TrimSpace(in.Name)
	invalid := InvalidFields{}
	if n := utf8.RuneCountInString(in.BusinessName); n < 2 || n > 100 {
		invalid["business_name"] = ErrBadBusinessName
	}
	if n := utf8.RuneCountInString(in.Name); n < 2 || n > 100 {
		invalid["name"] = ErrBadPersonName
	}
	document, _, ok := pix.NormalizeDocument(in.Document)
	if !ok {
		invalid["document"] = ErrBadDocument
	}
	if in.Email, err = checkEmail(in.Email); err != nil {
		invalid["email"] = err
	}
	if err := store.CheckPassword(in.Password, in.Email, in.Name, in.BusinessName); err != nil {
		invalid["password"] = err
	}
	if len(invalid) > 0 {
		return nil, nil, invalid
	}
	taken := false
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		if existing, err := o.Store.UserByEmail(ctx, in.Email); err == nil {
			taken = true
			return o.signUpAttempted(ctx, who, existing, in.Password)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		acct, err = o.Store.CreateAccount(ctx, store.NewAccount{Name: in.BusinessName, Email: in.Email, Document: document,
			FeeBPS: store.DefaultFeeBPS, FeeFixedCents: store.DefaultFeeFixedCents, TestModeOnly: true})
		if errors.Is(err, store.ErrConflict) {
			return ErrEmailTaken
		}
		if err != nil {
			return err
		}
		if u, err = o.Store.CreatePerson(ctx, store.NewPerson{Email: in.Email, Password: in.Password, Name: in.Name,
			Role: store.RoleOwner, AccountID: acct.ID, Locale: in.Locale}); err != nil {
			return err
		}
		who.ID, who.Name, who.Role = store.ActorUser(u.ID).ID, u.Email, store.RoleOwner
		ctx = store.WithActor(ctx, who)
		if err := o.sendVerification(ctx, u, acct.ID); err != nil {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: acct.ID}, Action: "account.created", ObjectID: acct.ID,
			Changes: store.Changes{"name": {nil, acct.Name}, "document": {nil, pix.MaskDocument(document)}, "owner": {nil, u.Email}}})
	})
	switch {
	case err != nil:
		return nil, nil, err
	case taken:
		return nil, nil, ErrEmailTaken
	}
	return u, acct, nil
}

// SignUpAttemptNotice is how often the person whose e-mail someone tries
// to sign up with is told so.
const SignUpAttemptNotice = 15 * time.Minute

// signUpAttempted is a sign-up with the e-mail of u, who has a user: it
// hashes the password as a sign-up does (the answer takes the same time),
// mails u that someone tried (at most once per SignUpAttemptNotice) and
// records it.
func (o *Operations) signUpAttempted(ctx context.Context, who store.Actor, u *store.User, password string) error {
	_ = o.Store.HashPassword(password)
	recent, err := o.Store.MailedSince(ctx, u.Email, store.MailSignUpAttempt, o.Store.Now().Add(-SignUpAttemptNotice))
	if err != nil {
		return err
	}
	if !recent {
		err := o.Store.QueueEmail(ctx, store.NewEmail{To: u.Email, Kind: store.MailSignUpAttempt, Locale: u.Locale,
			Data: map[string]string{"name": u.Name, "ip": who.IP, "login": o.BaseURL + "/login", "reset": o.BaseURL + "/password/forgot"}})
		if err != nil {
			return err
		}
	}
	return o.Store.Audit(store.WithActor(ctx, who), store.AuditRecord{Scope: userScope(u), Action: "user.sign_up_attempted",
		ObjectID: u.ID, Changes: store.Changes{"notified": {nil, !recent}}})
}

// sendVerification queues the mail with u's verification link.
func (o *Operations) sendVerification(ctx context.Context, u *store.User, accountID string) error {
	token, err := o.Store.CreateEmailToken(ctx, &store.EmailToken{Kind: store.TokenVerifyEmail, Email: u.Email, UserID: &u.ID})
	if err != nil {
		return err
	}
	return o.Store.QueueEmail(ctx, store.NewEmail{AccountID: accountID, To: u.Email, Kind: store.MailVerifyEmail, Locale: u.Locale,
		Data: map[string]string{"link": o.BaseURL + "/verify-email?token=" + token, "name": u.Name}})
}

// ResendInterval is how soon a confirmation link may be sent again.
const ResendInterval = time.Minute

// ErrResentRecently refuses sending a confirmation link again within
// ResendInterval.
var ErrResentRecently = errors.New("operations: a confirmation link was sent less than a minute ago")

// ResendVerification mails u (the person asking, not confirmed yet) a new
// confirmation link; the earlier ones stop working. Confirmed already, it
// sends nothing.
func (o *Operations) ResendVerification(ctx context.Context, who store.Actor, u *store.User) error {
	if u.EmailVerifiedAt != nil {
		return nil
	}
	return o.record(ctx, who, userScope(u), rule("ResendVerification"), "user.email_confirmation_sent", func(ctx context.Context) (string, store.Changes, error) {
		recent, err := o.Store.MailedSince(ctx, u.Email, store.MailVerifyEmail, o.Store.Now().Add(-ResendInterval))
		if err != nil {
			return "", nil, err
		}
		if recent {
			return "", nil, ErrResentRecently
		}
		if err := o.Store.EndTokens(ctx, store.TokenVerifyEmail, u.ID); err != nil {
			return "", nil, err
		}
		accountID := ""
		if u.AccountID != nil {
			accountID = *u.AccountID
		}
		return u.ID, store.Changes{"email": {nil, u.Email}}, o.sendVerification(ctx, u, accountID)
	})
}

// VerifyEmail uses a verification link once: its user's address is proved.
// It returns the user.
func (o *Operations) VerifyEmail(ctx context.Context, who store.Actor, token string) (u *store.User, err error) {
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		t, err := o.Store.UseEmailToken(ctx, store.TokenVerifyEmail, token)
		if err != nil {
			return err
		}
		if u, err = o.Store.UserByID(ctx, *t.UserID); err != nil {
			return err
		}
		if err := o.Store.MarkEmailVerified(ctx, u.ID); err != nil {
			return err
		}
		who.ID, who.Name = store.ActorUser(u.ID).ID, u.Email
		return o.Store.Audit(store.WithActor(ctx, who), store.AuditRecord{Scope: userScope(u), Action: "user.email_verified",
			ObjectID: u.ID, Changes: store.Changes{"email_verified": {false, true}}})
	})
	return u, err
}

// userScope is the account a person's own changes are recorded in.
func userScope(u *store.User) store.Scope {
	if u.AccountID != nil {
		return store.Scope{AccountID: *u.AccountID}
	}
	return store.Scope{}
}

// RequestPasswordReset mails the user with that address, if there is one,
// a reset link valid 30 minutes (replacing any earlier one). Whether there
// is one is not told: the answer is the same.
func (o *Operations) RequestPasswordReset(ctx context.Context, who store.Actor, email string) error {
	return o.Store.InTx(ctx, func(ctx context.Context) error {
		u, err := o.Store.UserByEmail(ctx, email)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := o.Store.EndTokens(ctx, store.TokenResetPassword, u.ID); err != nil {
			return err
		}
		token, err := o.Store.CreateEmailToken(ctx, &store.EmailToken{Kind: store.TokenResetPassword, Email: u.Email, UserID: &u.ID})
		if err != nil {
			return err
		}
		err = o.Store.QueueEmail(ctx, store.NewEmail{To: u.Email, Kind: store.MailResetPassword, Locale: u.Locale,
			Data: map[string]string{"link": o.BaseURL + "/password/reset?token=" + token, "name": u.Name, "ip": who.IP}})
		if err != nil {
			return err
		}
		return o.Store.Audit(store.WithActor(ctx, who), store.AuditRecord{Scope: userScope(u), Action: "user.password_reset_requested",
			ObjectID: u.ID})
	})
}

// ResetPassword uses a reset link once to set its user's password; every
// session of theirs ends (and every other reset link). It returns the user.
func (o *Operations) ResetPassword(ctx context.Context, who store.Actor, token, password string) (u *store.User, err error) {
	err = o.Store.InTx(ctx, func(ctx context.Context) error {
		t, err := o.Store.UseEmailToken(ctx, store.TokenResetPassword, token)
		if err != nil {
			return err
		}
		if err := o.Store.ResetPassword(ctx, *t.UserID, password); err != nil {
			return err
		}
		if err := o.Store.EndTokens(ctx, store.TokenResetPassword, *t.UserID); err != nil {
			return err
		}
		if u, err = o.Store.UserByID(ctx, *t.UserID); err != nil {
			return err
		}
		// Following the link proves the address too.
		if err := o.Store.MarkEmailVerified(ctx, u.ID); err != nil {
			return err
		}
		who.ID, who.Name = store.ActorUser(u.ID).ID, u.Email
		return o.Store.Audit(store.WithActor(ctx, who), store.AuditRecord{Scope: userScope(u), Action: "user.password_reset",
			ObjectID: u.ID, Changes: store.Changes{"password": {nil, "(changed)"}, "sessions": {nil, "ended"}}})
	})
	return u, err
}

// PlatformActivateLive is platform staff's permission to turn an
// account's live mode on.
const PlatformActivateLive Permission = "platform:activate_live"

// ActivateLive turns live mode on for an account that signed up (admin
// command, or support staff from their console).
func (o *Operations) ActivateLive(ctx context.Context, who store.Actor, accountID string) (acct *store.Account, err error) {
	err = o.record(ctx, who, store.Scope{AccountID: accountID, Livemode: true}, PlatformActivateLive, "account.live_activated",
		func(ctx context.Context) (string, store.Changes, error) {
			before, err := o.Store.Account(ctx, accountID)
			if err != nil {
				return "", nil, err
			}
			if acct, err = o.Store.ActivateLive(ctx, accountID); err != nil {
				return "", nil, err
			}
			return acct.ID, store.Changes{"live_enabled": {before.LiveEnabled(), true}}, nil
		})
	return acct, err
}

// RecordSignIn records that u signed in (who: their address and browser)
// and, from a browser that had not signed in to their e-mail before,
// mails them a notice.
func (o *Operations) RecordSignIn(ctx context.Context, who store.Actor, u *store.User, newDevice bool) error {
	return o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		if newDevice {
			at, zone := o.inZoneOf(u)
			err := o.Store.QueueEmail(ctx, store.NewEmail{To: u.Email, Kind: store.MailNewDevice, Locale: u.Locale,
				Data: map[string]string{"name": u.Name, "ip": who.IP, "device": useragent.Label(who.UserAgent), "user_agent": who.UserAgent,
					"at": at, "zone": zone, "security": o.BaseURL + "/dashboard/security"}})
			if err != nil {
				return err
			}
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: userScope(u), Action: "user.signed_in", ObjectID: u.ID,
			Changes: store.Changes{"new_device": {nil, newDevice}}})
	})
}

// inZoneOf is now as u reads the clock: in their account's time zone
// (Brasília when they have none), day first, and the zone's name.
func (o *Operations) inZoneOf(u *store.User) (at, zone string) {
	zone = u.TimeZone
	loc, err := time.LoadLocation(zone)
	if zone == "" || err != nil {
		zone = "America/Sao_Paulo"
		loc, _ = time.LoadLocation(zone)
	}
	return o.Store.Now().In(loc).Format("02/01/2006 15:04"), zone
}

// SignInFailureNotice is how often a person is told that sign-ins to
// their e-mail are refused for too many wrong passwords.
const SignInFailureNotice = 15 * time.Minute

// NotifySignInFailures tells the person with that e-mail (if there is one)
// that sign-ins to it are being refused, at most once per
// SignInFailureNotice.
func (o *Operations) NotifySignInFailures(ctx context.Context, who store.Actor, email string) error {
	return o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		u, err := o.Store.UserByEmail(ctx, email)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		recent, err := o.Store.MailedSince(ctx, u.Email, store.MailSignInFailures, o.Store.Now().Add(-SignInFailureNotice))
		if err != nil || recent {
			return err
		}
		at, zone := o.inZoneOf(u)
		err = o.Store.QueueEmail(ctx, store.NewEmail{To: u.Email, Kind: store.MailSignInFailures, Locale: u.Locale,
			Data: map[string]string{"name": u.Name, "ip": who.IP, "at": at, "zone": zone, "security": o.BaseURL + "/dashboard/security"}})
		if err != nil {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: userScope(u), Action: "user.sign_in_throttled", ObjectID: u.ID,
			Changes: store.Changes{"notified": {nil, true}}})
	})
}
