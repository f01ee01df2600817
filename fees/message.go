package fees

import (
	"errors"
	"fmt"

	"github.com/tonkeeper/tongo/boc"
	"github.com/tonkeeper/tongo/tlb"
	"github.com/tonkeeper/tongo/ton"
)

// built is one request turned into chain objects, owned by one estimate.
type built struct {
	msg  tlb.Message
	init *tlb.StateInit // nil when the request has no init_code
}

// buildMessage makes the external message the way tonlib does
// (GenericAccount::create_ext_message): StateInit inline in the root when
// given, body inline when the whole message then fits in one cell, else the
// body by reference. tongo's ton.CreateExternalMessage always uses references,
// which costs an extra cell of import fee the wallet apps do not pay.
func buildMessage(r Request) (*built, error) {
	if r.Message != nil {
		return builtFromMessage(r)
	}
	body, err := r.decode(r.Body)
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	b := &built{}
	if r.InitCode != nil {
		si, err := stateInit(r)
		if err != nil {
			return nil, err
		}
		b.init = &si
	}
	b.msg = externalMessage(r.Account, body, b.init, false)
	if fitsOneCell(b.msg) {
		return b, nil
	}
	b.msg = externalMessage(r.Account, body, b.init, true)
	if !fitsOneCell(b.msg) {
		// StateInit is at most 5 bits and 2 refs inline, so this means the
		// root cannot hold even a body reference: no such message exists.
		return nil, errors.New("message does not fit in a cell even with the body by reference")
	}
	return b, nil
}

func stateInit(r Request) (tlb.StateInit, error) {
	var si tlb.StateInit
	c, err := r.decode(r.InitCode)
	if err != nil {
		return si, fmt.Errorf("init_code: %w", err)
	}
	si.Code = tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *c}}
	if r.InitData != nil {
		d, err := r.decode(r.InitData)
		if err != nil {
			return si, fmt.Errorf("init_data: %w", err)
		}
		si.Data = tlb.Maybe[tlb.Ref[boc.Cell]]{Exists: true, Value: tlb.Ref[boc.Cell]{Value: *d}}
	}
	return si, nil
}

func externalMessage(dst ton.AccountID, body *boc.Cell, init *tlb.StateInit, bodyByRef bool) tlb.Message {
	var m tlb.Message
	m.Info.SumType = "ExtInMsgInfo"
	m.Info.ExtInMsgInfo = &struct {
		Src       tlb.MsgAddress
		Dest      tlb.MsgAddress
		ImportFee tlb.VarUInteger16
	}{Src: tlb.NoneMsgAddress(), Dest: dst.ToMsgAddress()}
	if init != nil {
		m.Init = tlb.Maybe[tlb.EitherRef[tlb.StateInit]]{Exists: true,
			Value: tlb.EitherRef[tlb.StateInit]{IsRight: false, Value: *init}}
	}
	m.Body = tlb.EitherRef[tlb.Any]{IsRight: bodyByRef, Value: tlb.Any(*body)}
	return m
}

// fitsOneCell reports whether the message root can be serialized: tongo's
// builder refuses more than 1023 bits or 4 references in a cell.
func fitsOneCell(m tlb.Message) bool {
	return tlb.Marshal(boc.NewCell(), m) == nil
}

// stateInitAddress is the address a StateInit deploys to in workchain wc.
func stateInitAddress(si tlb.StateInit, wc int32) (ton.AccountID, error) {
	c := boc.NewCell()
	if err := tlb.Marshal(c, si); err != nil {
		return ton.AccountID{}, err
	}
	h, err := c.Hash256()
	if err != nil {
		return ton.AccountID{}, err
	}
	return ton.AccountID{Workchain: wc, Address: h}, nil
}

// ExternalMessage is the request's external message as a BOC, built the
// way tonlib builds it (see buildMessage): what sendQuery sends.
func (r Request) ExternalMessage() ([]byte, error) {
	if r.Message != nil {
		return r.Message, nil
	}
	b, err := buildMessage(r)
	if err != nil {
		return nil, err
	}
	c := boc.NewCell()
	if err := tlb.Marshal(c, b.msg); err != nil {
		return nil, err
	}
	return c.ToBoc()
}
