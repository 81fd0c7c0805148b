package operations

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"unicode/utf8"

	"payments/store"
)

// ErrBadAllowedIP refuses an allow-list entry that is not an address or a
// CIDR range.
var ErrBadAllowedIP = errors.New("operations: invalid allowed IP")

// ErrBadKeyName refuses a key name longer than store.MaxAPIKeyName.
var ErrBadKeyName = fmt.Errorf("operations: a key's name has at most %d characters", store.MaxAPIKeyName)

// ParseAllowedIPs reads an allow-list: addresses ("203.0.113.7") and CIDR
// ranges ("203.0.113.0/24", "2001:db8::/32"), as CIDR ranges; none is nil,
// anywhere.
func ParseAllowedIPs(list []string) ([]string, error) {
	var out []string
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		var p netip.Prefix
		if strings.Contains(item, "/") {
			parsed, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, fmt.Errorf("%w: %q", ErrBadAllowedIP, item)
			}
			p = parsed.Masked()
		} else {
			addr, err := netip.ParseAddr(item)
			if err != nil {
				return nil, fmt.Errorf("%w: %q", ErrBadAllowedIP, item)
			}
			addr = addr.Unmap()
			p = netip.PrefixFrom(addr, addr.BitLen())
		}
		out = append(out, p.String())
	}
	return out, nil
}

// CreateAPIKey makes a key of the account in the mode given and returns it
// with its secret, shown this once (at most store.MaxActiveAPIKeys
// unrevoked): a full key (sk_) without permissions, a restricted one (rk_)
// with them (ParseKeyPermissions), usable from anywhere or only from its
// allow-list. A key is never stronger than its maker: a person who is not
// an owner or admin gets what they asked that their role may do
// (KeyPermissionsFor). A live key needs the account's live mode activated
// and, from a person, a second factor enrolled and proved just now.
func (o *Operations) CreateAPIKey(ctx context.Context, who store.Actor, accountID string, livemode bool, in store.NewAPIKey) (k *store.APIKey, secret string, err error) {
	in.Name = strings.TrimSpace(in.Name)
	if utf8.RuneCountInString(in.Name) > store.MaxAPIKeyName {
		return nil, "", ErrBadKeyName
	}
	if err := Allow(who, rule("CreateAPIKey")); err != nil {
		return nil, "", err
	}
	scope := store.Scope{AccountID: accountID, Livemode: livemode}
	if livemode {
		if err := o.stepUp(who, true); err != nil {
			return nil, "", err
		}
		// A key is a credential, not a move of money: what it needs is the
		// account's activation (the service's PSP is asked when it is used).
		if err := o.activated(ctx, accountID, nil); err != nil {
			return nil, "", err
		}
	}
	if who.Kind() == "user" {
		in.Permissions = KeyPermissionsFor(who.Role, in.Permissions)
	}
	for _, id := range in.Subaccounts {
		if _, err := o.Store.SubaccountOf(ctx, accountID, id); errors.Is(err, store.ErrNotFound) {
			return nil, "", &InputError{Param: "subaccounts", Message: "subaccounts must name subaccounts of this account.",
				Words: "keys.error.subaccounts"}
		} else if err != nil {
			return nil, "", err
		}
	}
	err = o.record(ctx, who, scope, rule("CreateAPIKey"), "api_key.created", func(ctx context.Context) (string, store.Changes, error) {
		if k, secret, err = o.Store.CreateAPIKey(ctx, accountID, livemode, in); err != nil {
			return "", nil, err
		}
		changes := store.Changes{"name": {nil, k.Name}, "mode": {nil, k.Mode()}}
		if k.Permissions != nil {
			changes["permissions"] = [2]any{nil, k.Permissions}
		}
		if k.AllowedIPs != nil {
			changes["allowed_ips"] = [2]any{nil, k.AllowedIPs}
		}
		if k.Subaccounts != nil {
			changes["subaccounts"] = [2]any{nil, k.Subaccounts}
		}
		return k.ID, changes, nil
	})
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// KeyPermissionsFor is what a key asked with permissions (nil: a full
// key, every write) may hold when a person in role makes it: owners and
// admins get what they asked; anyone else gets each permission their role
// may have, a write it may not make kept as the read it includes. Nil
// means a full key.
func KeyPermissionsFor(role string, asked []string) []string {
	if role == store.RoleOwner || role == store.RoleAdmin {
		return asked
	}
	if asked == nil {
		for _, r := range KeyResources {
			asked = append(asked, string(Write(r)))
		}
	}
	levels := map[string]string{} // resource -> the highest level kept
	for _, p := range asked {
		resource, level := Permission(p).split()
		if level == "write" && !RoleMay(role, Write(resource)) {
			level = "read"
		}
		if levels[resource] != "write" {
			levels[resource] = level
		}
	}
	out := []string{}
	for resource, level := range levels {
		out = append(out, resource+":"+level)
	}
	slices.Sort(out)
	return out
}

// RevokeAPIKey revokes one of the account's keys: every integration using
// it stops working.
func (o *Operations) RevokeAPIKey(ctx context.Context, who store.Actor, accountID, keyID string) (k *store.APIKey, err error) {
	if err := Allow(who, rule("RevokeAPIKey")); err != nil {
		return nil, err
	}
	err = o.Store.InTx(store.WithActor(ctx, who), func(ctx context.Context) error {
		if k, err = o.Store.RevokeAPIKey(ctx, accountID, keyID); err != nil {
			return err
		}
		return o.Store.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: accountID, Livemode: k.Livemode},
			Action: "api_key.revoked", ObjectID: k.ID, Changes: store.Changes{"revoked": {false, true}}})
	})
	return k, err
}
