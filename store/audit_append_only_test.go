package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
)

// The audit trail is append-only against the service's own credentials,
// not only against its code: as the role the service logs in as, DELETE,
// UPDATE, TRUNCATE, disabling its trigger and replica mode (which skips
// triggers) all fail, and the rows are as they were; reading and adding
// work. The owner's role (the migrations') is the only one that could.
func TestTheAuditLogIsAppendOnlyForTheService(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.DB(t) // as storetest.ServiceRole
	var user string
	require.NoError(t, db.NewRaw("SELECT current_user").Scan(ctx, &user))
	require.Equal(t, storetest.ServiceRole, user)
	st, err := store.New(db, store.Options{SecretKey: make([]byte, 32)})
	require.NoError(t, err)
	acct, err := st.CreateAccount(ctx, store.NewAccount{Name: "Loja", Email: "loja@example.com"})
	require.NoError(t, err)
	require.NoError(t, st.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: acct.ID}, Action: "account.created", ObjectID: acct.ID}),
		"the service adds to the trail")
	trail := func() []string {
		var rows []string
		require.NoError(t, db.NewRaw(`SELECT action || ' ' || actor FROM audit_log ORDER BY id`).Scan(ctx, &rows))
		return rows
	}
	before := trail()
	require.Equal(t, []string{"account.created system"}, before)

	for _, attack := range []string{
		"DELETE FROM audit_log",
		"UPDATE audit_log SET actor = 'someone'",
		"TRUNCATE audit_log",
		"ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update",
		"ALTER TABLE audit_log DISABLE TRIGGER ALL",
		"SET session_replication_role = replica",
		"ALTER TABLE audit_log OWNER TO " + storetest.ServiceRole,
		"DROP TABLE audit_log",
	} {
		_, err := db.ExecContext(ctx, attack)
		require.Error(t, err, attack)
		require.Regexp(t, `permission denied|must be owner|must be superuser`, err.Error(), attack)
	}
	// In one transaction too: replica mode then an update.
	tx, err := db.BeginTx(ctx, nil)
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica")
	require.Error(t, err)
	require.NoError(t, tx.Rollback())
	require.Equal(t, before, trail(), "nothing changed")
}
