package rest

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/history"
	"github.com/tonql/tonql/internal/reqid"
	"github.com/tonql/tonql/resolvers"
	"github.com/tonql/tonql/store"
)

// The v2 block and transaction methods, in tonlib's shapes, over the
// block store and the stored raw transactions (package history).

func init() {
	for name, m := range map[string]rpcMethod{
		"getTransactions":         getTransactions,
		"getBlockHeader":          getBlockHeader,
		"lookupBlock":             lookupBlock,
		"shards":                  shards,
		"getBlockTransactions":    blockTransactions(false),
		"getBlockTransactionsExt": blockTransactions(true),
		"tryLocateTx":             locate(true),
		"tryLocateResultTx":       locate(true),
		"tryLocateSourceTx":       locate(false),
		"getConsensusBlock":       consensusBlock,
		"detectAddress":           detectAddress,
		"packAddress":             packAddress,
		"unpackAddress":           unpackAddress,
		"getConfigParam":          getConfigParam,
		"getConfigAll":            getConfigAll,
	} {
		rpcMethods[name] = m
		v2Routes[name] = http.MethodGet
	}
	rpcMethods["sendQuery"] = sendQuery
	v2Routes["sendQuery"] = http.MethodPost
}

// sendQuery builds the external message of address, body, init_code and
// init_data as tonlib does and sends it like sendBoc.
func sendQuery(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	if _, ok := p["boc"]; ok {
		return nil, apperr.Field("boc", "sendQuery takes address, body, init_code and init_data; send a whole message with sendBoc")
	}
	fp, err := fees.DecodeParams(p.raw())
	if err != nil {
		return nil, err
	}
	req, err := fees.ParseParams(fp)
	if err != nil {
		return nil, err
	}
	msg, err := req.ExternalMessage()
	if err != nil {
		return nil, apperr.Field("body", "%v", err)
	}
	if _, err := res.SendBoc(r.Context(), base64.StdEncoding.EncodeToString(msg)); err != nil {
		return nil, err
	}
	return sentMessage{Type: "ok", Extra: reqid.From(r.Context())}, nil
}

func historyOf(res *resolvers.Resolver) (*history.History, error) { return res.History() }

func getTransactions(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	addr, err := p.address("address")
	if err != nil {
		return nil, err
	}
	limit, ok, err := p.integer("limit", 1, 100)
	if err != nil {
		return nil, err
	}
	if !ok {
		limit = 10
	}
	lt, err := p.ltParam("lt")
	if err != nil {
		return nil, err
	}
	hash, err := p.hashParam("hash")
	if err != nil {
		return nil, err
	}
	toLt, err := p.ltParam("to_lt")
	if err != nil {
		return nil, err
	}
	if _, err := p.boolean("archival"); err != nil {
		return nil, err
	}
	var from *history.TxID
	switch {
	case lt != 0 && !hash.IsZero():
		from = &history.TxID{Lt: lt, Hash: hash}
	case lt != 0:
		return nil, apperr.Field("hash", "required with lt (a transaction is named by lt and hash)")
	case !hash.IsZero():
		return nil, apperr.Field("lt", "required with hash (a transaction is named by lt and hash)")
	}
	h, err := historyOf(res)
	if err != nil {
		return nil, err
	}
	txs, err := h.AccountTransactions(r.Context(), addr, from, toLt, int(limit))
	if err != nil {
		return nil, err
	}
	out := make([]rawTransaction, len(txs))
	for i, tx := range txs {
		out[i] = renderTx(tx, res.Testnet)
	}
	return out, nil
}

func getBlockHeader(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	b, err := namedBlock(r, res, p)
	if err != nil {
		return nil, err
	}
	return renderHeader(r.Context(), b), nil
}

// namedBlock is the block named by workchain, shard, seqno and optional
// root_hash and file_hash.
func namedBlock(r *http.Request, res *resolvers.Resolver, p params) (*chain.BlockHeader, error) {
	wc, shard, seqno, err := p.block()
	if err != nil {
		return nil, err
	}
	root, err := p.hashParam("root_hash")
	if err != nil {
		return nil, err
	}
	file, err := p.hashParam("file_hash")
	if err != nil {
		return nil, err
	}
	h, err := historyOf(res)
	if err != nil {
		return nil, err
	}
	return h.Block(r.Context(), wc, shard, seqno, root, file)
}

