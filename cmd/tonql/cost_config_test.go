package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// The cost model's settings are checked before anything starts.
func TestCostConfig(t *testing.T) {
	for _, c := range []struct{ key, value, want string }{
		{"GET_METHOD_GAS_LIMIT", "0", "GET_METHOD_GAS_LIMIT must be at least 1"},
		{"REQUEST_WORK_BUDGET", "-1s", "REQUEST_WORK_BUDGET must not be negative"},
	} {
		var errb bytes.Buffer
		e := &env{stdout: io.Discard, stderr: &errb, getenv: func(k string) string {
			if k == c.key {
				return c.value
			}
			return ""
		}}
		require.Equal(t, 1, run(context.Background(), []string{"serve"}, e), c.key)
		require.Contains(t, errb.String(), c.want)
	}
}
