package chain

import (
	"context"
	"errors"

	"github.com/tonkeeper/tongo/abi"
	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// CodeInterfaces names what a contract is from its code: tongo knows the
// code hashes of wallets, jetton and NFT contracts, DEX pools and vaults,
// staking pools and more (wallet_v4r2, jetton_wallet, dedust_pool, ...).
// Unknown code, and code kept in a library cell, give none.
func CodeInterfaces(code *boc.Cell) []string {
	if code == nil {
		return nil
	}
	raw, err := code.ToBoc()
	if err != nil {
		return nil
	}
	// Known code answers from its hash alone; the executor refuses every get
	// method, so nothing runs.
	desc, err := abi.NewContractInspector().InspectContract(context.Background(), raw, noExecutor{}, ton.AccountID{})
	if err != nil || desc == nil {
		return nil
	}
	out := make([]string, 0, len(desc.ContractInterfaces))
	for _, i := range desc.ContractInterfaces {
		out = append(out, i.String())
	}
	return out
}

type noExecutor struct{}

var errNoExecutor = errors.New("get methods are not run here")

func (noExecutor) RunSmcMethodByID(context.Context, ton.AccountID, int, tlb.VmStack) (uint32, tlb.VmStack, error) {
	return 0, tlb.VmStack{}, errNoExecutor
}

// KindInterface names a contract kind an indexer reported (KnownContract)
// the way CodeInterfaces names interfaces.
func KindInterface(kind string) string {
	switch kind {
	case KindJettonWallet:
		return "jetton_wallet"
	case KindNftItem:
		return "nft_item"
	case KindNftSale:
		return "nft_sale"
	case KindNftAuction:
		return "nft_auction"
	case KindDedustPool:
		return "dedust_pool"
	}
	return ""
}
