package fees_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/boc"

	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/internal/testenv"
)

// The external messages of a real block, rebuilt from address and body
// (what sendQuery gets), are the messages the chain received, byte for
// byte: but for the two whose senders put the body by reference, which
// tonlib's layout puts inline.
func TestExternalMessageIsTonlibs(t *testing.T) {
	raw, err := os.ReadFile(testenv.Fixture(t, "fee-replay/tvm_replay_fat_block_66519406.json"))
	require.NoError(t, err)
	_, msgs, err := fees.ReplayExternals(raw)
	require.NoError(t, err)
	require.Len(t, msgs, 12)
	same := 0
	for _, m := range msgs {
		req, err := fees.ParseParams(fees.Params{Address: m.Account.ToRaw(), Body: m.Body})
		require.NoError(t, err)
		got, err := req.ExternalMessage()
		require.NoError(t, err)
		want, err := base64.StdEncoding.DecodeString(m.Message)
		require.NoError(t, err)
		equal := bytes.Equal(rootHash(t, got), rootHash(t, want))
		require.Equal(t, !m.BodyByRef, equal, "message to %s (body by reference: %v)", m.Account.ToRaw(), m.BodyByRef)
		if equal {
			same++
		}
	}
	require.Equal(t, 10, same)
}

func rootHash(t *testing.T, b []byte) []byte {
	cells, err := boc.DeserializeBoc(b)
	require.NoError(t, err)
	require.Len(t, cells, 1)
	h, err := cells[0].Hash()
	require.NoError(t, err)
	return h
}
