package actions

import (
	"encoding/hex"
	"math/big"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"

	"github.com/tonql/tonql/chain"
)

// tgBTC, the Bitcoin bridge of TON (teleport). Its contracts announce what
// they did in external out-messages ("logs"); the op codes and layouts of
// the logs and of the messages around them are those toncenter's indexer
// reads (indexer/events/blocks/tgbtc.py, messages/tgbtc.py).
const (
	tgbtcLogMint         = 0x77a80ef3 // mint amount:Coins recipient:MsgAddress bitcoin_txid:uint256
	tgbtcLogBurn         = 0xca444ce6 // burn amount:Coins sender:MsgAddress pegout:MsgAddress
	tgbtcLogNewKey       = 0x27756729 // new key amount:Coins new_internal_pubkey:uint256 pegout:MsgAddress
	tgbtcLogDkgCompleted = 0x453443a6 // dkg_completed timestamp:uint64 internal_pubkey:uint256

	tgbtcOpMintStart    = 0x3f781d24 // the first message of a mint: a Bitcoin deposit proof
	tgbtcOpMintTail     = 0xe42a879b // the last step, at the teleport contract, before the jetton mint
	tgbtcOpNewKey       = 0x690f357a // the teleport contract to the coordinator: a new key
	tgbtcOpBurnTeleport = 0x587643a2 // a jetton master's burn report to the teleport contract (other form)
	tgbtcOpPegout       = 0xbe44e7a6 // the teleport contract to a pegout contract
	tgbtcOpPegoutDone   = 0x1a84c0e0 // the pegout contract's report
)

// tgbtcMaxAncestors bounds the walk from a mint's last step up to its
// first message (the proof checks in between are a chain of calls).
const tgbtcMaxAncestors = 20

// TgbtcMint: tgBTC was minted for a Bitcoin deposit.
type TgbtcMint struct {
	Sender          Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the first message of the mint (the deposit proof)"`
	Recipient       Address `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who received the tgBTC, as the teleport contract logged it"`
	RecipientWallet Address `json:"recipient_wallet,omitempty" role:"destination" tc:"destination_wallet" doc:"the recipient's tgBTC jetton wallet"`
	JettonMaster    Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the tgBTC jetton master that minted"`
	Teleport        Address `json:"teleport,omitempty" role:"contract" doc:"the teleport contract that logged the mint"`
	Amount          BigInt  `json:"amount,omitempty" tc:"amount" doc:"tgBTC minted, in satoshi, as logged"`
	BitcoinTxID     Text    `json:"bitcoin_tx_id,omitempty" tc:"bitcoin_tx_id" doc:"the Bitcoin deposit transaction id (hex, Bitcoin's byte order)"`
	NotCredited     *bool   `json:"not_credited,omitempty" doc:"true when the master's mint or the recipient's wallet failed: nobody holds the logged tgBTC (the JettonMint step is failed)"`
}

// TgbtcMintFallback: a teleport contract logged a tgBTC mint, but the rest
// of the mint is not in the trace.
type TgbtcMintFallback struct {
	Teleport    Address `json:"teleport,omitempty" role:"contract" tc:"source" doc:"the teleport contract that logged the mint"`
	Recipient   Address `json:"recipient,omitempty" role:"recipient" tc:"destination" doc:"who receives the tgBTC, as logged"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"tgBTC minted, in satoshi, as logged"`
	BitcoinTxID Text    `json:"bitcoin_tx_id,omitempty" tc:"bitcoin_tx_id" doc:"the Bitcoin deposit transaction id (hex, Bitcoin's byte order)"`
}

