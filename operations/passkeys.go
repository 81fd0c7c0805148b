package operations

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/go-webauthn/webauthn/webauthn"

	"payments/store"
)

// Person is a user as WebAuthn knows them: their id as the user handle,
// their e-mail as the name, and their passkeys.
type Person struct {
	User        *store.User
	Credentials []webauthn.Credential
}

// WebAuthnID, WebAuthnName, WebAuthnDisplayName and WebAuthnCredentials
// make Person a webauthn.User.
func (p *Person) WebAuthnID() []byte                         { return []byte(p.User.ID) }
func (p *Person) WebAuthnName() string                       { return p.User.Email }
func (p *Person) WebAuthnDisplayName() string                { return cmp.Or(p.User.Name, p.User.Email) }
func (p *Person) WebAuthnCredentials() []webauthn.Credential { return p.Credentials }

// PersonOf loads u with their passkeys.
func (o *Operations) PersonOf(ctx context.Context, u *store.User) (*Person, error) {
	keys, err := o.Store.Passkeys(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	p := &Person{User: u}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return nil, err
		}
		p.Credentials = append(p.Credentials, c)
	}
	return p, nil
}

// AddPasskey keeps a passkey u just made (cred, verified by the caller's
// WebAuthn ceremony), named as they chose.
func (o *Operations) AddPasskey(ctx context.Context, who store.Actor, u *store.User, name string, cred *webauthn.Credential) error {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > 60 {
		name = "Chave de acesso"
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	return o.record(ctx, who, userScope(u), rule("AddPasskey"), "user.passkey_added", func(ctx context.Context) (string, store.Changes, error) {
		return u.ID, store.Changes{"passkey": {nil, name}}, o.Store.AddPasskey(ctx, u.ID, cred.ID, name, raw)
	})
}

// RemovePasskey forgets one of u's passkeys (after a fresh second factor).
func (o *Operations) RemovePasskey(ctx context.Context, who store.Actor, u *store.User, id []byte) error {
	if err := o.stepUp(who, false); err != nil {
		return err
	}
	return o.record(ctx, who, userScope(u), rule("RemovePasskey"), "user.passkey_removed", func(ctx context.Context) (string, store.Changes, error) {
		return u.ID, store.Changes{"passkey": {base64.RawURLEncoding.EncodeToString(id), nil}}, o.Store.RemovePasskey(ctx, u.ID, id)
	})
}

// UsedPasskey records that u proved their second factor (or signed in)
// with a passkey, whose credential (its counter) moved on.
func (o *Operations) UsedPasskey(ctx context.Context, who store.Actor, u *store.User, cred *webauthn.Credential) error {
	raw, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	return o.record(ctx, who, userScope(u), rule("UsedPasskey"), "user.second_factor_verified", func(ctx context.Context) (string, store.Changes, error) {
		return u.ID, store.Changes{"method": {nil, "passkey"}}, o.Store.UsePasskey(ctx, u.ID, cred.ID, raw)
	})
}
