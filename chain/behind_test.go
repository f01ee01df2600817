package chain

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// An account is behind when the batch touched it after the newest
// readable state: older state, no state, or a state that did not read.
func TestBehind(t *testing.T) {
	states := []AccountState{
		{Address: "0:A", LastTxLt: 10}, // as new as its transaction: current
		{Address: "0:B", LastTxLt: 5},  // older than its transaction
		{Address: "0:C", LastTxLt: 30}, // newer, but did not read
		{Address: "0:E", LastTxLt: 1},  // not touched
	}
	bad := map[string]error{"0:C": errors.New("library missing")}
	touched := map[string]uint64{"0:A": 10, "0:B": 7, "0:C": 30, "0:D": 4}
	require.Equal(t, map[string]uint64{"0:B": 7, "0:C": 30, "0:D": 4}, Behind(states, bad, touched))
	require.Empty(t, Behind(states, nil, nil))
}
