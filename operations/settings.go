package operations

import (
	"context"

	"payments/store"
)

// SetPreferences sets the language the dashboard speaks to u and, when
// zone is given and u belongs to an account, where the account's times are
// shown (store.ErrUnknownLocale, store.ErrUnknownTimeZone refuse).
func (o *Operations) SetPreferences(ctx context.Context, who store.Actor, u *store.User, locale, zone string) error {
	scope := store.Scope{}
	if u.AccountID != nil {
		scope.AccountID = *u.AccountID
	}
	return o.audited(store.WithActor(ctx, who), scope, "user.preferences_set", func(ctx context.Context) (string, error) {
		if err := o.Store.SetLocale(ctx, u.ID, locale); err != nil {
			return "", err
		}
		if zone != "" && u.AccountID != nil {
			if err := o.Store.SetTimeZone(ctx, *u.AccountID, zone); err != nil {
				return "", err
			}
		}
		return u.ID, nil
	})
}

// ChangePassword sets u's password (store.ErrWeakPassword refuses); every
// other session of theirs ends.
func (o *Operations) ChangePassword(ctx context.Context, who store.Actor, u *store.User, password string) error {
	scope := store.Scope{}
	if u.AccountID != nil {
		scope.AccountID = *u.AccountID
	}
	return o.audited(store.WithActor(ctx, who), scope, "user.password_changed", func(ctx context.Context) (string, error) {
		return u.ID, o.Store.SetPassword(ctx, u.Email, password)
	})
}
