package operations

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"payments/store"
)

// Permission is what a change (or a read) needs: "<resource>:read" or
// "<resource>:write"; write includes read.
type Permission string

// The resources people and keys are given permissions on. Keys may hold
// the first eight (KeyResources); api_keys, team and settings are people's.
const (
	Payments    = "payments"
	Refunds     = "refunds"
	Withdrawals = "withdrawals"
	Disputes    = "disputes"
	Balance     = "balance"
	Events      = "events"
	Webhooks    = "webhooks"
	Subaccounts = "subaccounts"
	APIKeys     = "api_keys"
	Team        = "team"
	Settings    = "settings"
)

// PlatformReturns is one of support staff's changes (platform:...):
// returning, from the support console, a received Pix that paid nothing,
// of any account. People of an account have none of them.
const PlatformReturns Permission = "platform:returns"

// supportPlatform are the platform's changes support staff make from
// their console; making accounts and people is the operators' (admin
// commands), never a console's.
var supportPlatform = []Permission{PlatformReturns, PlatformActivateLive}

// Self is what a person's changes of their own sign-in need (language,
// password, second factor): every person has it, in any account or none.
const Self Permission = "self"

// KeyResources are the resources a restricted key may be given.
var KeyResources = []string{Payments, Refunds, Withdrawals, Disputes, Balance, Events, Webhooks, Subaccounts}

// Read and Write are the permissions on resource.
func Read(resource string) Permission  { return Permission(resource + ":read") }
func Write(resource string) Permission { return Permission(resource + ":write") }

func (p Permission) split() (resource, level string) {
	resource, level, _ = strings.Cut(string(p), ":")
	return resource, level
}

// Roles of people in an account, and what each may change: the README's
// permission table. Every role reads everything of its account (secrets
// are shown once, to whoever made them). Money leaves (refunds,
// withdrawals, returns of a received Pix) only by owner, admin and
// finance; developers build the integration (charges, webhooks, keys,
// test-mode simulations); finance and developers end test-mode disputes;
// only owners change the team.
var roleWrites = map[string][]string{
	store.RoleOwner:     {Payments, Refunds, Withdrawals, Disputes, Balance, Events, Webhooks, Subaccounts, APIKeys, Team, Settings},
	store.RoleAdmin:     {Payments, Refunds, Withdrawals, Disputes, Balance, Events, Webhooks, Subaccounts, APIKeys, Settings},
	store.RoleDeveloper: {Payments, Disputes, Events, Webhooks, APIKeys},
	store.RoleFinance:   {Payments, Refunds, Withdrawals, Disputes, Balance},
	store.RoleViewer:    {},
}

// RoleMay says whether role may make changes needing p (every role reads).
func RoleMay(role string, p Permission) bool {
	resource, level := p.split()
	writes, known := roleWrites[role]
	if !known {
		return false
	}
	return level == "read" || slices.Contains(writes, resource)
}

// PermissionError refuses a change (or a read) to someone without the
// permission it needs.
type PermissionError struct {
	Needed Permission
	// Role is the person's role, when a person asked.
	Role string
	// MakerRole is the role of the person who made the key that asked,
	// when it is what refused.
	MakerRole string
}

func (e *PermissionError) Error() string {
	if e.Role != "" {
		return fmt.Sprintf("operations: permission denied: the %s role does not have %s", e.Role, e.Needed)
	}
	if e.MakerRole != "" {
		return fmt.Sprintf("operations: permission denied: this key's maker (%s) does not have %s", e.MakerRole, e.Needed)
	}
	return fmt.Sprintf("operations: permission denied: this key does not have %s", e.Needed)
}

// Allow says whether who may do what needs p, or why not. Admin commands,
// the PSP and the service's own jobs may do everything; platform staff
// (support) only read; a key with no permission list does everything keys
// do; a restricted key what it lists (write includes read); a person what
// their role in the account may. A key a person made is also bounded by
// that person's role now: never stronger than its maker, and nothing once
// they left the account.
func Allow(who store.Actor, p Permission) error {
	switch {
	case p == Anyone:
		return nil
	case p == PSPOnly && who.Kind() != "admin" && who.Kind() != "psp" && who.Kind() != "system":
		return &PermissionError{Needed: p, Role: who.Role}
	}
	switch who.Kind() {
	case "admin", "psp", "system":
		return nil
	case "api_key":
		resource, level := p.split()
		if !slices.Contains(KeyResources, resource) {
			return &PermissionError{Needed: p}
		}
		if who.Permissions != nil && !slices.Contains(who.Permissions, string(p)) &&
			(level != "read" || !slices.Contains(who.Permissions, string(Write(resource)))) {
			return &PermissionError{Needed: p}
		}
		if who.MakerRole != "" && !RoleMay(who.MakerRole, p) {
			return &PermissionError{Needed: p, MakerRole: who.MakerRole}
		}
		return nil
	case "user":
		if p == Self {
			return nil
		}
		if who.Role == store.RoleSupport {
			if _, level := p.split(); level == "read" || slices.Contains(supportPlatform, p) {
				return nil
			}
			return &PermissionError{Needed: p, Role: who.Role}
		}
		if RoleMay(who.Role, p) {
			return nil
		}
		return &PermissionError{Needed: p, Role: who.Role}
	}
	return &PermissionError{Needed: p}
}

// ParseKeyPermissions reads a restricted key's permission list
// ("payments:read,refunds:write"), each once, on the keys' resources.
func ParseKeyPermissions(list []string) ([]string, error) {
	out := []string{}
	for _, item := range list {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		resource, level := Permission(item).split()
		if !slices.Contains(KeyResources, resource) || (level != "read" && level != "write") {
			return nil, fmt.Errorf("%w: %q (resources: %s; levels: read, write)", ErrBadPermission, item, strings.Join(KeyResources, ", "))
		}
		if !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: a restricted key needs at least one permission", ErrBadPermission)
	}
	slices.Sort(out)
	return out, nil
}

// ErrBadPermission refuses a permission that is not "<resource>:read|write"
// on a key's resource.
var ErrBadPermission = errors.New("operations: invalid permission")
