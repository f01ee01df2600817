package chain

// Message is an internal, external-in or external-out message.
// Addresses are raw upper-case; "" means none (the source of an external-in
// message, the destination of an external-out one).
type Message struct {
	Hash Hash
	// HashNorm is the TEP-467 normalized hash of an external-in message
	// (zero for others), computed once when the message is read.
	HashNorm    Hash
	Source      string
	Destination string
	Value       uint64 // nanotons
	// ExtraCurrencies maps a currency id to its amount (decimal), when the
	// message carries extra currencies besides TON.
	ExtraCurrencies map[uint32]string
	FwdFee          uint64
	IhrFee          uint64
	CreatedLt       uint64
	CreatedAt       uint32
	Bounce          bool
	Bounced         bool
	Opcode          *uint32 // first 32 bits of the body, when it has them
	Body            []byte  // BOC of the body cell ("" when empty)
	// BodyHash is BodyHash(Body) when the store read it with the message
	// (its body_hash column), so a page need not decode each body again
	// to show its hash; zero when not known (compute it).
	BodyHash  Hash
	InitState []byte // BOC of the StateInit, when present
}

// IsExternalIn reports a message that came from outside the chain.
func (m *Message) IsExternalIn() bool { return m.Source == "" }

// Transaction is one transaction with the messages it consumed and produced.
type Transaction struct {
	Hash            Hash
	Account         string // raw upper-case
	Lt              uint64
	Utime           uint32
	PrevHash        Hash
	PrevLt          uint64
	OrigStatus      string // active, uninit, frozen, nonexist
	EndStatus       string
	TotalFees       uint64
	Aborted         bool
	ComputeSkipped  bool
	ComputeSuccess  bool
	ComputeExitCode int32
	ActionSuccess   bool
	ActionResult    int32
	Destroyed       bool
	Bounced         bool // a bounce phase ran
	InMsg           *Message
	OutMsgs         []Message
	TraceID         Hash   // id of the trace the transaction belongs to (zero until assembled)
	BOC             []byte // the raw transaction, so a better decoder can re-derive
	McSeqno         uint32 // masterchain block that committed it, when known
	// Block is the block that holds it (workchain, shard, seqno; no
	// hashes), when it was read from a raw block; nil from trace JSON,
	// which does not say.
	Block *BlockID
}

// Success is true when the transaction did what its message asked.
func (t *Transaction) Success() bool {
	return !t.Aborted && (t.ComputeSkipped || t.ComputeSuccess) && (t.ActionSuccess || t.ComputeSkipped)
}

// Trace is a tree of transactions linked by messages, rooted at the
// transaction that consumed an external message (or the earliest known one).
// Its id is the hash of the root transaction.
type Trace struct {
	ID           Hash
	Root         *TraceNode
	StartLt      uint64
	EndLt        uint64
	StartUtime   uint32
	EndUtime     uint32
	Complete     bool // every internal message sent inside the trace was processed
	Transactions int
	// Merged lists ids of pending traces handed out earlier that turned out
	// to be branches of this one (their parent arrived later); the store
	// drops them.
	Merged []Hash
}

// TraceNode is a transaction and the transactions its out-messages caused, in
// the order of the out-messages.
type TraceNode struct {
	Tx       *Transaction
	Children []*TraceNode
}

// Walk visits the tree depth first, parents before children.
func (n *TraceNode) Walk(fn func(*TraceNode) bool) {
	if n == nil || !fn(n) {
		return
	}
	for _, c := range n.Children {
		c.Walk(fn)
	}
}
