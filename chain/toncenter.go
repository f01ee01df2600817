package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"sort"
	"strconv"
)

// ToncenterTrace is one trace file as the toncenter indexer stores it:
// decoded transactions without raw BOCs, plus what the indexer knew about
// the accounts (jetton wallets, NFT items, sales).
type ToncenterTrace struct {
	TraceID      Hash
	Transactions []*Transaction // ordered by lt
	Known        KnownContracts
}

type tcTrace struct {
	Trace *struct {
		TraceID string `json:"trace_id"`
	} `json:"trace"`
	Transactions []tcTx                                `json:"transactions"`
	Interfaces   map[string]map[string]json.RawMessage `json:"interfaces"`
}

type tcTx struct {
	Account         string  `json:"account"`
	Hash            string  `json:"hash"`
	Lt              uint64  `json:"lt"`
	Now             uint32  `json:"now"`
	PrevHash        string  `json:"prev_trans_hash"`
	PrevLt          uint64  `json:"prev_trans_lt"`
	OrigStatus      string  `json:"orig_status"`
	EndStatus       string  `json:"end_status"`
	TotalFees       uint64  `json:"total_fees"`
	Aborted         bool    `json:"aborted"`
	Destroyed       bool    `json:"destroyed"`
	ComputeExitCode *int32  `json:"compute_exit_code"`
	McSeqno         *uint32 `json:"mc_block_seqno"`
	Messages        []tcMsg `json:"messages"`
}

type tcMsg struct {
	Direction   string                 `json:"direction"`
	Hash        string                 `json:"msg_hash"`
	Source      *string                `json:"source"`
	Destination *string                `json:"destination"`
	Value       *uint64                `json:"value"`
	Extra       map[string]json.Number `json:"value_extra_currencies"`
	FwdFee      *uint64                `json:"fwd_fee"`
	IhrFee      *uint64                `json:"ihr_fee"`
	CreatedLt   *uint64                `json:"created_lt"`
	CreatedAt   *uint32                `json:"created_at"`
	Bounce      *bool                  `json:"bounce"`
	Bounced     *bool                  `json:"bounced"`
	Opcode      *int64                 `json:"opcode"`
	Content     *struct {
		Body string `json:"body"`
	} `json:"message_content"`
	InitState *struct {
		Body string `json:"body"`
	} `json:"init_state"`
}

// ParseToncenterFile reads the toncenter trace JSON file at path.
func ParseToncenterFile(path string) (*ToncenterTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseToncenterTrace(f)
}

// ParseToncenterTrace reads one toncenter trace JSON document. The file
// has no action-phase detail: a transaction that was not aborted counts as
// having a successful action phase, which is what aborted means on chain.
func ParseToncenterTrace(r io.Reader) (*ToncenterTrace, error) {
	var raw tcTrace
	dec := json.NewDecoder(r)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("toncenter trace JSON: %w", err)
	}
	if raw.Trace == nil || len(raw.Transactions) == 0 {
		return nil, errors.New("toncenter trace JSON: no trace or no transactions")
	}
	out := &ToncenterTrace{Known: KnownContracts{}}
	var err error
	if out.TraceID, err = ParseHash(raw.Trace.TraceID); err != nil {
		return nil, fmt.Errorf("trace.trace_id: %w", err)
	}
	for i := range raw.Transactions {
		tx, err := raw.Transactions[i].convert()
		if err != nil {
			return nil, fmt.Errorf("transaction %d (%s): %w", i, raw.Transactions[i].Hash, err)
		}
		out.Transactions = append(out.Transactions, tx)
	}
	sort.SliceStable(out.Transactions, func(i, j int) bool { return out.Transactions[i].Lt < out.Transactions[j].Lt })
	for addr, ifaces := range raw.Interfaces {
		if k, ok := knownFromInterfaces(ifaces); ok {
			a, err := NormalizeAddress(addr)
			if err != nil {
				return nil, fmt.Errorf("interfaces %q: %w", addr, err)
			}
			out.Known[a] = k
		}
	}
	return out, nil
}

func (t *tcTx) convert() (*Transaction, error) {
	tx := &Transaction{
		Lt: t.Lt, Utime: t.Now, PrevLt: t.PrevLt,
		OrigStatus: t.OrigStatus, EndStatus: t.EndStatus,
		TotalFees: t.TotalFees, Aborted: t.Aborted, Destroyed: t.Destroyed,
	}
	var err error
	if tx.Account, err = NormalizeAddress(t.Account); err != nil {
		return nil, fmt.Errorf("account: %w", err)
	}
	if tx.Hash, err = ParseHash(t.Hash); err != nil {
		return nil, fmt.Errorf("hash: %w", err)
	}
	if t.PrevHash != "" {
		if tx.PrevHash, err = ParseHash(t.PrevHash); err != nil {
			return nil, fmt.Errorf("prev_trans_hash: %w", err)
		}
	}
	if t.McSeqno != nil {
		tx.McSeqno = *t.McSeqno
	}
	if t.ComputeExitCode == nil {
		tx.ComputeSkipped = true
	} else {
		tx.ComputeExitCode = *t.ComputeExitCode
		tx.ComputeSuccess = tx.ComputeExitCode == 0 || tx.ComputeExitCode == 1
	}
	tx.ActionSuccess = !t.Aborted
	for i := range t.Messages {
		m, err := t.Messages[i].convert()
		if err != nil {
			return nil, fmt.Errorf("message %s: %w", t.Messages[i].Hash, err)
		}
		switch t.Messages[i].Direction {
		case "in":
			if tx.InMsg != nil {
				return nil, errors.New("two in-messages")
			}
			tx.InMsg = &m
			tx.Bounced = tx.Aborted && m.Bounce && !m.IsExternalIn()
		case "out":
			tx.OutMsgs = append(tx.OutMsgs, m)
		default:
			return nil, fmt.Errorf("message %s: direction %q", t.Messages[i].Hash, t.Messages[i].Direction)
		}
	}
	// The file does not keep the out-message index; creation lt follows it.
	sort.SliceStable(tx.OutMsgs, func(i, j int) bool { return tx.OutMsgs[i].CreatedLt < tx.OutMsgs[j].CreatedLt })
	return tx, nil
}

