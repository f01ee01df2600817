package actions

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"sort"

	"github.com/tonql/tonql/chain"
)

// matcher tries to recognize a pattern that starts at n. It claims the
// nodes it explains (used=true) and records drafts; it reports whether it
// matched. Matchers are registered with addMatcher from the file of their
// protocol, and run in the order of registry.matchers.
type matcher func(c *classifier, n *node) bool

// Classify decodes the actions of one trace. known may be nil; it adds
// facts the trace does not carry (the jetton master of a wallet, the owner
// of a wallet that did not take part).
func Classify(tr *chain.Trace, known chain.KnownContracts) []chain.Action {
	return classify(tr, known, false)
}

// classify runs the matchers. A matcher that trips over a trace shaped as
// it did not expect (chain data is untrusted) is logged and skipped, so the
// trace is still decoded by the others and an import never fails on it;
// strict (tests) lets the panic through.
func classify(tr *chain.Trace, known chain.KnownContracts, strict bool) []chain.Action {
	if tr == nil || tr.Root == nil {
		return nil
	}
	c := &classifier{trace: tr, known: known}
	buildTree(tr.Root, nil, &c.nodes)
	c.runFrom(0, strict)
	matchDeploys(c)
	c.addSteps(strict)
	return c.finish()
}

// runFrom runs the matchers from the i-th on, each over every unclaimed
// node.
func (c *classifier) runFrom(i int, strict bool) {
	for c.cur = i; c.cur < len(registry.matchers); c.cur++ {
		m := registry.matchers[c.cur]
		for _, n := range c.nodes {
			if !n.used {
				c.run(m, n, strict)
			}
		}
	}
}

func (c *classifier) run(m matcherEntry, n *node, strict bool) {
	if !strict {
		defer func() {
			if r := recover(); r != nil {
				slog.Error("actions: matcher failed on a trace; skipped", "matcher", m.name,
					"trace", c.trace.ID.Base64(), "tx", n.tx.Hash.Base64(), "panic", fmt.Sprint(r))
			}
		}()
	}
	m.fn(c, n)
}

type classifier struct {
	trace  *chain.Trace
	known  chain.KnownContracts
	nodes  []*node // pre-order
	drafts []*draft
	// stepsFor is the value type of the action whose steps this run finds
	// (steps.go), nil in the run over the whole trace.
	stepsFor reflect.Type
	// cur is the index of the running matcher in registry.matchers.
	cur int
}

// draft is an action before its ids and ranges are computed.
type draft struct {
	value any // a pointer to a declared value struct; its type is the action's
	ok    bool
	key   chain.Hash // the message the action is about: disambiguates actions over the same transactions
	nodes []*node
	// parent is the action d is a step of, ancestors the types of it and
	// its own ancestors (steps.go); id is d's action id once finished;
	// matcher is the index of the matcher that added it.
	parent    *draft
	ancestors []string
	id        string
	matcher   int
}

func (c *classifier) add(d *draft) {
	if c.stepsFor != nil && reflect.TypeOf(d.value) == c.stepsFor {
		return // the action whose steps are sought, found again
	}
	d.matcher = c.cur
	kept := d.nodes[:0]
	for _, n := range d.nodes {
		if n != nil {
			n.used = true
			kept = append(kept, n)
		}
	}
	d.nodes = kept
	c.drafts = append(c.drafts, d)
}

func newDraft(value any, key chain.Hash, nodes ...*node) *draft {
	d := &draft{value: value, ok: true, key: key}
	for _, n := range nodes {
		if n != nil {
			d.nodes = append(d.nodes, n)
		}
	}
	return d
}

// withInitiator adds the transaction that sent the first message of the
// action when it is the trace root that consumed an external message: the
// user's signed request belongs to what it asked for.
func (d *draft) withInitiator(head *node) *draft {
	if p := head.parent; p != nil && p.parent == nil && p.tx.InMsg != nil && p.tx.InMsg.IsExternalIn() {
		d.nodes = append(d.nodes, p)
	}
	return d
}

