package store_test

import (
	"context"
	"io/fs"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/storetest"
)

func TestMigrateConcurrentlyAppliesOnce(t *testing.T) {
	t.Parallel()
	url := storetest.UnmigratedURL(t)
	var wg sync.WaitGroup
	applied := make([][]string, 4)
	errs := make([]error, 4)
	for i := range applied {
		wg.Go(func() {
			db, err := store.Open(context.Background(), url, 2)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			applied[i], errs[i] = store.Migrate(context.Background(), db)
		})
	}
	wg.Wait()
	total := 0
	for i := range applied {
		require.NoError(t, errs[i])
		total += len(applied[i])
	}
	files, err := fs.Glob(store.MigrationFiles(), "migrations/*.up.sql")
	require.NoError(t, err)
	require.Equal(t, len(files), total, "each migration was applied exactly once across four instances")

	db, err := store.Open(context.Background(), url, 2)
	require.NoError(t, err)
	defer db.Close()
	again, err := store.Migrate(context.Background(), db)
	require.NoError(t, err)
	require.Empty(t, again)
}

func TestAccountFee(t *testing.T) {
	t.Parallel()
	a := store.Account{FeeBPS: 99, FeeFixedCents: 0}
	require.Equal(t, int64(0), a.Fee(1))
	require.Equal(t, int64(1), a.Fee(51)) // 0.5049 rounds to 1
	require.Equal(t, int64(0), a.Fee(50)) // 0.495 rounds to 0
	require.Equal(t, int64(990_000), a.Fee(100_000_000))
	fixed := store.Account{FeeBPS: 150, FeeFixedCents: 40}
	require.Equal(t, int64(55), fixed.Fee(1000))
	require.Equal(t, int64(30), fixed.Fee(30), "a fee never exceeds the amount")
}

func TestPasswordHashing(t *testing.T) {
	t.Parallel()
	db := storetest.DB(t)
	st, err := store.New(db, store.Options{})
	require.NoError(t, err)
	h := st.HashPassword("correct horse battery")
	require.Regexp(t, `^\$argon2id\$v=19\$m=65536,t=3,p=2\$`, h, "the default cost")
	require.NotEqual(t, h, st.HashPassword("correct horse battery"), "salted")
	ok, err := store.VerifyPassword(h, "correct horse battery")
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = store.VerifyPassword(h, "wrong horse battery")
	require.NoError(t, err)
	require.False(t, ok)
	_, err = store.VerifyPassword("$2a$10$bcrypt", "x")
	require.Error(t, err)

	// A hash carries its cost: one made at the minimum checks as such
	// wherever it is read.
	least, err := store.New(db, store.Options{PasswordHashing: store.MinimumPasswordHashing()})
	require.NoError(t, err)
	h = least.HashPassword("correct horse battery")
	require.Regexp(t, `^\$argon2id\$v=19\$m=19456,t=2,p=1\$`, h)
	ok, err = store.VerifyPassword(h, "correct horse battery")
	require.NoError(t, err)
	require.True(t, ok)
	require.Regexp(t, `^\$argon2id\$v=19\$m=19456,t=2,p=1\$`, least.DecoyPasswordHash(), "the decoy costs what a real check does")

	// Nothing below the minimum, in any of its terms.
	for _, weak := range []store.PasswordHashing{{MemoryKiB: 19*1024 - 1, Time: 2, Threads: 1},
		{MemoryKiB: 64 * 1024, Time: 1, Threads: 2}, {MemoryKiB: 64 * 1024, Time: 3}} {
		_, err := store.New(db, store.Options{PasswordHashing: weak})
		require.ErrorContains(t, err, "below the minimum", "%+v", weak)
	}
}

func TestStoreReturnsSentinels(t *testing.T) {
	t.Parallel()
	st, err := store.New(storetest.DB(t), store.Options{})
	require.NoError(t, err)
	ctx := context.Background()
	_, err = st.Account(ctx, "acct_missing")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = st.CreateAccount(ctx, store.NewAccount{Name: "A", Email: "a@example.com"})
	require.NoError(t, err)
	_, err = st.CreateAccount(ctx, store.NewAccount{Name: "B", Email: "A@Example.com"})
	require.ErrorIs(t, err, store.ErrConflict, "e-mails are unique regardless of case")
	var conflict *store.ConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, "accounts_email_key", conflict.Constraint)
	_, err = st.Payment(ctx, store.Scope{AccountID: "acct_x"}, "nope")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = st.RevokeAPIKey(ctx, "acct_x", "key_x")
	require.ErrorIs(t, err, store.ErrNotFound)
}