// TgbtcBurn: tgBTC was burnt to be paid out in Bitcoin (a peg-out).
type TgbtcBurn struct {
	Sender       Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"owner of the burnt tgBTC"`
	SenderWallet Address `json:"sender_wallet,omitempty" role:"source" tc:"source_wallet" doc:"the owner's tgBTC jetton wallet"`
	Pegout       Address `json:"pegout,omitempty" role:"destination" tc:"destination" doc:"the peg-out address as logged (a Bitcoin address encoded as a TON address, shown without anycast rewriting as toncenter shows it)"`
	JettonMaster Address `json:"jetton_master,omitempty" role:"master" tc:"asset" doc:"the tgBTC jetton master"`
	Teleport     Address `json:"teleport,omitempty" role:"contract" doc:"the contract that logged the burn"`
	Amount       BigInt  `json:"amount,omitempty" tc:"amount" doc:"tgBTC burnt, in satoshi: the smaller of the burn and the logged amount"`
}

// TgbtcBurnFallback: a contract logged a tgBTC burn, but the jetton burn
// behind it is not in the trace.
type TgbtcBurnFallback struct {
	Sender   Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"owner of the burnt tgBTC, as logged"`
	Pegout   Address `json:"pegout,omitempty" role:"destination" tc:"destination" doc:"the peg-out address as logged (no anycast rewriting)"`
	Teleport Address `json:"teleport,omitempty" role:"contract" doc:"the contract that logged the burn"`
	Amount   BigInt  `json:"amount,omitempty" tc:"amount" doc:"tgBTC burnt, in satoshi, as logged"`
}

// TgbtcNewKey: the bridge's signers completed a key generation and the
// coordinator took the new key.
type TgbtcNewKey struct {
	Teleport    Address `json:"teleport,omitempty" role:"sender" tc:"source" doc:"the contract that logged the completed key generation and sent the key"`
	Coordinator Address `json:"coordinator,omitempty" role:"contract" tc:"coordinator" doc:"the coordinator contract that logged the new key"`
	Pegout      Address `json:"pegout,omitempty" role:"destination" tc:"pegout" doc:"the pegout contract the coordinator logged"`
	Pubkey      Text    `json:"pubkey,omitempty" tc:"pubkey" doc:"the new internal public key, hex"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"the amount the coordinator logged with the key"`
	Timestamp   int64   `json:"timestamp,omitempty" doc:"unix time of the completed key generation, as logged"`
}

// TgbtcNewKeyFallback: a coordinator logged a new key, without the key
// generation log before it.
type TgbtcNewKeyFallback struct {
	Coordinator Address `json:"coordinator,omitempty" role:"contract" tc:"coordinator" doc:"the coordinator contract that logged the new key"`
	Pegout      Address `json:"pegout,omitempty" role:"destination" tc:"pegout" doc:"the pegout contract logged"`
	Pubkey      Text    `json:"pubkey,omitempty" tc:"pubkey" doc:"the new internal public key, hex"`
	Amount      BigInt  `json:"amount,omitempty" tc:"amount" doc:"the amount logged with the key"`
}

// TgbtcDkgLogFallback: a contract logged a completed key generation that
// no new key followed in the trace.
type TgbtcDkgLogFallback struct {
	Coordinator Address `json:"coordinator,omitempty" role:"contract" tc:"coordinator" doc:"the contract that logged it"`
	Pubkey      Text    `json:"pubkey,omitempty" tc:"pubkey" doc:"the internal public key, hex"`
	Timestamp   int64   `json:"timestamp,omitempty" tc:"timestamp" doc:"unix time of the key generation, as logged"`
}

