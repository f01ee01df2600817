package store

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// splitList reads what strings.Join wrote as strings.Fields would.
func TestSplitListIsFields(t *testing.T) {
	for _, s := range []string{"", "a", "a b", "0:AB 0:CD -1:EF", " a  b ", "a ", " "} {
		require.Equal(t, strings.Fields(s), splitList(s), "%q", s)
	}
}