func lookupBlock(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	wc, err := p.required("workchain", -1, 0)
	if err != nil {
		return nil, err
	}
	shard, err := p.required("shard", -1<<63, 1<<63-1)
	if err != nil {
		return nil, err
	}
	var l store.BlockLookup
	n := 0
	if v, ok, err := p.integer("seqno", 0, 1<<32-1); err != nil {
		return nil, err
	} else if ok && v != 0 {
		s := uint32(v)
		l.Seqno, n = &s, n+1
	}
	if v, ok, err := p.integer("lt", 0, 1<<63-1); err != nil {
		return nil, err
	} else if ok && v != 0 {
		lt := uint64(v)
		l.Lt, n = &lt, n+1
	}
	if v, ok, err := p.integer("unixtime", 0, 1<<32-1); err != nil {
		return nil, err
	} else if ok && v != 0 {
		u := uint32(v)
		l.Utime, n = &u, n+1
	}
	if n != 1 {
		return nil, apperr.Field("seqno", "give exactly one of seqno, lt, unixtime")
	}
	h, err := historyOf(res)
	if err != nil {
		return nil, err
	}
	b, err := h.LookupBlock(r.Context(), int32(wc), shard, l)
	if err != nil {
		return nil, err
	}
	id := blockID(b.BlockID)
	return withExtra{blockIDExt: id, Extra: reqid.From(r.Context())}, nil
}

func shards(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	seqno, err := p.required("seqno", 0, 1<<32-1)
	if err != nil {
		return nil, err
	}
	h, err := historyOf(res)
	if err != nil {
		return nil, err
	}
	list, err := h.Shards(r.Context(), uint32(seqno))
	if err != nil {
		return nil, err
	}
	out := blocksShards{Type: "blocks.shards", Shards: make([]blockIDExt, len(list)), Extra: reqid.From(r.Context())}
	for i, b := range list {
		out.Shards[i] = blockID(b.BlockID)
	}
	return out, nil
}

// maxBlockTxCount bounds count of getBlockTransactions (tonlib's limit).
const maxBlockTxCount = 256

func blockTransactions(ext bool) rpcMethod {
	return func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		count, ok, err := p.integer("count", 1, maxBlockTxCount)
		if err != nil {
			return nil, err
		}
		if !ok {
			count = 40
		}
		afterLt, err := p.ltParam("after_lt")
		if err != nil {
			return nil, err
		}
		afterHash, err := p.hashParam("after_hash")
		if err != nil {
			return nil, err
		}
		b, err := namedBlock(r, res, p)
		if err != nil {
			return nil, err
		}
		var after *history.AccountTx
		if afterLt != 0 || !afterHash.IsZero() {
			after = &history.AccountTx{Account: afterHash, Lt: afterLt}
		}
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		txs, incomplete, err := h.BlockTransactions(r.Context(), b, after, int(count))
		if err != nil {
			return nil, err
		}
		if ext {
			out := blockTxsExt{Type: "blocks.transactionsExt", ID: blockID(b.BlockID), ReqCount: int(count),
				Incomplete: incomplete, Transactions: make([]rawTransaction, len(txs)), Extra: reqid.From(r.Context())}
			for i, tx := range txs {
				out.Transactions[i] = renderTx(tx, res.Testnet)
			}
			return out, nil
		}
		out := blockTxs{Type: "blocks.transactions", ID: blockID(b.BlockID), ReqCount: int(count),
			Incomplete: incomplete, Transactions: make([]shortTxID, len(txs)), Extra: reqid.From(r.Context())}
		for i, tx := range txs {
			out.Transactions[i] = shortTxID{Type: "blocks.shortTxId", Mode: 135, Account: rawLower(tx.Address),
				Lt: strconv.FormatUint(tx.Lt, 10), Hash: tx.Hash.Base64()}
		}
		return out, nil
	}
}

// locate is tryLocateResultTx (result: the transaction the message caused
// at its destination) or tryLocateSourceTx (the one that sent it).
func locate(result bool) rpcMethod {
	return func(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
		src, err := p.address("source")
		if err != nil {
			return nil, err
		}
		dst, err := p.address("destination")
		if err != nil {
			return nil, err
		}
		createdLt, err := p.required("created_lt", 1, 1<<63-1)
		if err != nil {
			return nil, err
		}
		h, err := historyOf(res)
		if err != nil {
			return nil, err
		}
		var tx *history.Transaction
		if result {
			tx, err = h.ResultTransaction(r.Context(), src, dst, uint64(createdLt))
		} else {
			tx, err = h.SourceTransaction(r.Context(), src, dst, uint64(createdLt))
		}
		if err != nil {
			return nil, err
		}
		out := renderTx(tx, res.Testnet)
		out.Extra = reqid.From(r.Context()) // a transaction alone is the answer
		return out, nil
	}
}

