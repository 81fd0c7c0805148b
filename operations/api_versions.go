package operations

import (
	"context"
	"fmt"
	"strings"

	"payments/store"
	"payments/versions"
)

// SetPaymentsVersion pins the account's integration to a dated API
// version (versions.API): its requests without a Payments-Version header
// are answered in it from then on (within the API key cache's few
// seconds). Webhooks keep their own pins. Audited as
// account.payments_version_changed, from and to.
func (o *Operations) SetPaymentsVersion(ctx context.Context, who store.Actor, scope store.Scope, version string) error {
	if !versions.API.Known(version) {
		return unknownVersion()
	}
	return o.record(ctx, who, scope, rule("SetPaymentsVersion"), "account.payments_version_changed", func(ctx context.Context) (string, store.Changes, error) {
		before, err := o.Store.SetPaymentsVersion(ctx, scope.AccountID, version)
		if err != nil {
			return "", nil, err
		}
		if before == version {
			return scope.AccountID, store.Changes{}, nil
		}
		return scope.AccountID, store.Changes{"payments_version": {before, version}}, nil
	})
}

// unknownVersion refuses a payments_version the API never had, naming the
// versions it has.
func unknownVersion() *InputError {
	return &InputError{Param: "payments_version", Words: "form.payments_version_unknown",
		Message: fmt.Sprintf("payments_version must be one of the API's versions: %s.", strings.Join(versions.API.Dates(), ", "))}
}