func init() {
	declare(
		Type{Value: TgbtcMint{}, Title: "tgBTC mint", Describe: describeAs(func(v *TgbtcMint, w *Words) string {
			return "Minted " + w.Jetton(v.JettonMaster, v.Amount) + " to " + w.Account(v.Recipient) + w.btcTx(v.BitcoinTxID)
		}),
			Toncenter: "tgbtc_mint", Protocols: "tgBTC bridge",
			Doc:    "From the deposit proof (0x3f781d24) through the teleport contract's checks to its last step (0xe42a879b), which logs the mint (external 0x77a80ef3) and has the tgBTC master mint to the recipient's wallet.",
			Failed: "never, as toncenter has it: the teleport logged the mint; when the master or the recipient's wallet then failed, `not_credited` says so and the JettonMint step is failed"},
		Type{Value: TgbtcMintFallback{}, Title: "tgBTC mint refused", Describe: describeAs(func(v *TgbtcMintFallback, w *Words) string {
			return "Could not mint " + v.Amount.or("an amount") + " tgBTC units to " + w.Account(v.Recipient) + w.btcTx(v.BitcoinTxID)
		}),
			Toncenter: "tgbtc_mint_fallback", Protocols: "tgBTC bridge",
			Doc:    "A mint log (external 0x77a80ef3) whose chain of messages is not in the trace; reported beside whatever explains the logging transaction.",
			Failed: "never"},
		Type{Value: TgbtcBurn{}, Title: "tgBTC peg-out", Describe: describeAs(func(v *TgbtcBurn, w *Words) string {
			return "Burned " + w.Jetton(v.JettonMaster, v.Amount) + " to withdraw to Bitcoin"
		}),
			Toncenter: "tgbtc_burn", Protocols: "tgBTC bridge",
			Doc:    "burn (0x595f07bc) at the owner's tgBTC wallet, burn_notification at the master, which reports to the teleport contract (0x7bdd97de or 0x587643a2); that logs the burn (external 0xca444ce6) and starts the peg-out (0xbe44e7a6).",
			Failed: "the wallet or the master failed"},
		Type{Value: TgbtcBurnFallback{}, Title: "tgBTC peg-out refused", Describe: describeAs(func(v *TgbtcBurnFallback, w *Words) string {
			return "Returned " + v.Amount.or("an amount of") + " tgBTC units to " + w.Account(v.Sender) + " after a refused peg-out"
		}),
			Toncenter: "tgbtc_burn_fallback", Protocols: "tgBTC bridge",
			Doc:    "A burn log (external 0xca444ce6) without a jetton burn before it; reported beside whatever explains the logging transaction.",
			Failed: "never"},
		Type{Value: TgbtcNewKey{}, Title: "tgBTC key rotation", Describe: describeAs(func(v *TgbtcNewKey, w *Words) string {
			return "Switched tgBTC to a new key, moving " + v.Amount.or("an amount of") + " satoshi to peg-out " + w.Account(v.Pegout)
		}),
			Toncenter: "tgbtc_new_key", Protocols: "tgBTC bridge",
			Doc:    "A transaction that logs a completed key generation (external 0x453443a6) sends the key (0x690f357a) to the coordinator, which logs it (external 0x27756729) and updates the pegout contract (0xbe44e7a6).",
			Failed: "never"},
		Type{Value: TgbtcNewKeyFallback{}, Title: "tgBTC key rotation refused", Describe: describeAs(func(v *TgbtcNewKeyFallback, w *Words) string {
			return "Refused a tgBTC key switch of " + v.Amount.or("an amount of") + " satoshi at peg-out " + w.Account(v.Pegout)
		}),
			Toncenter: "tgbtc_new_key_fallback", Protocols: "tgBTC bridge",
			Doc:    "A new-key log (external 0x27756729) without the key generation log before it; reported beside whatever explains the logging transaction.",
			Failed: "never"},
		Type{Value: TgbtcDkgLogFallback{}, Title: "tgBTC key log refused", Describe: describeAs(func(v *TgbtcDkgLogFallback, w *Words) string {
			return "Refused a tgBTC key log by coordinator " + w.Account(v.Coordinator)
		}),
			Toncenter: "tgbtc_dkg_log_fallback", Protocols: "tgBTC bridge",
			Doc:    "A completed key generation log (external 0x453443a6) that no new key followed; reported beside whatever explains the logging transaction.",
			Failed: "never"},
	)
	addMatcher(OrderProtocol+70, "TgbtcMint", matchTgbtcMint)
	addMatcher(OrderProtocol+71, "TgbtcBurn", matchTgbtcBurn)
	addMatcher(OrderProtocol+72, "TgbtcNewKey", matchTgbtcNewKey)
	addMatcher(OrderFallback-10, "tgBTC logs", matchTgbtcLogs)
}

