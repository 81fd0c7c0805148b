package operations

import (
	"context"

	"payments/store"
)

// SetPreferences sets the language the dashboard speaks to u and, when
// zone is given and u belongs to an account, where the account's times are
// shown (store.ErrUnknownLocale, store.ErrUnknownTimeZone refuse): the
// language is a person's own; the zone is the account's setting.
func (o *Operations) SetPreferences(ctx context.Context, who store.Actor, u *store.User, locale, zone string) error {
	scope := store.Scope{}
	if u.AccountID != nil {
		scope.AccountID = *u.AccountID
	}
	if zone != "" && u.AccountID != nil && zone != u.TimeZone {
		if err := Allow(who, rule("SetPreferences:account")); err != nil {
			return err
		}
	}
	return o.record(ctx, who, scope, rule("SetPreferences"), "user.preferences_set", func(ctx context.Context) (string, store.Changes, error) {
		if err := o.Store.SetLocale(ctx, u.ID, locale); err != nil {
			return "", nil, err
		}
		changes := store.Changes{"locale": {u.Locale, locale}}
		if zone != "" && u.AccountID != nil {
			if err := o.Store.SetTimeZone(ctx, *u.AccountID, zone); err != nil {
				return "", nil, err
			}
			changes["account.time_zone"] = [2]any{u.TimeZone, zone}
		}
		return u.ID, changes, nil
	})
}

// ChangePassword sets u's password (store.ErrWeakPassword refuses); every
// other session of theirs ends. Only they may: who must be u.
func (o *Operations) ChangePassword(ctx context.Context, who store.Actor, u *store.User, password string) error {
	scope := store.Scope{}
	if u.AccountID != nil {
		scope.AccountID = *u.AccountID
	}
	return o.record(ctx, who, scope, rule("ChangePassword"), "user.password_changed", func(ctx context.Context) (string, store.Changes, error) {
		return u.ID, store.Changes{"password": {nil, "(changed)"}}, o.Store.SetPassword(ctx, u.Email, password)
	})
}
