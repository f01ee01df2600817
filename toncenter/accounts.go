package toncenter

import (
	"encoding/base64"
	"strconv"

	"github.com/tonql/tonql/accountinfo"
)

// AddressInformation is toncenter v3's V2AddressInformation
// (/api/v3/addressInformation and /api/v3/account).
type AddressInformation struct {
	Balance             string  `json:"balance"`
	Code                *string `json:"code"`
	Data                *string `json:"data"`
	LastTransactionLt   *string `json:"last_transaction_lt"`
	LastTransactionHash *string `json:"last_transaction_hash"`
	FrozenHash          *string `json:"frozen_hash"`
	Status              string  `json:"status"`
}

// WalletInformation is toncenter v3's V2WalletInformation
// (/api/v3/walletInformation and /api/v3/wallet).
type WalletInformation struct {
	Balance             string  `json:"balance"`
	WalletType          *string `json:"wallet_type,omitempty"`
	Seqno               *int64  `json:"seqno,omitempty"`
	WalletID            *int64  `json:"wallet_id,omitempty"`
	LastTransactionLt   string  `json:"last_transaction_lt"`
	LastTransactionHash string  `json:"last_transaction_hash"`
	Status              string  `json:"status"`
}

func b64ptr(b []byte) *string {
	if len(b) == 0 {
		return nil
	}
	return ptr(base64.StdEncoding.EncodeToString(b))
}

// RenderAddressInformation renders a decoded account state. An account
// the store knows nothing of shows as toncenter shows one that does not
// exist: uninit, balance 0, no last transaction.
func RenderAddressInformation(i *accountinfo.Info) *AddressInformation {
	out := &AddressInformation{Balance: u64(i.Balance), Code: b64ptr(i.Code), Data: b64ptr(i.Data),
		FrozenHash: b64ptr(i.FrozenHash), Status: status(i.Status)}
	// An account never seen shows lt 0 and the zero hash, as toncenter.
	out.LastTransactionLt = ptr(u64(i.LastTxLt))
	out.LastTransactionHash = ptr(i.LastTxHash.Base64())
	return out
}

// RenderWalletInformation renders a decoded account state as a wallet:
// type, seqno and wallet id when the code is a wallet this server knows.
// Another account is answered without them (toncenter's use_v2 answer;
// its default answers 409).
func RenderWalletInformation(i *accountinfo.Info) *WalletInformation {
	out := &WalletInformation{Balance: u64(i.Balance), LastTransactionLt: strconv.FormatUint(i.LastTxLt, 10),
		LastTransactionHash: i.LastTxHash.Base64(), Status: status(i.Status)}
	if w := i.Wallet; w != nil {
		out.WalletType, out.Seqno, out.WalletID = ptr(w.Type), w.Seqno, w.WalletID
	}
	return out
}

// status names an account state as toncenter v3 does (tonlib's
// "uninitialized" is "uninit").
func status(s string) string {
	if s == accountinfo.StateUninitialized {
		return "uninit"
	}
	return s
}