// tgbtcExtLog is the first external out-message of n's transaction with the op.
func tgbtcExtLog(n *node, op uint32) *chain.Message {
	if n == nil {
		return nil
	}
	for i := range n.tx.OutMsgs {
		m := &n.tx.OutMsgs[i]
		if m.Destination == "" && m.Opcode != nil && *m.Opcode == op {
			return m
		}
	}
	return nil
}

// tgbtcStdAddr is an addr_std as written, without applying an anycast rewrite
// (the bridge encodes Bitcoin addresses that way; toncenter shows the raw
// bits); "" for anything else.
func tgbtcStdAddr(a tlb.MsgAddress) string {
	if a.SumType != "AddrStd" {
		return ""
	}
	return chain.RawAddress(ton.AccountID{Workchain: int32(a.AddrStd.WorkchainId), Address: a.AddrStd.Address})
}

// tgbtcHex writes a 256-bit number as toncenter does: hex without leading zeros.
func tgbtcHex(b tlb.Bits256) string { return new(big.Int).SetBytes(b[:]).Text(16) }

type tgbtcMintLog struct {
	Op        uint32
	Amount    tlb.VarUInteger16
	Recipient tlb.MsgAddress
	TxID      tlb.Bits256
}

// txid is the Bitcoin transaction id: the logged number's bytes in
// little-endian order, as Bitcoin shows ids.
func (l tgbtcMintLog) txid() string {
	b := l.TxID
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return hex.EncodeToString(b[:])
}

type tgbtcBurnLog struct {
	Op     uint32
	Amount tlb.VarUInteger16
	Sender tlb.MsgAddress
	Pegout tlb.MsgAddress
}

// readBurnLog reads a burn log; old logs lack the addresses, or the
// peg-out address only (the sender is kept then, as toncenter keeps it).
func readBurnLog(body []byte) (tgbtcBurnLog, bool) {
	var l tgbtcBurnLog
	if decodePrefix(body, &l) {
		return l, true
	}
	var withSender struct {
		Op     uint32
		Amount tlb.VarUInteger16
		Sender tlb.MsgAddress
	}
	if decodePrefix(body, &withSender) {
		return tgbtcBurnLog{Op: withSender.Op, Amount: withSender.Amount, Sender: withSender.Sender}, true
	}
	var head struct {
		Op     uint32
		Amount tlb.VarUInteger16
	}
	if !decodePrefix(body, &head) {
		return l, false
	}
	return tgbtcBurnLog{Op: head.Op, Amount: head.Amount}, true
}

type tgbtcNewKeyLog struct {
	Op     uint32
	Amount tlb.VarUInteger16
	Pubkey tlb.Bits256
	Pegout tlb.MsgAddress
}

type tgbtcDkgLog struct {
	Op        uint32
	Timestamp uint64
	Pubkey    tlb.Bits256
}

