package resolvers

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/accountinfo"
	"github.com/tonql/tonql/apperr"
	"github.com/tonql/tonql/chain"
	"github.com/tonql/tonql/fees"
	"github.com/tonql/tonql/getmethod"
	"github.com/tonql/tonql/lite"
)

// The JSON-RPC calls a wallet makes around estimateFee (getAddressInformation,
// getWalletInformation, runGetMethod, getMasterchainInfo, sendBoc, ...),
// answered from the estimator's state source: the store, or lite servers
// when configured, preferring the fresher state.

// Block is a masterchain block as far as the server knows it: hashes are
// empty when it knows the block by number only (an imported snapshot).
type Block struct {
	Seqno    uint32
	RootHash []byte
	FileHash []byte
}

// Masterchain is getMasterchainInfo's answer.
type Masterchain struct {
	Last          Block
	StateRootHash []byte // empty unless a lite server answered
	Init          Block  // the network's zero state
	Utime         uint32 // chain time of the newest data (store), 0 from a lite server
}

// Account is one account as the account calls show it.
type Account struct {
	ID    ton.AccountID
	Info  *accountinfo.Info
	Block Block // the newest masterchain block known
}

// ParseAccount reads the address parameter of the toncenter calls.
func ParseAccount(address string) (ton.AccountID, error) {
	if address == "" {
		return ton.AccountID{}, apperr.Field("address", "required")
	}
	if len(address) > 100 {
		return ton.AccountID{}, apperr.Field("address", "too long to be an address")
	}
	id, err := chain.ParseAddress(strings.TrimSpace(address))
	if err != nil {
		return ton.AccountID{}, apperr.Field("address", "%v", err)
	}
	if id.Workchain != 0 && id.Workchain != -1 {
		return ton.AccountID{}, apperr.Field("address", "workchain %d does not exist (only 0 and -1)", id.Workchain)
	}
	return id, nil
}

// AccountState answers getAddressInformation and its relatives. An
// account the server has no state of is a NotFound error saying so (and
// how to get one), unless its last stored transaction left it
// nonexistent: accountInfo.
func (r *Resolver) AccountState(ctx context.Context, address string) (*Account, error) {
	id, err := ParseAccount(address)
	if err != nil {
		return nil, err
	}
	if r.Fees == nil {
		return nil, errNoFees
	}
	st, err := r.Fees.State(ctx, chain.RawAddress(id))
	if err != nil {
		return nil, err
	}
	info, err := r.accountInfo(ctx, id, st)
	if err != nil {
		return nil, err
	}
	mc, err := r.MasterchainInfo(ctx)
	if err != nil {
		return nil, err
	}
	return &Account{ID: id, Info: info, Block: mc.Last}, nil
}

// GetMethodResult is runGetMethod's answer.
type GetMethodResult struct {
	*getmethod.Result
	Account *Account
}

// RunGetMethod runs a get method on the account's current state.
func (r *Resolver) RunGetMethod(ctx context.Context, address string, m getmethod.Method, stack tlb.VmStack) (*GetMethodResult, error) {
	id, err := ParseAccount(address)
	if err != nil {
		return nil, err
	}
	run := r.getMethods()
	if run == nil {
		return nil, errNoFees
	}
	res, err := run.Run(ctx, id, m, stack)
	if err != nil {
		return nil, err
	}
	info, err := r.accountInfo(ctx, id, res.State)
	if err != nil {
		return nil, err
	}
	mc, err := r.MasterchainInfo(ctx)
	if err != nil {
		return nil, err
	}
	return &GetMethodResult{Result: res, Account: &Account{ID: id, Info: info, Block: mc.Last}}, nil
}

// headCache keeps the newest masterchain block for a second: every account
// call shows it, and the store or a lite server need not answer each.
type headCache struct {
	mu   sync.Mutex
	at   time.Time
	info Masterchain
}

const headMaxAge = time.Second

// MasterchainInfo answers getMasterchainInfo: from a lite server when one
// is configured (falling back to the store when none answers), else from
// the store's newest data.
func (r *Resolver) MasterchainInfo(ctx context.Context) (Masterchain, error) {
	r.head.mu.Lock()
	if !r.head.at.IsZero() && time.Since(r.head.at) < headMaxAge {
		info := r.head.info
		r.head.mu.Unlock()
		return info, nil
	}
	r.head.mu.Unlock()
	info, err := r.masterchainInfo(ctx)
	if err != nil {
		return info, err
	}
	r.head.mu.Lock()
	r.head.at, r.head.info = time.Now(), info
	r.head.mu.Unlock()
	return info, nil
}

