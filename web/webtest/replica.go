package webtest

import (
	"context"
	"log/slog"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"payments/store"
	"payments/store/storetest"
)

// WithReplica gives the service a replica used while at most maxLag
// behind: the test database's copy on the streaming standby `make test`
// runs (TEST_REPLICA_DATABASE_URL), reached through a DBProxy
// (Server.ReplicaProxy) so that a test can take it away.
func WithReplica(maxLag time.Duration) Option {
	return func(o *Options) { o.Config.ReplicaMaxLag = maxLag }
}

// StandbyURL is the URL of the test database dbURL on the standby.
func StandbyURL(t testing.TB, dbURL string) string {
	t.Helper()
	base := os.Getenv("TEST_REPLICA_DATABASE_URL")
	if base == "" {
		t.Fatal("TEST_REPLICA_DATABASE_URL is not set: `make test` starts a standby of the test PostgreSQL (scripts/services.sh test)")
	}
	db, err := url.Parse(dbURL)
	require.NoError(t, err)
	u, err := url.Parse(base)
	require.NoError(t, err)
	u.Path = db.Path
	return u.String()
}

func startReplica(t testing.TB, primary *bun.DB, dbURL string, maxLag time.Duration, log *slog.Logger) (*store.Replica, *DBProxy, string) {
	t.Helper()
	standby := StandbyURL(t, dbURL)
	proxy, viaProxy := storetest.StartProxy(t, standby)
	rdb, err := store.OpenReplica(viaProxy, 10)
	require.NoError(t, err)
	r := store.NewReplica(primary, rdb, store.ReplicaConfig{MaxLag: maxLag}, log)
	r.Start(context.Background())
	t.Cleanup(func() { r.Stop(); _ = rdb.Close() })
	return r, proxy, standby
}