func (c *classifier) finish() []chain.Action {
	out := make([]chain.Action, 0, len(c.drafts))
	traceID := c.trace.ID.Base64()
	tf := c.traceFacts()
	for _, d := range c.drafts {
		t, ok := typeOf(d.value)
		if !ok {
			panic(fmt.Sprintf("actions: value %T is not a declared type", d.value))
		}
		typ := t.Name()
		txs := make([]*chain.Transaction, 0, len(d.nodes))
		seen := map[chain.Hash]bool{}
		for _, n := range d.nodes {
			if !seen[n.tx.Hash] {
				seen[n.tx.Hash] = true
				txs = append(txs, n.tx)
			}
		}
		sort.Slice(txs, func(i, j int) bool {
			if txs[i].Lt != txs[j].Lt {
				return txs[i].Lt < txs[j].Lt
			}
			return txs[i].Account < txs[j].Account
		})
		value, err := json.Marshal(d.value)
		if err != nil {
			panic(fmt.Sprintf("actions: %s value not encodable: %v", typ, err))
		}
		a := chain.Action{
			TraceID: traceID, Type: typ, Status: chain.StatusOK, Value: value,
			StartLt: txs[0].Lt, StartUtime: txs[0].Utime, TxHash: txs[0].Hash.Base64(),
			TraceEndLt: c.trace.EndLt, TraceEndUtime: c.trace.EndUtime,
			TraceExternalHashNorm: tf.extHashNorm, TraceExternalHash: tf.extHash, McSeqno: tf.mcSeqno,
		}
		accounts := make([]string, len(txs))
		for i, tx := range txs {
			accounts[i] = tx.Account
		}
		a.Participants, a.Addresses = Participants(d.value, accounts)
		a.Accounts = accountSet(a.Participants)
		if !d.ok {
			a.Status = chain.StatusFailed
		}
		h := sha256.New()
		h.Write(c.trace.ID[:])
		h.Write([]byte(typ))
		h.Write(d.key[:])
		if d.parent != nil {
			// A step may cover the very transactions its parent does.
			h.Write([]byte(d.parent.id))
			a.ParentActionID, a.Ancestors = d.parent.id, d.ancestors
		}
		for _, tx := range txs {
			a.Transactions = append(a.Transactions, tx.Hash.Base64())
			a.TxLts = append(a.TxLts, tx.Lt)
			a.EndLt, a.EndUtime = max(a.EndLt, tx.Lt), max(a.EndUtime, tx.Utime)
			h.Write(tx.Hash[:])
		}
		a.ActionID = base64.StdEncoding.EncodeToString(h.Sum(nil))
		d.id = a.ActionID
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].StartLt != out[j].StartLt {
			return out[i].StartLt < out[j].StartLt
		}
		return out[i].ActionID < out[j].ActionID
	})
	return out
}

// traceFacts are what every action of the trace shares.
type traceFacts struct {
	extHashNorm *string
	extHash     *string // the root message's hash as received
	mcSeqno     *uint32
}

// traceFacts reads the trace's root external message hash and the
// masterchain block the trace ended in: the highest one that committed its
// transactions, known only when every transaction's block is.
func (c *classifier) traceFacts() traceFacts {
	var f traceFacts
	if h, ok := chain.NormalizedHash(c.trace.Root.Tx.InMsg); ok {
		s := h.Base64()
		f.extHashNorm = &s
		raw := c.trace.Root.Tx.InMsg.Hash.Base64()
		f.extHash = &raw
	}
	var seqno uint32
	for _, n := range c.nodes {
		if n.tx.McSeqno == 0 {
			return f
		}
		seqno = max(seqno, n.tx.McSeqno)
	}
	f.mcSeqno = &seqno
	return f
}

// accountSet is the sorted set of participant addresses.
func accountSet(ps []chain.ActionAccount) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Address)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// opKey makes a key for actions that have no message of their own (a
// wallet's intended message that was never sent): the root tx hash plus index.
func opKey(tx *chain.Transaction, i int) chain.Hash {
	var b [36]byte
	copy(b[:], tx.Hash[:])
	binary.BigEndian.PutUint32(b[32:], uint32(i))
	return sha256.Sum256(b[:])
}

// bodyAs returns the decoded in-message body of n as T (abi returns some
// bodies by value and some by pointer).
func bodyAs[T any](n *node) (T, bool) {
	switch v := n.decodedBody().(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}
