package decode

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tonkeeper/tongo/abi"
)

// TestOpcodeNames: the generated table names tongo's op codes as tongo
// does, in snake case; a code tongo does not know is unknown.
func TestOpcodeNames(t *testing.T) {
	require.Equal(t, "jetton_transfer", Opcode(uint32(abi.JettonTransferMsgOpCode)))
	require.Equal(t, "nft_transfer", Opcode(uint32(abi.NftTransferMsgOpCode)))
	require.Equal(t, "text_comment", Opcode(0))
	require.Equal(t, Unknown, Opcode(0xdeadbeef))
	require.Greater(t, len(opNames), 300)
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"QueryId": "query_id", "ForwardTonAmount": "forward_ton_amount", "NFTPayload": "nft_payload",
		"Poolv3Mint": "poolv3_mint", "sum_type": "sum_type", "X": "x",
	} {
		require.Equal(t, want, snake(in), in)
	}
}