func (r *Resolver) masterchainInfo(ctx context.Context) (Masterchain, error) {
	info := Masterchain{Init: zeroState(r.Testnet)}
	if r.Lite != nil {
		li, err := r.Lite.MasterchainInfo(ctx)
		if err == nil {
			info.Last = Block{Seqno: li.Last.Seqno, RootHash: li.Last.RootHash[:], FileHash: li.Last.FileHash[:]}
			info.StateRootHash = li.StateRootHash[:]
			info.Init.RootHash, info.Init.FileHash = li.InitRootHash[:], li.InitFileHash[:]
			return info, nil
		}
		if ctx.Err() != nil {
			return info, apperr.Wrap(apperr.Timeout, err, "request timed out")
		}
	}
	if r.Store == nil {
		return info, apperr.New(apperr.Unavailable, "no database and no lite server to ask")
	}
	h, err := r.Store.Head(ctx)
	if err != nil {
		return info, err
	}
	info.Last.Seqno, info.Utime = h.McSeqno, h.Utime
	// The block store names the newest stored masterchain block fully
	// (its hashes), when it is at least as new as the newest data says.
	last, err := r.Store.LastMasterBlock(ctx)
	if err != nil {
		return info, err
	}
	if last != nil && last.Seqno >= info.Last.Seqno {
		info.Last = Block{Seqno: last.Seqno, RootHash: last.RootHash[:], FileHash: last.FileHash[:]}
		info.Utime = max(info.Utime, last.GenUtime)
	}
	return info, nil
}

// zeroState is the masterchain zero state of the network: the facts of its
// global config ("init" of getMasterchainInfo).
func zeroState(testnet bool) Block {
	if testnet {
		return Block{RootHash: b64("gj+B8wb/AmlPk1z1AhVI484rhrUpgSr2oSFIh56VoSg="), FileHash: b64("Z+IKwYS54DmmJmesw/nAD5DzWadnOCMzee+kdgSYDOg=")}
	}
	return Block{RootHash: b64("F6OpKZKqvqeFp6CQmFomXNMfMj2EnaUSOXN+Mh+wVWk="), FileHash: b64("XplPz01CXAps5qeSWUtxcyBfdAo5zVb1N979KLSKD24=")}
}

func b64(s string) []byte {
	b, _ := chain.DecodeBase64(s)
	return b
}

// Sent is sendBocReturnHash's answer.
type Sent struct {
	Hash     chain.Hash
	HashNorm chain.Hash // TEP-467 normalized hash
}

// SendBoc checks an external message and hands it to a lite server.
func (r *Resolver) SendBoc(ctx context.Context, boc string) (*Sent, error) {
	if boc == "" {
		return nil, apperr.Field("boc", "required (base64 of a BOC)")
	}
	req, err := fees.ParseParams(fees.Params{Boc: boc})
	if err != nil {
		return nil, err
	}
	hash, norm, err := req.MessageHashes()
	if err != nil {
		return nil, apperr.Field("boc", "%v", err)
	}
	if r.Lite == nil {
		return nil, apperr.New(apperr.Unavailable,
			"this server sends no messages: no lite server is configured (set LITE_SERVERS or LITE_SERVERS_CONFIG); the message was not sent")
	}
	if err := r.Lite.SendMessage(ctx, req.Message); err != nil {
		if lite.IsAnswer(err) {
			return nil, apperr.Wrap(apperr.NotAccepted, err, "the lite server refused the message: "+apperr.Excerpt(answerText(err)))
		}
		if ctx.Err() != nil {
			return nil, apperr.Wrap(apperr.Timeout, err, "request timed out")
		}
		return nil, apperr.Wrap(apperr.Unavailable, err, "lite servers are unavailable; the message was not sent")
	}
	r.announcePending(boc, hash, norm)
	return &Sent{Hash: hash, HashNorm: norm}, nil
}

func answerText(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// accountInfo reads an account's state; without one, what its last stored
// transaction says (accountinfo.Resolve), or an error saying the server
// holds no state of it.
func (r *Resolver) accountInfo(ctx context.Context, id ton.AccountID, st *chain.AccountState) (*accountinfo.Info, error) {
	raw := chain.RawAddress(id)
	var last *chain.Transaction
	if (st == nil || len(st.ShardAccountBOC) == 0) && r.Store != nil {
		var err error
		if last, err = r.Store.LastTransaction(ctx, raw); err != nil {
			return nil, err
		}
	}
	info, err := accountinfo.Resolve(raw, st, last)
	if err != nil {
		if apperr.From(err).Kind == apperr.NotFound {
			return nil, err
		}
		return nil, apperr.Wrap(apperr.Internal, err, "internal error")
	}
	return info, nil
}
