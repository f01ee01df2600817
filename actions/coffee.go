package actions

import (
	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/tlb"
)

// swap.coffee's own actions besides swaps and liquidity deposits: creating a
// vault or a pool (coffee.go), holding funds for a MEV-protected swap
// (coffee_mev.go), and staking (coffee_staking.go). Op codes and layouts are
// those of tongo's abi (schemas/swap_coffee.xml) and of toncenter's indexer
// (events/blocks/messages/coffee.py); the patterns are the ones toncenter
// recognizes (events/blocks/liquidity.py, staking.py), so an action exists
// where toncenter reports one.

// Op codes tongo's abi lacks (or decodes as another protocol's message).
const (
	// TEP-89 provide_wallet_address / take_wallet_address: a new jetton
	// vault asks the jetton master for its wallet.
	opProvideWalletAddress abi.MsgOpCode = 0x2c76b973
	opTakeWalletAddress    abi.MsgOpCode = 0xd1735400
)

// CoffeeCreateVault: a swap.coffee vault created for an asset.
type CoffeeCreateVault struct {
	Sender      Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who asked the factory for the vault"`
	Factory     Address `json:"factory,omitempty" role:"contract" doc:"the swap.coffee factory that deployed the vault"`
	Vault       Address `json:"vault,omitempty" role:"contract" tc:"vault" doc:"the new vault"`
	Asset       Address `json:"asset,omitempty" role:"master" tc:"asset" doc:"the vault's asset (jetton master); absent for TON or an extra currency"`
	Amount      BigInt  `json:"amount,omitempty" tc:"value" doc:"nanotons sent with the request (they pay the deployment)"`
	QueryID     BigInt  `json:"query_id,omitempty" doc:"query id of create_vault"`
	VaultWallet Address `json:"vault_wallet,omitempty" doc:"the vault's jetton wallet, as the jetton master answered (take_wallet_address)"`
}

// CoffeeCreatePoolCreator: one asset sent to create a swap.coffee pool. A
// pool is created from both of its assets; each reaches its vault, which
// asks the factory to deploy (or complete) the sender's pool creator
// contract. The branch whose asset completes the creator is a
// CoffeeCreatePool instead.
type CoffeeCreatePoolCreator struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the asset"`
	SenderWallet        Address `json:"sender_wallet,omitempty" role:"source" tc:"source_jetton_wallet" doc:"the sender's jetton wallet; absent for TON"`
	Vault               Address `json:"vault,omitempty" role:"contract" doc:"the swap.coffee vault that took the asset"`
	PoolCreatorContract Address `json:"pool_creator_contract,omitempty" role:"contract" tc:"pool_creator_contract" doc:"the pool creator contract that collects both assets"`
	DepositRecipient    Address `json:"deposit_recipient,omitempty" role:"recipient" tc:"deposit_recipient" doc:"who is to receive the LP jettons (the pool creation parameters' recipient)"`
	ProvidedAsset       Address `json:"provided_asset,omitempty" role:"master" tc:"asset_1" doc:"the asset sent (jetton master); absent for TON or when unknown"`
	Amount              BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount of the asset sent"`
	PoolAsset1          Address `json:"pool_asset_1,omitempty" role:"master" tc:"asset_2" doc:"the pool's first asset (jetton master); absent for TON"`
	PoolAsset2          Address `json:"pool_asset_2,omitempty" role:"master" doc:"the pool's second asset (jetton master); absent for TON"`
	Amm                 Text    `json:"amm,omitempty" doc:"the pool's curve: constant_product or curve_fi_stable"`
	QueryID             BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

