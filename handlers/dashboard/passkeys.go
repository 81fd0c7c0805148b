package dashboard

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// Passkeys (WebAuthn): made on the security page, used as a second factor
// (sign-in's second step, a step-up) and to sign in without a password.
// Each ceremony's challenge waits in the session under its own key; the
// browser's side is static/passkeys.js.
const (
	sessionPasskeyCreate = "webauthn_create"
	sessionPasskeyAssert = "webauthn_assert"
)

// errPasskey is any passkey ceremony that did not prove anything.
func errPasskey() *reply.Error {
	return reply.InvalidRequest(http.StatusBadRequest, "passkey_failed", "The passkey could not be verified. Try again, or use another way.")
}

// requirePasskeys answers 404 on a site with no passkeys (its BASE_URL
// names an address, not a domain).
func (d *Dashboard) requirePasskeys() error {
	if d.WebAuthn == nil {
		return reply.InvalidRequest(http.StatusNotFound, "route_not_found", "Passkeys are off on this site.")
	}
	return nil
}

func (d *Dashboard) keepCeremony(c *fiber.Ctx, key string, data *webauthn.SessionData) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(key, string(raw))
	return sess.Save()
}

// takeCeremony returns (and forgets: a challenge is answered once) the
// ceremony kept under key.
func (d *Dashboard) takeCeremony(c *fiber.Ctx, key string) (*webauthn.SessionData, error) {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return nil, err
	}
	raw, _ := sess.Get(key).(string)
	sess.Delete(key)
	if err := sess.Save(); err != nil {
		return nil, err
	}
	if raw == "" {
		return nil, errPasskey()
	}
	data := new(webauthn.SessionData)
	if err := json.Unmarshal([]byte(raw), data); err != nil {
		return nil, errPasskey()
	}
	return data, nil
}

// PasskeyCreateOptions handles POST /dashboard/security/passkeys/options.
func (d *Dashboard) PasskeyCreateOptions(c *fiber.Ctx) error {
	if err := d.requirePasskeys(); err != nil {
		return err
	}
	person, err := d.Ops.PersonOf(c.UserContext(), request.CurrentUser(c).User)
	if err != nil {
		return err
	}
	var exclude []protocol.CredentialDescriptor
	for _, cred := range person.Credentials {
		exclude = append(exclude, cred.Descriptor())
	}
	options, data, err := d.WebAuthn.BeginRegistration(person, webauthn.WithExclusions(exclude),
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired))
	if err != nil {
		return err
	}
	if err := d.keepCeremony(c, sessionPasskeyCreate, data); err != nil {
		return err
	}
	return c.JSON(options)
}

// PasskeyCreate handles POST /dashboard/security/passkeys?name=: the
// browser's new credential, checked against the ceremony's challenge.
func (d *Dashboard) PasskeyCreate(c *fiber.Ctx) error {
	if err := d.requirePasskeys(); err != nil {
		return err
	}
	data, err := d.takeCeremony(c, sessionPasskeyCreate)
	if err != nil {
		return err
	}
	parsed, err := protocol.ParseCredentialCreationResponseBody(bytes.NewReader(c.Body()))
	if err != nil {
		return errPasskey()
	}
	u := request.CurrentUser(c)
	person, err := d.Ops.PersonOf(c.UserContext(), u.User)
	if err != nil {
		return err
	}
	cred, err := d.WebAuthn.CreateCredential(person, *data, parsed)
	if err != nil {
		return errPasskey()
	}
	if err := d.Ops.AddPasskey(c.UserContext(), request.Actor(c), u.User, c.Query("name"), cred); err != nil {
		return err
	}
	if err := d.setFlash(c, flashNotice, t(c, "security.passkey_added")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"location": "/dashboard/security"})
}

// RemovePasskey handles POST /dashboard/security/passkeys/{id}/remove.
func (d *Dashboard) RemovePasskey(c *fiber.Ctx) error {
	id, err := base64.RawURLEncoding.DecodeString(pathParam(c, "id"))
	if err != nil {
		return reply.NoSuch("passkey", "id", pathParam(c, "id"))
	}
	u := request.CurrentUser(c)
	if !confirmed(c) {
		// Asked first, as every removal that weakens the account is: what
		// goes, and whether it is the last second factor.
		keys, err := d.Store.Passkeys(c.UserContext(), u.ID)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if string(k.ID) != string(id) {
				continue
			}
			warning := t(c, "security.passkey_remove_warning")
			if len(keys) == 1 && u.TOTPEnabledAt == nil {
				warning = t(c, "security.passkey_remove_last")
			}
			return d.confirm(c, "security", views.Confirmation{Title: t(c, "security.passkey_remove_title"),
				Lines:   []views.ConfirmLine{{Label: t(c, "security.passkey_name"), Value: k.Name}, {Label: t(c, "field.created"), Value: when(c, k.CreatedAt)}},
				Warning: warning, Button: t(c, "security.remove"), CancelURL: "/dashboard/security", Danger: true})
		}
		return reply.NoSuch("passkey", "id", pathParam(c, "id"))
	}
	err = d.Ops.RemovePasskey(c.UserContext(), request.Actor(c), u.User, id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("passkey", "id", pathParam(c, "id"))
	}
	if err != nil {
		return reply.Refusal(err)
	}
	return d.noticeAndGo(c, t(c, "security.passkey_removed"), "/dashboard/security")
}

