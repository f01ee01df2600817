package chain

// Kinds of TokenMove, as toncenter names its tables.
const (
	MoveJettonTransfer = "jetton_transfer"
	MoveJettonBurn     = "jetton_burn"
	MoveNftTransfer    = "nft_transfer"
)

// TokenMove is a token's transfer or burn request as the contract that
// took it read it: one transaction whose incoming message is a TEP-74
// transfer or burn at a jetton wallet, or a TEP-62 transfer at an NFT
// item (toncenter's jetton_transfers, jetton_burns and nft_transfers
// rows). It is decoded once, when the transaction is written, so that the
// routes that list moves decode nothing.
type TokenMove struct {
	Kind    string
	TxHash  string // standard base64
	TxLt    uint64
	TxUtime uint32
	TraceID string // standard base64
	QueryID string // decimal
	// Amount is the jettons asked to move or burn (decimal); "" for an NFT.
	Amount string
	// Source is who asked: the owner, the in-message's sender.
	Source string
	// Destination is the new owner the request names; "" for a burn.
	Destination string
	// Contract is the jetton wallet or NFT item that took the request.
	Contract            string
	ResponseDestination string
	CustomPayload       string // base64 BOC, "" when absent
	ForwardAmount       string // nanotons, decimal; "" for a burn
	ForwardPayload      string // base64 BOC, "" when empty
	// Master is the jetton master or NFT collection of Contract, filled
	// when read, from the token registry ("" when it does not know it).
	Master string
}
