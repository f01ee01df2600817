package walletmsg

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
	"github.com/tonkeeper/tongo/wallet"
)

// TonConnectMessage is one message of a TON Connect sendTransaction
// request, its JSON names (tonconnect.Message converts to it).
type TonConnectMessage struct {
	Address   string `json:"address"`
	Amount    string `json:"amount"`
	Payload   string `json:"payload,omitempty"`
	StateInit string `json:"stateInit,omitempty"`
}

// Sent is one internal message a signed wallet message carries.
type Sent struct {
	Cell *boc.Cell // the message as the wallet sent it
	Mode byte
}

// TonConnectOf writes, as a dApp would, the TON Connect messages of what a
// signed external message (base64 BOC) of a wallet of version ver sent:
// each out message's address (the friendly form carrying its bounce flag),
// amount, payload and stateInit; and the messages as the wallet sent them.
// Tests compare a TON Connect preview with the chain's execution of the
// signed message through it.
func TonConnectOf(message string, ver wallet.Version) ([]TonConnectMessage, []Sent, error) {
	cells, err := boc.DeserializeBocBase64(message)
	if err != nil || len(cells) != 1 {
		return nil, nil, fmt.Errorf("message: %v", err)
	}
	raws, err := wallet.ExtractRawMessages(ver, cells[0])
	if err != nil {
		return nil, nil, err
	}
	return tonConnectOf(raws)
}

// HighloadV3TonConnectOf is TonConnectOf for a highload v3 wallet's signed
// external message (which tongo's wallet package does not read): its one
// message_to_send and send mode.
func HighloadV3TonConnectOf(message string) ([]TonConnectMessage, []Sent, error) {
	cells, err := boc.DeserializeBocBase64(message)
	if err != nil || len(cells) != 1 {
		return nil, nil, fmt.Errorf("message: %v", err)
	}
	var m tlb.Message
	if err := tlb.Unmarshal(cells[0], &m); err != nil {
		return nil, nil, err
	}
	body := boc.Cell(m.Body.Value)
	inner, err := body.NextRef() // signature:bits512 ^MsgInner
	if err != nil {
		return nil, nil, err
	}
	if _, err := inner.ReadUint(32); err != nil { // subwallet_id
		return nil, nil, err
	}
	mode, err := inner.ReadUint(8)
	if err != nil {
		return nil, nil, err
	}
	toSend, err := inner.NextRef()
	if err != nil {
		return nil, nil, err
	}
	return tonConnectOf([]wallet.RawMessage{{Message: toSend, Mode: byte(mode)}})
}

func tonConnectOf(raws []wallet.RawMessage) ([]TonConnectMessage, []Sent, error) {
	var out []TonConnectMessage
	var sent []Sent
	for _, rm := range raws {
		var m tlb.Message
		if err := tlb.Unmarshal(rm.Message, &m); err != nil {
			return nil, nil, err
		}
		rm.Message.ResetCounters()
		sent = append(sent, Sent{Cell: rm.Message, Mode: rm.Mode})
		info := m.Info.IntMsgInfo
		if info == nil {
			return nil, nil, errors.New("not an internal message")
		}
		dest, err := ton.AccountIDFromTlb(info.Dest)
		if err != nil || dest == nil {
			return nil, nil, fmt.Errorf("destination: %v", err)
		}
		tc := TonConnectMessage{Address: dest.ToHuman(info.Bounce, false), Amount: strconv.FormatUint(uint64(info.Value.Grams), 10)}
		if body := boc.Cell(m.Body.Value); body.BitsAvailableForRead() > 0 || body.RefsAvailableForRead() > 0 {
			if tc.Payload, err = body.ToBocBase64(); err != nil {
				return nil, nil, err
			}
		}
		if m.Init.Exists {
			c := boc.NewCell()
			if err := tlb.Marshal(c, m.Init.Value.Value); err != nil {
				return nil, nil, err
			}
			if tc.StateInit, err = c.ToBocBase64(); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, tc)
	}
	return out, sent, nil
}