// CoffeeCreatePool: the asset that completed a pool creator, and the pool
// it created.
type CoffeeCreatePool struct {
	Sender              Address `json:"sender,omitempty" role:"sender" tc:"source" doc:"who sent the asset that completed the pool creator"`
	SenderWallet        Address `json:"sender_wallet,omitempty" role:"source" tc:"source_jetton_wallet" doc:"the sender's jetton wallet; absent for TON"`
	Vault               Address `json:"vault,omitempty" role:"contract" doc:"the swap.coffee vault that took the asset"`
	PoolCreatorContract Address `json:"pool_creator_contract,omitempty" role:"contract" tc:"pool_creator_contract" doc:"the pool creator contract that collected both assets"`
	Pool                Address `json:"pool,omitempty" role:"contract" tc:"pool" doc:"the new pool (also the LP jetton master)"`
	ProvidedAsset       Address `json:"provided_asset,omitempty" role:"master" tc:"provided_asset" doc:"the asset this branch sent (jetton master); absent for TON or when unknown"`
	Amount              BigInt  `json:"amount,omitempty" tc:"amount" doc:"amount of the asset this branch sent"`
	Asset1              Address `json:"asset_1,omitempty" role:"master" tc:"asset_1" doc:"the asset sent, when known, else the pool's first asset (jetton master); absent for TON"`
	Amount1             BigInt  `json:"amount_1,omitempty" tc:"amount_1" doc:"amount of asset_1 the pool was created with"`
	Asset2              Address `json:"asset_2,omitempty" role:"master" tc:"asset_2" doc:"the pool's other asset (jetton master); absent for TON"`
	Amount2             BigInt  `json:"amount_2,omitempty" tc:"amount_2" doc:"amount of asset_2 the pool was created with"`
	Initiator1          Address `json:"initiator_1,omitempty" role:"sender" tc:"initiator_1" doc:"who sent the pool's first asset"`
	Initiator2          Address `json:"initiator_2,omitempty" role:"sender" tc:"initiator_2" doc:"who sent the pool's second asset"`
	LpAmount            BigInt  `json:"lp_amount,omitempty" tc:"lp_tokens_minted" doc:"LP jettons the pool minted"`
	DepositRecipient    Address `json:"deposit_recipient,omitempty" role:"recipient" doc:"who received the LP jettons (the pool creation parameters' recipient)"`
	LpWallet            Address `json:"lp_wallet,omitempty" role:"destination" doc:"the recipient's LP jetton wallet"`
	Amm                 Text    `json:"amm,omitempty" doc:"the pool's curve: constant_product or curve_fi_stable"`
	QueryID             BigInt  `json:"query_id,omitempty" doc:"query id of the request"`
}

func init() {
	declare(
		Type{Value: CoffeeCreateVault{}, Title: "swap.coffee vault created", Describe: describeAs(func(v *CoffeeCreateVault, w *Words) string {
			return "Created the swap.coffee vault " + w.Account(v.Vault) + " of " + w.AssetName(v.Asset)
		}),
			Toncenter: "coffee_create_vault", Protocols: "swap.coffee",
			Doc:    "create_vault (0xc0ffee06) at the factory, which deploys the vault (deploy 0xc0ffee22); a jetton vault then asks the jetton master for its wallet (TEP-89).",
			Failed: "the factory or the new vault failed"},
		Type{Value: CoffeeCreatePoolCreator{}, Title: "swap.coffee pool request", Describe: describeAs(func(v *CoffeeCreatePoolCreator, w *Words) string {
			return "Sent " + w.Asset(v.ProvidedAsset, v.Amount) + " to create a swap.coffee pool of " + w.AssetName(v.PoolAsset1) + " and " + w.AssetName(v.PoolAsset2)
		}),
			Toncenter: "coffee_create_pool_creator", Protocols: "swap.coffee",
			Doc:     "An asset sent to a vault to create a pool (TON with create_pool 0xc0ffee02, a jetton whose notification carries create_pool 0xc0ffee11); the vault's create_pool_creator_request (0xc0ffee23) makes the factory deploy the sender's pool creator (deploy 0xc0ffee22). One action per asset; the branch that completes the creator is a CoffeeCreatePool, and this its step (as toncenter nests it).",
			Failed:  "a step from the asset's transfer to the pool creator's deploy failed (the jettons bounced, or the vault, the factory or the pool creator failed)",
			Differs: "toncenter's details put the asset sent in asset_1 and the pool's first asset in asset_2 (here provided_asset and pool_asset_1)."},
		Type{Value: CoffeeCreatePool{}, Title: "swap.coffee pool created", Describe: describeAs(func(v *CoffeeCreatePool, w *Words) string {
			return "Created the swap.coffee pool " + w.Account(v.Pool) + " of " + w.AssetName(v.Asset1) + " and " + w.AssetName(v.Asset2) +
				" with " + w.and(if1(v.Amount1 != "", w.Asset(v.Asset1, v.Amount1)), if1(v.Amount2 != "", w.Asset(v.Asset2, v.Amount2)))
		}),
			Toncenter: "coffee_create_pool", Protocols: "swap.coffee",
			Doc:    "The pool creator branch whose asset completed it: the creator sends create_pool_request (0xc0ffee25) to the factory, which deploys the pool; the pool mints LP jettons to the recipient and logs deposit_liquidity_successful_event (0xc0ffee33).",
			Failed: "a step from the asset's transfer to the pool's deploy failed, or the pool minted no LP jettons"},
	)
	addMatcher(OrderProtocol+30, "CoffeeCreatePool", matchCoffeeCreatePool)
	addMatcher(OrderProtocol+31, "CoffeeCreateVault", matchCoffeeCreateVault)
}

