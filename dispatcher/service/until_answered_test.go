package service_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"payments/dispatcher/service"
)

// A write PostgreSQL aborted (a deadlock lost, a serialization conflict)
// is tried again, like one that never reached it: given up, a success's
// record left the delivery to be sent again when its lease ran out. Any
// other error is the caller's at once.
func TestUntilAnsweredTriesAnAbortedWriteAgain(t *testing.T) {
	for _, code := range []string{"40P01", "40001"} {
		tries := 0
		err := service.UntilAnswered(time.Now().Add(time.Minute), func(context.Context) error {
			if tries++; tries == 1 {
				return fmt.Errorf("store: finish delivery: %w", &pgconn.PgError{Code: code, Message: "aborted"})
			}
			return nil
		})
		require.NoError(t, err, code)
		require.Equal(t, 2, tries, code)
	}

	tries := 0
	refused := fmt.Errorf("store: finish delivery: %w", &pgconn.PgError{Code: "23505", Message: "duplicate key"})
	err := service.UntilAnswered(time.Now().Add(time.Minute), func(context.Context) error {
		tries++
		return refused
	})
	require.True(t, errors.Is(err, refused))
	require.Equal(t, 1, tries)
}