func consensusBlock(r *http.Request, res *resolvers.Resolver, _ params) (any, error) {
	mc, err := res.MasterchainInfo(r.Context())
	if err != nil {
		return nil, err
	}
	return map[string]any{"consensus_block": mc.Last.Seqno, "timestamp": float64(mc.Utime)}, nil
}

func detectAddress(_ *http.Request, res *resolvers.Resolver, p params) (any, error) {
	s, err := p.str("address")
	if err != nil {
		return nil, err
	}
	id, err := p.address("address")
	if err != nil {
		return nil, err
	}
	given := "raw_form"
	if len(s) == 48 {
		// The tag byte: 0x11 bounceable, 0x51 not (0x80 marks test-only).
		given = "friendly_bounceable"
		if b, err := chain.DecodeBase64(s); err == nil && len(b) == 36 && b[0]&0x7f == 0x51 {
			given = "friendly_non_bounceable"
		}
	}
	forms := func(bounce bool) map[string]string {
		url := id.ToHuman(bounce, res.Testnet)
		return map[string]string{"b64": toStdAlphabet(url), "b64url": url}
	}
	return map[string]any{"raw_form": rawLower(id), "bounceable": forms(true), "non_bounceable": forms(false),
		"given_type": given, "test_only": res.Testnet}, nil
}

func packAddress(_ *http.Request, res *resolvers.Resolver, p params) (any, error) {
	id, err := p.address("address")
	if err != nil {
		return nil, err
	}
	return id.ToHuman(true, res.Testnet), nil
}

func unpackAddress(_ *http.Request, _ *resolvers.Resolver, p params) (any, error) {
	id, err := p.address("address")
	if err != nil {
		return nil, err
	}
	return rawLower(id), nil
}

// rawLower is tonlib's raw form: workchain, colon, lower-case hex.
func rawLower(id ton.AccountID) string { return id.ToRaw() }

func toStdAlphabet(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch c {
		case '-':
			b[i] = '+'
		case '_':
			b[i] = '/'
		}
	}
	return string(b)
}

func blockID(b chain.BlockID) blockIDExt {
	return blockIDExt{Type: "ton.blockIdExt", Workchain: b.Workchain, Shard: strconv.FormatInt(b.ShardSigned(), 10),
		Seqno: b.Seqno, RootHash: b.RootHash.Base64(), FileHash: b.FileHash.Base64()}
}

type withExtra struct {
	blockIDExt
	Extra string `json:"@extra"`
}

type blocksShards struct {
	Type   string       `json:"@type"`
	Shards []blockIDExt `json:"shards"`
	Extra  string       `json:"@extra"`
}

type shortTxID struct {
	Type    string `json:"@type"`
	Mode    int    `json:"mode"`
	Account string `json:"account"`
	Lt      string `json:"lt"`
	Hash    string `json:"hash"`
}

type blockTxs struct {
	Type         string      `json:"@type"`
	ID           blockIDExt  `json:"id"`
	ReqCount     int         `json:"req_count"`
	Incomplete   bool        `json:"incomplete"`
	Transactions []shortTxID `json:"transactions"`
	Extra        string      `json:"@extra"`
}

type blockTxsExt struct {
	Type         string           `json:"@type"`
	ID           blockIDExt       `json:"id"`
	ReqCount     int              `json:"req_count"`
	Incomplete   bool             `json:"incomplete"`
	Transactions []rawTransaction `json:"transactions"`
	Extra        string           `json:"@extra"`
}

type blockHeader struct {
	Type                   string       `json:"@type"`
	ID                     blockIDExt   `json:"id"`
	GlobalID               int32        `json:"global_id"`
	Version                uint32       `json:"version"`
	Flags                  uint8        `json:"flags"`
	AfterMerge             bool         `json:"after_merge"`
	AfterSplit             bool         `json:"after_split"`
	BeforeSplit            bool         `json:"before_split"`
	WantMerge              bool         `json:"want_merge"`
	WantSplit              bool         `json:"want_split"`
	ValidatorListHashShort int32        `json:"validator_list_hash_short"`
	CatchainSeqno          uint32       `json:"catchain_seqno"`
	MinRefMcSeqno          uint32       `json:"min_ref_mc_seqno"`
	IsKeyBlock             bool         `json:"is_key_block"`
	PrevKeyBlockSeqno      uint32       `json:"prev_key_block_seqno"`
	StartLt                string       `json:"start_lt"`
	EndLt                  string       `json:"end_lt"`
	GenUtime               uint32       `json:"gen_utime"`
	VertSeqno              uint32       `json:"vert_seqno"`
	PrevBlocks             []blockIDExt `json:"prev_blocks"`
	Extra                  string       `json:"@extra"`
}