// matchCoffeeCreateVault anchors at create_vault at the factory; the vault
// the factory deploys is required (as toncenter requires it).
func matchCoffeeCreateVault(c *classifier, n *node) bool {
	if !n.is(abi.CoffeeCreateVaultMsgOpCode) {
		return false
	}
	body, ok := bodyAs[abi.CoffeeCreateVaultMsgBody](n)
	if !ok {
		return false
	}
	deploy := n.child(abi.CoffeeDeployMsgOpCode)
	if deploy == nil {
		return false
	}
	v := &CoffeeCreateVault{Sender: Address(n.in().Source), Factory: Address(n.tx.Account),
		Vault: Address(deploy.tx.Account), Asset: Address(coffeeAsset(body.Asset)),
		Amount: nano(n.in().Value), QueryID: nano(body.QueryId)}
	d := newDraft(v, n.in().Hash, n, deploy).withInitiator(n)
	d.ok = n.ok() && deploy.ok()
	if ask := deploy.child(opProvideWalletAddress); ask != nil {
		d.nodes = append(d.nodes, ask)
		if take := ask.child(opTakeWalletAddress); take != nil {
			d.nodes = append(d.nodes, take)
			var b struct {
				Op      uint32
				QueryID uint64
				Wallet  tlb.MsgAddress
			}
			if take.decode(&b) {
				v.VaultWallet = Address(addr(b.Wallet))
			}
		}
	}
	c.add(d)
	return true
}

// coffeeIn is the asset a user sent into a Coffee vault: TON with a request
// the vault reads, or a jetton transfer whose notification reaches the vault.
type coffeeIn struct {
	vault        *node
	leg          *jettonLeg // nil for TON
	asset        string     // jetton master, "" for TON or unknown
	known        bool       // asset is known (TON, or a known master)
	sender       string
	senderWallet string
	amount       BigInt
	nodes        []*node
}

