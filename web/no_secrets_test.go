package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// requireNoSecrets fails when any of secrets shows in what the service
// logged or in any audit row (every column, as text).
func requireNoSecrets(t *testing.T, s *webtest.Server, secrets map[string]string) {
	t.Helper()
	var rows []string
	require.NoError(t, s.DB.NewRaw(`SELECT row_to_json(a)::text FROM audit_log AS a`).Scan(context.Background(), &rows))
	audit := strings.Join(rows, "\n")
	require.NotEmpty(t, audit)
	logs := s.Logs.String()
	for name, secret := range secrets {
		require.NotEmpty(t, secret, name)
		require.NotContains(t, logs, secret, "%s in the logs", name)
		require.NotContains(t, audit, secret, "%s in the audit trail", name)
	}
}