func (m *tcMsg) convert() (Message, error) {
	var msg Message
	var err error
	if msg.Hash, err = ParseHash(m.Hash); err != nil {
		return msg, fmt.Errorf("msg_hash: %w", err)
	}
	if m.Source != nil {
		if msg.Source, err = NormalizeAddress(*m.Source); err != nil {
			return msg, fmt.Errorf("source: %w", err)
		}
	}
	if m.Destination != nil {
		if msg.Destination, err = NormalizeAddress(*m.Destination); err != nil {
			return msg, fmt.Errorf("destination: %w", err)
		}
	}
	msg.Value = deref(m.Value)
	for id, amount := range m.Extra {
		n, err := strconv.ParseUint(id, 10, 32)
		if err != nil {
			return msg, fmt.Errorf("value_extra_currencies: currency id %q", id)
		}
		if msg.ExtraCurrencies == nil {
			msg.ExtraCurrencies = map[uint32]string{}
		}
		msg.ExtraCurrencies[uint32(n)] = amount.String()
	}
	msg.FwdFee = deref(m.FwdFee)
	msg.IhrFee = deref(m.IhrFee)
	msg.CreatedLt = deref(m.CreatedLt)
	msg.CreatedAt = deref(m.CreatedAt)
	msg.Bounce = deref(m.Bounce)
	msg.Bounced = deref(m.Bounced)
	if m.Content != nil && m.Content.Body != "" {
		if msg.Body, err = DecodeBase64(m.Content.Body); err != nil {
			return msg, fmt.Errorf("message_content.body: %w", err)
		}
	}
	if m.Opcode != nil {
		op := uint32(*m.Opcode)
		msg.Opcode = &op
	}
	if msg.IsExternalIn() {
		msg.HashNorm, _ = NormalizedHash(&msg)
	}
	if m.InitState != nil && m.InitState.Body != "" {
		if msg.InitState, err = DecodeBase64(m.InitState.Body); err != nil {
			return msg, fmt.Errorf("init_state.body: %w", err)
		}
	}
	return msg, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// knownFromInterfaces keeps the interface facts the classifier can use:
// the first contract kind it knows, plus the account data when present.
func knownFromInterfaces(ifaces map[string]json.RawMessage) (KnownContract, bool) {
	var v struct {
		Jetton     string         `json:"jetton"`
		Owner      string         `json:"owner"`
		OwnerAddr  string         `json:"owner_address"`
		Collection string         `json:"collection_address"`
		NftAddress string         `json:"nft_address"`
		NftAddr    string         `json:"nft_addr"`
		NftOwner   string         `json:"nft_owner_address"`
		NftOwner2  string         `json:"nft_owner"`
		Market     string         `json:"marketplace_address"`
		MpAddr     string         `json:"mp_addr"`
		FullPrice  uint64         `json:"full_price"`
		LastBid    uint64         `json:"last_bid"`
		Index      json.Number    `json:"index"`
		Content    map[string]any `json:"content"`
		Assets     []struct {
			Address *string `json:"address"`
			IsTon   bool    `json:"is_ton"`
		} `json:"assets"`
		Signers []string `json:"signers"`
	}
	var k KnownContract
	found := false
	if b, ok := ifaces["data_boc"]; ok {
		var d struct {
			DataBOC string `json:"data_boc"`
		}
		if json.Unmarshal(b, &d) == nil && d.DataBOC != "" {
			if boc, err := DecodeBase64(d.DataBOC); err == nil {
				k.DataBOC, found = boc, true
			}
		}
	}
	for _, kind := range []string{KindJettonWallet, KindNftItem, KindNftSale, KindNftAuction, KindDedustPool, KindMultisigOrder} {
		b, ok := ifaces[kind]
		if !ok {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return k, found
		}
		k.Kind = kind
		k.Jetton = normOrEmpty(v.Jetton)
		k.Owner = normOrEmpty(firstNonEmpty(v.Owner, v.OwnerAddr, v.NftOwner, v.NftOwner2))
		k.Collection = normOrEmpty(v.Collection)
		k.Item = normOrEmpty(firstNonEmpty(v.NftAddress, v.NftAddr))
		k.Market = normOrEmpty(firstNonEmpty(v.Market, v.MpAddr))
		k.Price = max(v.FullPrice, v.LastBid)
		if v.Index != "" {
			if n, ok := new(big.Int).SetString(string(v.Index), 10); ok {
				k.Index = n.String()
			}
		}
		for key, val := range v.Content {
			if s, ok := val.(string); ok {
				if k.Content == nil {
					k.Content = map[string]string{}
				}
				k.Content[key] = s
			}
		}
		for _, a := range v.Signers {
			if s := normOrEmpty(a); s != "" {
				k.Signers = append(k.Signers, s)
			}
		}
		for _, a := range v.Assets {
			if a.IsTon || a.Address == nil {
				k.Assets = append(k.Assets, "")
			} else {
				k.Assets = append(k.Assets, normOrEmpty(*a.Address))
			}
		}
		return k, true
	}
	return k, found
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func normOrEmpty(s string) string {
	a, err := NormalizeAddress(s)
	if err != nil {
		return ""
	}
	return a
}