// coffeeInput reads the asset that reached vault: TON when the vault's
// message has one of the native ops, else the jetton leg that notified it.
// pair helps when the jetton's master is unknown: a pair with one jetton
// names it.
func (c *classifier) coffeeInput(vault *node, pair abi.CoffeePoolParams, nativeOps ...abi.MsgOpCode) (coffeeIn, bool) {
	in := coffeeIn{vault: vault, nodes: []*node{vault}}
	switch {
	case vault.is(nativeOps...):
		in.sender, in.known = vault.in().Source, true
	case vault.is(abi.JettonNotifyMsgOpCode):
		if recv := vault.parent; recv != nil && recv.parent != nil {
			if l, ok := c.followTransfer(recv.parent); ok && l.notify == vault && !recv.parent.used {
				in.leg = l
				in.sender, in.senderWallet, in.amount = l.owner, l.sourceWallet, l.amount
				in.asset = l.master
				in.nodes = l.nodes()
			}
		}
		if in.asset == "" {
			in.asset = c.masterOf(vault.in().Source)
		}
		if in.asset == "" {
			a, b := coffeeAsset(pair.First), coffeeAsset(pair.Second)
			if (a == "") != (b == "") && pair.First.SumType != "Extra" && pair.Second.SumType != "Extra" {
				in.asset = a + b
			}
		}
		in.known = in.asset != ""
	default:
		return in, false
	}
	return in, true
}

// ok reports whether the asset reached the vault and the vault accepted it.
func (in coffeeIn) ok() bool {
	if in.leg != nil && !in.leg.ok {
		return false
	}
	return in.vault.ok()
}

// matchCoffeeCreatePool anchors at the vault's create_pool_creator_request
// to the factory. The factory's deploy of the pool creator is required (as
// toncenter requires it). When the creator, complete, asks the factory for
// the pool (create_pool_request) and the pool was deployed and minted, the
// branch is a CoffeeCreatePool, else a CoffeeCreatePoolCreator.
func matchCoffeeCreatePool(c *classifier, r *node) bool {
	if !r.is(abi.CoffeeCreatePoolCreatorRequestMsgOpCode) || r.parent == nil || r.parent.in() == nil {
		return false
	}
	body, ok := bodyAs[abi.CoffeeCreatePoolCreatorRequestMsgBody](r)
	if !ok {
		return false
	}
	deploy := r.child(abi.CoffeeDeployMsgOpCode)
	if deploy == nil {
		return false
	}
	pair := body.Params
	in, ok := c.coffeeInput(r.parent, pair, abi.CoffeeCreatePoolMsgOpCode)
	if !ok {
		return false
	}
	sender := addr(body.Sender)
	if sender == "" {
		sender = in.sender
	}
	amt := nano(uint64(body.Amount))
	if in.amount != "" {
		amt = in.amount
	}
	head := in.nodes[0]
	branchOK := in.ok() && r.ok() && deploy.ok()
	recipient := addr(body.CreationParams.Public.Recipient)

	cv := &CoffeeCreatePoolCreator{Sender: Address(sender), SenderWallet: Address(in.senderWallet),
		Vault: Address(in.vault.tx.Account), PoolCreatorContract: Address(deploy.tx.Account),
		DepositRecipient: Address(recipient), Amount: amt,
		PoolAsset1: Address(coffeeAsset(pair.First)), PoolAsset2: Address(coffeeAsset(pair.Second)),
		Amm: Text(coffeeAmm(pair.Amm)), QueryID: nano(body.QueryId)}
	if in.known {
		cv.ProvidedAsset = Address(in.asset)
	}
	cd := newDraft(cv, head.in().Hash, in.nodes...)
	cd.withInitiator(head)
	cd.ok = branchOK
	if v, d := c.coffeePool(deploy, in, pair, sender, amt); d != nil {
		v.SenderWallet, v.Vault = Address(in.senderWallet), Address(in.vault.tx.Account)
		v.PoolCreatorContract, v.DepositRecipient = Address(deploy.tx.Account), Address(recipient)
		v.QueryID = nano(body.QueryId)
		d.nodes = append(d.nodes, in.nodes...)
		d.claimSubtree(r)
		d.withInitiator(head)
		d.ok = d.ok && branchOK
		// The creator's part of the branch (the asset in, the request, the
		// creator's deploy) is the pool's step, as toncenter nests it.
		cd.nodes = append(cd.nodes, r, deploy)
		c.addWithSteps(d, cd)
		return true
	}
	cd.claimSubtree(r)
	c.add(cd)
	return true
}