// matchTgbtcMint anchors at the teleport contract's last step, which logs
// the mint and asks the tgBTC master to mint.
func matchTgbtcMint(c *classifier, n *node) bool {
	if !n.is(tgbtcOpMintTail) {
		return false
	}
	logMsg := tgbtcExtLog(n, tgbtcLogMint)
	if logMsg == nil {
		return false
	}
	var lg tgbtcMintLog
	if !decodePrefix(logMsg.Body, &lg) {
		return false
	}
	// The master's mint: a child that sends internal_transfer to a wallet,
	// else (the master failed) the child the teleport asked with a standard
	// mint request, as toncenter's jetton_mint takes it.
	var master, wallet *node
	for _, ch := range n.children {
		if ch.used {
			continue
		}
		if w := ch.child(abi.JettonInternalTransferMsgOpCode); w != nil {
			master, wallet = ch, w
			break
		}
		if master == nil && ch.is(abi.JettonMintMsgOpCode, mintOpLegacy) {
			master = ch
		}
	}
	if master == nil {
		return false
	}
	// Up to the first message of the mint, with the calls on the way.
	var head *node
	var path []*node
	for a, i := n.parent, 0; a != nil && i < tgbtcMaxAncestors; a, i = a.parent, i+1 {
		path = append(path, a)
		if a.is(tgbtcOpMintStart) {
			head = a
			break
		}
	}
	if head == nil || head.used {
		return false
	}
	v := &TgbtcMint{Sender: Address(head.in().Source), Recipient: Address(addr(lg.Recipient)),
		JettonMaster: Address(master.tx.Account), Teleport: Address(n.tx.Account), Amount: amount(lg.Amount),
		BitcoinTxID: Text(lg.txid())}
	d := newDraft(v, head.in().Hash, n, master)
	if wallet != nil {
		v.RecipientWallet = Address(wallet.tx.Account)
		d.nodes = append(d.nodes, wallet)
		for _, ch := range []*node{wallet.child(abi.JettonNotifyMsgOpCode), wallet.child(abi.ExcessMsgOpCode)} {
			if ch != nil {
				d.nodes = append(d.nodes, ch)
			}
		}
	}
	if wallet == nil || !wallet.ok() || !master.ok() {
		v.NotCredited = flag(true)
	}
	onPath := map[*node]bool{n: true}
	for _, a := range path {
		onPath[a] = true
	}
	for _, a := range path {
		if a.used {
			continue
		}
		d.nodes = append(d.nodes, a)
		for _, ch := range a.children {
			if !ch.used && !onPath[ch] {
				d.nodes = append(d.nodes, ch)
			}
		}
	}
	d.nodes = append(d.nodes, evaaChange(n)...)
	d.withInitiator(head)
	// toncenter's rule: the teleport logged the mint, so the bridge minted;
	// whether anyone holds the tokens is not_credited and the step's status.
	d.ok = true
	c.add(d)
	return true
}

// tgbtcPegout adds the teleport contract's peg-out step below n and the
// pegout contract's report and change.
func tgbtcPegout(n *node, d *draft) {
	for _, p := range n.children {
		if p.used || !p.is(tgbtcOpPegout) {
			continue
		}
		d.nodes = append(d.nodes, p)
		for _, ch := range p.children {
			if !ch.used && (ch.is(tgbtcOpPegoutDone) || ch.hasOp && ch.op == uint32(abi.ExcessMsgOpCode) || !ch.hasOp) && !ch.in().Bounced {
				d.nodes = append(d.nodes, ch)
			}
		}
	}
}

// matchTgbtcBurn anchors at the burn request to the owner's tgBTC wallet
// whose master reports the burn to a contract that logs it.
func matchTgbtcBurn(c *classifier, n *node) bool {
	if !n.is(abi.JettonBurnMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.JettonBurnMsgBody](n)
	if !ok {
		return false
	}
	notify := n.child(abi.JettonBurnNotificationMsgOpCode)
	if notify == nil {
		return false
	}
	var tele *node
	var lg tgbtcBurnLog
	for _, ch := range notify.children {
		if ch.used || !ch.is(abi.JettonBurnNotificationMsgOpCode, tgbtcOpBurnTeleport) {
			continue
		}
		if m := tgbtcExtLog(ch, tgbtcLogBurn); m != nil {
			if l, ok := readBurnLog(m.Body); ok {
				tele, lg = ch, l
				break
			}
		}
	}
	if tele == nil {
		return false
	}
	burnt := amount(body.Amount)
	logged := big.Int(lg.Amount)
	if b := big.Int(body.Amount); b.Sign() > 0 && b.Cmp(&logged) > 0 || b.Sign() == 0 {
		burnt = amount(lg.Amount)
	}
	v := &TgbtcBurn{Sender: Address(n.in().Source), SenderWallet: Address(n.tx.Account),
		Pegout: Address(tgbtcStdAddr(lg.Pegout)), JettonMaster: Address(notify.tx.Account),
		Teleport: Address(tele.tx.Account), Amount: burnt}
	d := newDraft(v, n.in().Hash, n, notify, tele).withInitiator(n)
	d.nodes = append(d.nodes, evaaChange(notify)...)
	d.nodes = append(d.nodes, evaaChange(tele)...)
	tgbtcPegout(tele, d)
	d.ok = n.ok() && notify.ok()
	c.add(d)
	return true
}