func renderHeader(ctx context.Context, b *chain.BlockHeader) blockHeader {
	out := blockHeader{Type: "blocks.header", ID: blockID(b.BlockID), GlobalID: b.GlobalID, Version: b.Version,
		Flags: b.Flags, AfterMerge: b.AfterMerge, AfterSplit: b.AfterSplit, BeforeSplit: b.BeforeSplit,
		WantMerge: b.WantMerge, WantSplit: b.WantSplit, ValidatorListHashShort: int32(b.ValidatorListHashShort),
		CatchainSeqno: b.CatchainSeqno, MinRefMcSeqno: b.MinRefMcSeqno, IsKeyBlock: b.KeyBlock,
		PrevKeyBlockSeqno: b.PrevKeyBlockSeqno, StartLt: strconv.FormatUint(b.StartLt, 10),
		EndLt: strconv.FormatUint(b.EndLt, 10), GenUtime: b.GenUtime, VertSeqno: b.VertSeqno,
		PrevBlocks: make([]blockIDExt, len(b.Prev)), Extra: reqid.From(ctx)}
	for i, p := range b.Prev {
		out.PrevBlocks[i] = blockID(p)
	}
	return out
}

type rawMessage struct {
	Type            string          `json:"@type"`
	Hash            string          `json:"hash"`
	Source          string          `json:"source"`
	Destination     string          `json:"destination"`
	Value           string          `json:"value"`
	ExtraCurrencies []extraCurrency `json:"extra_currencies"`
	FwdFee          string          `json:"fwd_fee"`
	IhrFee          string          `json:"ihr_fee"`
	CreatedLt       string          `json:"created_lt"`
	BodyHash        string          `json:"body_hash"`
	MsgData         msgData         `json:"msg_data"`
	// Message is the comment's text for msg.dataText, "" otherwise (as
	// toncenter adds it beside tonlib's fields).
	Message string `json:"message"`
}

// msgData is tonlib's msg.dataRaw (body and init_state) or, for a text
// comment, msg.dataText (text: the comment's bytes, base64).
type msgData struct {
	Type      string  `json:"@type"`
	Body      *string `json:"body,omitempty"`
	InitState *string `json:"init_state,omitempty"`
	Text      *string `json:"text,omitempty"`
}

// commentText is the text of a body that is a text comment (op 0 and a
// snake of whole bytes), as tonlib recognizes one.
func commentText(body []byte) ([]byte, bool) {
	cells, err := boc.DeserializeBoc(body)
	if err != nil || len(cells) != 1 {
		return nil, false
	}
	c := cells[0]
	if c.BitsAvailableForRead() < 32 {
		return nil, false
	}
	if op, err := c.ReadUint(32); err != nil || op != 0 {
		return nil, false
	}
	var text tlb.Bytes
	if err := tlb.Unmarshal(c, &text); err != nil {
		return nil, false
	}
	return text, true
}

type rawTransaction struct {
	Type          string         `json:"@type"`
	Address       accountAddress `json:"address"`
	Utime         uint32         `json:"utime"`
	Data          string         `json:"data"`
	TransactionID transactionID  `json:"transaction_id"`
	Fee           string         `json:"fee"`
	StorageFee    string         `json:"storage_fee"`
	OtherFee      string         `json:"other_fee"`
	InMsg         *rawMessage    `json:"in_msg,omitempty"`
	OutMsgs       []rawMessage   `json:"out_msgs"`
	Extra         string         `json:"@extra,omitempty"`
}