// coffeePool reads the pool the completed creator created: create_pool_request
// from the creator to the factory, the factory's deploy of the pool, and
// what the pool did (its success event, the LP mint). It returns a nil
// draft when the creator did not ask for the pool or the pool did not
// answer; the branch is then only a creator step, as toncenter reports it.
func (c *classifier) coffeePool(creator *node, in coffeeIn, pair abi.CoffeePoolParams, sender string, amt BigInt) (*CoffeeCreatePool, *draft) {
	req := creator.child(abi.CoffeeCreatePoolRequestMsgOpCode)
	if req == nil {
		return nil, nil
	}
	rb, ok := bodyAs[abi.CoffeeCreatePoolRequestMsgBody](req)
	if !ok {
		return nil, nil
	}
	pool := req.child(abi.CoffeeDeployMsgOpCode)
	if pool == nil {
		return nil, nil
	}
	lp := pool.child(abi.JettonInternalTransferMsgOpCode)
	minted, hasEvent := coffeeDepositEvent(pool)
	if !hasEvent && lp == nil {
		return nil, nil
	}
	first, second := coffeeAsset(pair.First), coffeeAsset(pair.Second)
	v := &CoffeeCreatePool{Sender: Address(sender), Pool: Address(pool.tx.Account), Amount: amt, Amm: Text(coffeeAmm(pair.Amm))}
	if in.known {
		v.ProvidedAsset = Address(in.asset)
	}
	a1, a2 := nano(uint64(rb.Amount1)), nano(uint64(rb.Amount2))
	init1, init2 := sender, addr(rb.TxInitiator)
	switch {
	case in.known && in.asset == first:
		v.Asset1, v.Asset2 = Address(first), Address(second)
		v.Amount1, v.Amount2 = a1, a2
	case in.known && in.asset == second:
		// The asset sent is the pool's second: asset_1 stays the asset
		// sent, and the request's amounts (in pool order) swap with it.
		v.Asset1, v.Asset2 = Address(second), Address(first)
		v.Amount1, v.Amount2 = a2, a1
		init1, init2 = init2, init1
	default:
		v.Asset1, v.Asset2 = Address(first), Address(second)
		v.Amount1, v.Amount2 = a1, a2
	}
	v.Initiator1, v.Initiator2 = Address(init1), Address(init2)
	if hasEvent {
		v.LpAmount = minted
	}
	if lp != nil {
		if _, amt, ok := internalTransferHead(lp); ok && v.LpAmount == "" {
			v.LpAmount = amt
		}
		v.LpWallet = Address(lp.tx.Account)
	}
	d := newDraft(v, in.nodes[0].in().Hash)
	d.ok = req.ok() && pool.ok() && lp != nil && lp.ok()
	return v, d
}

// coffeeDepositEvent reads the LP amount of the deposit_liquidity_successful_event
// (0xc0ffee33) a pool logs (an external message).
func coffeeDepositEvent(pool *node) (BigInt, bool) {
	for _, m := range pool.tx.OutMsgs {
		if m.Destination != "" || m.Opcode == nil || *m.Opcode != uint32(abi.CoffeeDepositLiquiditySucceededExtOutMsgOpCode) {
			continue
		}
		var b struct {
			Op       uint32
			QueryID  uint64
			Amount1  tlb.Grams
			Amount2  tlb.Grams
			LpAmount tlb.Grams
		}
		if decodePrefix(m.Body, &b) {
			return nano(uint64(b.LpAmount)), true
		}
	}
	return "", false
}

// coffeeAmm names a pool's curve.
func coffeeAmm(a abi.CoffeeAMM) string {
	switch a.SumType {
	case "ConstantProduct":
		return "constant_product"
	case "CurveFiStable":
		return "curve_fi_stable"
	}
	return ""
}
