package operations

import (
	"context"

	"payments/store"
)

// CreateAPIKey makes a key of the account in the mode given and returns it
// with its secret, shown this once (at most store.MaxActiveAPIKeys unrevoked).
func (o *Operations) CreateAPIKey(ctx context.Context, who store.Actor, accountID string, livemode bool) (*store.APIKey, string, error) {
	scope := store.Scope{AccountID: accountID, Livemode: livemode}
	ctx = store.WithActor(ctx, who)
	var key *store.APIKey
	var secret string
	err := o.audited(ctx, scope, "api_key.created", func(ctx context.Context) (string, error) {
		var err error
		key, secret, err = o.Store.CreateAPIKey(ctx, accountID, livemode)
		if err != nil {
			return "", err
		}
		return key.ID, nil
	})
	if err != nil {
		return nil, "", err
	}
	return key, secret, nil
}

// RevokeAPIKey revokes one of the account's keys: every integration using
// it stops working.
func (o *Operations) RevokeAPIKey(ctx context.Context, who store.Actor, accountID, keyID string) (*store.APIKey, error) {
	ctx = store.WithActor(ctx, who)
	var key *store.APIKey
	err := o.Store.InTx(ctx, func(ctx context.Context) error {
		var err error
		if key, err = o.Store.RevokeAPIKey(ctx, accountID, keyID); err != nil {
			return err
		}
		return o.Store.Audit(ctx, store.Scope{AccountID: accountID, Livemode: key.Livemode}, "api_key.revoked", key.ID)
	})
	if err != nil {
		return nil, err
	}
	return key, nil
}