// renderTx is a transaction as tonlib shows it; @extra is the answer's,
// set by the caller when the transaction is the whole answer.
func renderTx(tx *history.Transaction, testnet bool) rawTransaction {
	out := rawTransaction{Type: "raw.transaction",
		Address: accountAddress{Type: "accountAddress", AccountAddress: tx.Address.ToHuman(true, testnet)},
		Utime:   tx.Utime, Data: b64(tx.BOC),
		TransactionID: transactionID{Type: "internal.transactionId", Lt: strconv.FormatUint(tx.Lt, 10), Hash: tx.Hash.Base64()},
		Fee:           strconv.FormatUint(tx.TotalFees, 10), StorageFee: strconv.FormatUint(tx.StorageFee, 10),
		OtherFee: strconv.FormatUint(tx.TotalFees-min(tx.StorageFee, tx.TotalFees), 10),
		OutMsgs:  make([]rawMessage, len(tx.OutMsgs))}
	if tx.InMsg != nil {
		m := renderMsg(tx.InMsg, testnet)
		out.InMsg = &m
	}
	for i := range tx.OutMsgs {
		out.OutMsgs[i] = renderMsg(&tx.OutMsgs[i], testnet)
	}
	return out
}

func renderMsg(m *chain.Message, testnet bool) rawMessage {
	human := func(raw string) string {
		if raw == "" {
			return ""
		}
		id, err := ton.ParseAccountID(raw)
		if err != nil {
			return raw
		}
		return id.ToHuman(true, testnet)
	}
	body := m.Body
	if len(body) == 0 {
		body = chain.EmptyCellBOC // tonlib shows the empty cell as the body of a message without one
	}
	var bodyHash string
	if h, ok := chain.RootHash(body); ok {
		bodyHash = h.Base64()
	}
	ec := []extraCurrency{}
	for id, amount := range m.ExtraCurrencies {
		ec = append(ec, extraCurrency{Type: "extraCurrency", ID: id, Amount: amount})
	}
	out := rawMessage{Type: "raw.message", Hash: m.Hash.Base64(), Source: human(m.Source), Destination: human(m.Destination),
		Value: strconv.FormatUint(m.Value, 10), ExtraCurrencies: ec, FwdFee: strconv.FormatUint(m.FwdFee, 10),
		IhrFee: strconv.FormatUint(m.IhrFee, 10), CreatedLt: strconv.FormatUint(m.CreatedLt, 10), BodyHash: bodyHash,
		MsgData: rawData(body, m.InitState)}
	if text, ok := commentText(body); ok && len(m.InitState) == 0 {
		t := base64.StdEncoding.EncodeToString(text)
		out.MsgData = msgData{Type: "msg.dataText", Text: &t}
		out.Message = string(text)
	}
	return out
}

func rawData(body, init []byte) msgData {
	b, i := b64(body), b64(init)
	return msgData{Type: "msg.dataRaw", Body: &b, InitState: &i}
}

type configInfo struct {
	Type   string  `json:"@type"`
	Config tvmCell `json:"config"`
	Extra  string  `json:"@extra"`
}

type tvmCell struct {
	Type  string `json:"@type"`
	Bytes string `json:"bytes"`
}

// storedConfig is the newest config the store holds; seqno (a config at
// an older block) is refused like the account calls refuse it.
func storedConfig(r *http.Request, res *resolvers.Resolver, p params) (*chain.ChainConfig, error) {
	if err := p.noSeqno(); err != nil {
		return nil, err
	}
	if res.Store == nil {
		return nil, apperr.New(apperr.Unavailable, "no database: the config is read from the store")
	}
	cfg, err := res.Store.Config(r.Context())
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, apperr.New(apperr.Unavailable, "the store holds no blockchain config yet (import one, or follow the chain)")
	}
	return cfg, nil
}

func getConfigParam(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	id, err := p.required("config_id", 0, 1<<31-1)
	if err != nil {
		return nil, err
	}
	cfg, err := storedConfig(r, res, p)
	if err != nil {
		return nil, err
	}
	param, found, err := chain.ConfigParam(cfg.ConfigBOC, uint32(id))
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, apperr.New(apperr.NotFound, "config param %d is not in the config", id)
	}
	return configInfo{Type: "configInfo", Config: tvmCell{Type: "tvm.cell", Bytes: b64(param)}, Extra: reqid.From(r.Context())}, nil
}

func getConfigAll(r *http.Request, res *resolvers.Resolver, p params) (any, error) {
	cfg, err := storedConfig(r, res, p)
	if err != nil {
		return nil, err
	}
	return configInfo{Type: "configInfo", Config: tvmCell{Type: "tvm.cell", Bytes: b64(cfg.ConfigBOC)}, Extra: reqid.From(r.Context())}, nil
}
