package fees

import (
	"fmt"

	"github.com/tonkeeper/tongo/tlb"
)

// Fees is one fee object of the API, in nanotons.
type Fees struct {
	Type       string `json:"@type,omitempty"` // "fees" in v2 answers; v3 shapes leave it out
	InFwdFee   uint64 `json:"in_fwd_fee"`
	StorageFee uint64 `json:"storage_fee"`
	GasFee     uint64 `json:"gas_fee"`
	FwdFee     uint64 `json:"fwd_fee"`
}

// TransactionFees reads the fees a transaction charged, the way an estimate
// reads them from an emulated one (so a test can compare the two).
func TransactionFees(tx *tlb.Transaction) (Fees, error) { return txFees(tx) }

// txFees reads the fees a transaction charged from its phases:
// storage from the storage phase, gas from the compute phase, forwarding of
// outgoing messages from the action phase (plus a bounce's, which is the
// outgoing message of a bounced transaction). The import fee is what remains
// of total_fees, which the chain defines as exactly
// in_fwd_fee + storage + gas + action fees (the sender's share of fwd fees).
func txFees(tx *tlb.Transaction) (Fees, error) {
	f := Fees{Type: "fees"}
	if tx.Description.SumType != "TransOrd" {
		return f, fmt.Errorf("transaction is %s, not ordinary", tx.Description.SumType)
	}
	d := tx.Description.TransOrd
	if d.StoragePh.Exists {
		f.StorageFee = uint64(d.StoragePh.Value.StorageFeesCollected)
	}
	if d.ComputePh.SumType == "TrPhaseComputeVm" {
		f.GasFee = uint64(d.ComputePh.TrPhaseComputeVm.GasFees)
	}
	var actionFees uint64
	if d.Action.Exists {
		a := d.Action.Value.Value
		if a.TotalFwdFees.Exists {
			f.FwdFee = uint64(a.TotalFwdFees.Value)
		}
		if a.TotalActionFees.Exists {
			actionFees = uint64(a.TotalActionFees.Value)
		}
	}
	if d.Bounce.Exists && d.Bounce.Value.SumType == "TrPhaseBounceOk" {
		// msg_fees is the sender's share, already in total_fees; fwd_fees the rest
		b := d.Bounce.Value.TrPhaseBounceOk
		f.FwdFee += uint64(b.MsgFees) + uint64(b.FwdFees)
		actionFees += uint64(b.MsgFees)
	}
	total := uint64(tx.TotalFees.Grams)
	spent := f.StorageFee + f.GasFee + actionFees
	if spent > total {
		return f, fmt.Errorf("phase fees %d exceed total fees %d", spent, total)
	}
	f.InFwdFee = total - spent
	return f, nil
}