// matchTgbtcNewKey anchors at the key sent to the coordinator (0x690f357a)
// by a transaction that logged the completed key generation.
func matchTgbtcNewKey(c *classifier, n *node) bool {
	if !n.is(tgbtcOpNewKey) || n.parent == nil || n.parent.used {
		return false
	}
	keyMsg, dkgMsg := tgbtcExtLog(n, tgbtcLogNewKey), tgbtcExtLog(n.parent, tgbtcLogDkgCompleted)
	if keyMsg == nil || dkgMsg == nil {
		return false
	}
	var key tgbtcNewKeyLog
	var dkg tgbtcDkgLog
	if !decodePrefix(keyMsg.Body, &key) || !decodePrefix(dkgMsg.Body, &dkg) {
		return false
	}
	v := &TgbtcNewKey{Teleport: Address(n.parent.tx.Account), Coordinator: Address(n.tx.Account),
		Pegout: Address(tgbtcStdAddr(key.Pegout)), Pubkey: Text(tgbtcHex(key.Pubkey)), Amount: amount(key.Amount),
		Timestamp: int64(dkg.Timestamp)}
	d := newDraft(v, n.in().Hash, n.parent, n)
	d.nodes = append(d.nodes, evaaChange(n)...)
	tgbtcPegout(n, d)
	c.add(d)
	return true
}

// matchTgbtcLogs reports the logs that no pattern explained, beside the
// action that explains the logging transaction (it does not claim it).
// A log is never a step: inside a tgBTC action the pattern explained it.
func matchTgbtcLogs(c *classifier, n *node) bool {
	if c.stepsFor != nil {
		return false
	}
	found := false
	for i := range n.tx.OutMsgs {
		m := &n.tx.OutMsgs[i]
		if m.Destination != "" || m.Opcode == nil {
			continue
		}
		var v any
		switch *m.Opcode {
		case tgbtcLogMint:
			var lg tgbtcMintLog
			if !decodePrefix(m.Body, &lg) {
				continue
			}
			v = &TgbtcMintFallback{Teleport: Address(n.tx.Account), Recipient: Address(addr(lg.Recipient)),
				Amount: amount(lg.Amount), BitcoinTxID: Text(lg.txid())}
		case tgbtcLogBurn:
			lg, ok := readBurnLog(m.Body)
			if !ok {
				continue
			}
			v = &TgbtcBurnFallback{Sender: Address(addr(lg.Sender)), Pegout: Address(tgbtcStdAddr(lg.Pegout)),
				Teleport: Address(n.tx.Account), Amount: amount(lg.Amount)}
		case tgbtcLogNewKey:
			var lg tgbtcNewKeyLog
			if !decodePrefix(m.Body, &lg) {
				continue
			}
			v = &TgbtcNewKeyFallback{Coordinator: Address(n.tx.Account), Pegout: Address(tgbtcStdAddr(lg.Pegout)),
				Pubkey: Text(tgbtcHex(lg.Pubkey)), Amount: amount(lg.Amount)}
		case tgbtcLogDkgCompleted:
			var lg tgbtcDkgLog
			if !decodePrefix(m.Body, &lg) {
				continue
			}
			v = &TgbtcDkgLogFallback{Coordinator: Address(n.tx.Account), Pubkey: Text(tgbtcHex(lg.Pubkey)),
				Timestamp: int64(lg.Timestamp)}
		default:
			continue
		}
		c.drafts = append(c.drafts, newDraft(v, m.Hash, n))
		found = true
	}
	return found
}
