package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tonql/tonql/apperr"
)

// What a database failure tells a client: a database that went away is
// Unavailable (503, not charged, retried by clients), never Internal (500).
// "unexpected EOF" is what pgdriver reports when Postgres stops in the
// middle of an answer: the Postgres-stop probe (scripts/probe.sh) saw
// it answer 500 before it was classified here.
func TestDatabaseFailuresClassified(t *testing.T) {
	for _, c := range []struct {
		err  error
		kind apperr.Kind
	}{
		{fmt.Errorf("read rows: %w", io.ErrUnexpectedEOF), apperr.Unavailable},
		{io.EOF, apperr.Unavailable},
		{driver.ErrBadConn, apperr.Unavailable},
		{sql.ErrConnDone, apperr.Unavailable},
		{errors.New("dial tcp 127.0.0.1:5432: connect: connection refused"), apperr.Unavailable},
		{context.DeadlineExceeded, apperr.Timeout},
		{errors.New("syntax error at or near"), apperr.Internal},
	} {
		var e *apperr.Error
		require.True(t, errors.As(unavailable(c.err), &e), "%v", c.err)
		require.Equal(t, c.kind, e.Kind, "%v", c.err)
	}
}
