// Package walletmsg builds estimateFee requests that succeed on an empty
// store: the deploy of a v3R2 wallet (code shipped by tongo) to its fresh
// address, with the embedded chain config. Tests and the load probe use
// it; each subwallet id is another address, so another uncached estimate.
package walletmsg

import (
	"time"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"
)

// DefaultSubwallet is the id wallets use unless told otherwise.
const DefaultSubwallet = 698983191

// Deploy is the JSON body of an estimateFee request deploying a v3R2
// wallet with the given subwallet id and sending 0.1 TON.
func Deploy(subwallet uint32) (string, error) {
	code := wallet.GetCodeByVer(wallet.V3R2)
	data := boc.NewCell()
	_ = data.WriteUint(0, 32)
	_ = data.WriteUint(uint64(subwallet), 32)
	_ = data.WriteBytes(make([]byte, 32))
	si := tlb.StateInit{
		Code: tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *code}},
		Data: tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *data}},
	}
	siCell := boc.NewCell()
	if err := tlb.Marshal(siCell, si); err != nil {
		return "", err
	}
	hash, err := siCell.Hash256()
	if err != nil {
		return "", err
	}
	addr := ton.AccountID{Workchain: 0, Address: hash}
	internal, mode, err := wallet.SimpleTransfer{Amount: 100_000_000, Address: ton.AccountID{Address: [32]byte{1}}}.ToInternal()
	if err != nil {
		return "", err
	}
	ic := boc.NewCell()
	if err := tlb.Marshal(ic, internal); err != nil {
		return "", err
	}
	body := boc.NewCell()
	_ = body.WriteBytes(make([]byte, 64))
	_ = body.WriteUint(uint64(subwallet), 32)
	_ = body.WriteUint(uint64(time.Now().Add(time.Hour).Unix()), 32)
	_ = body.WriteUint(0, 32)
	_ = body.WriteUint(uint64(mode), 8)
	_ = body.AddRef(ic)
	var out [3]string
	for i, c := range []*boc.Cell{body, code, data} {
		if out[i], err = c.ToBocBase64(); err != nil {
			return "", err
		}
	}
	return `{"address":"` + addr.ToRaw() + `","body":"` + out[0] + `","init_code":"` + out[1] + `","init_data":"` + out[2] + `"}`, nil
}