// assertionOptions begins a passkey assertion: of u's passkeys, or (u
// nil) of any passkey of this site the browser holds.
func (d *Dashboard) assertionOptions(c *fiber.Ctx, u *store.User) error {
	if err := d.requirePasskeys(); err != nil {
		return err
	}
	var options *protocol.CredentialAssertion
	var data *webauthn.SessionData
	var err error
	if u == nil {
		options, data, err = d.WebAuthn.BeginDiscoverableLogin()
	} else {
		person, perr := d.Ops.PersonOf(c.UserContext(), u)
		if perr != nil {
			return perr
		}
		if len(person.Credentials) == 0 {
			return errPasskey()
		}
		options, data, err = d.WebAuthn.BeginLogin(person)
	}
	if err != nil {
		return err
	}
	if err := d.keepCeremony(c, sessionPasskeyAssert, data); err != nil {
		return err
	}
	return c.JSON(options)
}

// assertion checks the browser's answer: by u's passkeys, or (u nil) by
// whoever's passkey it is. It returns the person and records the use.
func (d *Dashboard) assertion(c *fiber.Ctx, u *store.User) (*store.User, error) {
	if err := d.requirePasskeys(); err != nil {
		return nil, err
	}
	data, err := d.takeCeremony(c, sessionPasskeyAssert)
	if err != nil {
		return nil, err
	}
	parsed, err := protocol.ParseCredentialRequestResponseBody(bytes.NewReader(c.Body()))
	if err != nil {
		return nil, errPasskey()
	}
	ctx := c.UserContext()
	var cred *webauthn.Credential
	if u == nil {
		found, used, err := d.WebAuthn.ValidatePasskeyLogin(func(_, userHandle []byte) (webauthn.User, error) {
			who, err := d.Store.UserByID(ctx, string(userHandle))
			if err != nil {
				return nil, err
			}
			return d.Ops.PersonOf(ctx, who)
		}, *data, parsed)
		person, ok := found.(*operations.Person)
		if err != nil || !ok {
			return nil, errPasskey()
		}
		u, cred = person.User, used
	} else {
		person, err := d.Ops.PersonOf(ctx, u)
		if err != nil {
			return nil, err
		}
		if cred, err = d.WebAuthn.ValidateLogin(person, *data, parsed); err != nil {
			return nil, errPasskey()
		}
	}
	owner := u
	who := request.Person(c, owner)
	if err := d.Ops.UsedPasskey(ctx, who, owner, cred); err != nil {
		return nil, err
	}
	return owner, nil
}

// PasskeySignInOptions handles POST /login/passkey/options.
func (d *Dashboard) PasskeySignInOptions(c *fiber.Ctx) error { return d.assertionOptions(c, nil) }

// PasskeySignIn handles POST /login/passkey: a passkey signs in without a
// password, and is the second factor too.
func (d *Dashboard) PasskeySignIn(c *fiber.Ctx) error {
	u, err := d.assertion(c, nil)
	if err != nil {
		return err
	}
	return d.finishSignInJSON(c, u)
}

// PendingPasskeyOptions handles POST /login/verify/passkey/options: the
// second step of a sign-in, with a passkey.
func (d *Dashboard) PendingPasskeyOptions(c *fiber.Ctx) error {
	u, err := d.pendingSignIn(c)
	if err != nil {
		return err
	}
	if u == nil {
		return errPasskey()
	}
	return d.assertionOptions(c, u)
}

// PendingPasskey handles POST /login/verify/passkey.
func (d *Dashboard) PendingPasskey(c *fiber.Ctx) error {
	u, err := d.pendingSignIn(c)
	if err != nil {
		return err
	}
	if u == nil {
		return errPasskey()
	}
	if _, err := d.assertion(c, u); err != nil {
		return err
	}
	return d.finishSignInJSON(c, u)
}

// finishSignInJSON signs u in, second factor proved, and tells the page's
// script where to go.
func (d *Dashboard) finishSignInJSON(c *fiber.Ctx, u *store.User) error {
	if err := d.finishSignIn(c, u, true); err != nil {
		return err
	}
	c.Response().Header.Del(fiber.HeaderLocation)
	return c.Status(http.StatusOK).JSON(fiber.Map{"location": "/dashboard"})
}

// StepUpPasskeyOptions handles POST /dashboard/verify/passkey/options.
func (d *Dashboard) StepUpPasskeyOptions(c *fiber.Ctx) error {
	return d.assertionOptions(c, request.CurrentUser(c).User)
}

// StepUpPasskey handles POST /dashboard/verify/passkey?next=.
func (d *Dashboard) StepUpPasskey(c *fiber.Ctx) error {
	if _, err := d.assertion(c, request.CurrentUser(c).User); err != nil {
		return err
	}
	if err := d.steppedUp(c); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"location": localNext(c.Query("next"))})
}
