package store

import (
	"database/sql"
	"fmt"
	"reflect"

	"github.com/uptrace/bun"
)

// Rows read in bulk (a traces page's transactions and messages, tens to
// hundreds a request) are scanned into typed targets rather than through
// bun's model: bun looks each value's column up by name and sets its field
// by reflection, a tenth of a traces page's CPU at 10M actions
// (docs/PERFORMANCE.md, nineteenth session). A row type lists a target for
// each of its columns (fields); scanFields pairs them with the result's
// columns once per statement, by the address of the field bun maps each
// column to, so the list's order is free and a column the row type does
// not list is an error rather than a value in the wrong field.

// fielded is a pointer to a row type that lists a scan target for each of
// its columns: a pointer to the field, or one of the scanners below
// holding it.
type fielded[T any] interface {
	*T
	fields() []any
}

// scanFields reads rows into out, in place of what it held (as bun's
// Scan does: a read retried on another connection starts afresh), and
// closes them. The result's columns may be any of the row type's, in any
// order.
func scanFields[T any, P fielded[T]](db *bun.DB, rows *sql.Rows, out *[]T) error {
	defer rows.Close()
	*out = (*out)[:0]
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	var r T
	targets := P(&r).fields()
	row := reflect.ValueOf(&r).Elem()
	table := db.Table(row.Type())
	dest := make([]any, len(cols))
	for i, c := range cols {
		f, err := table.Field(c)
		if err != nil {
			return err
		}
		at := row.FieldByIndex(f.Index).Addr().Pointer()
		for _, t := range targets {
			if targetAddr(t) == at {
				dest[i] = t
				break
			}
		}
		if dest[i] == nil {
			return fmt.Errorf("store: %s lists no scan target for column %q", table.TypeName, c)
		}
	}
	for rows.Next() {
		var zero T
		r = zero // a column left out of the statement reads as its zero value
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		*out = append(*out, r)
	}
	return rows.Err()
}

// targetAddr is the address of the field a scan target writes.
func targetAddr(t any) uintptr {
	v := reflect.ValueOf(t)
	if v.Kind() == reflect.Struct { // num, optNum, nullText: the field's pointer
		v = v.Field(0)
	}
	return v.Pointer()
}

// nullString and nullInt scan a column, NULL as the zero value, without
// database/sql's reflection (nullInt as num does, for a variable of its own).
type (
	nullString string
	nullInt    int64
)

func (s *nullString) Scan(v any) error {
	switch v := v.(type) {
	case string:
		*s = nullString(v)
	case []byte:
		*s = nullString(v)
	case nil:
		*s = ""
	default:
		return fmt.Errorf("cannot scan %T into a string", v)
	}
	return nil
}

func (n *nullInt) Scan(v any) error { return num[nullInt]{n}.Scan(v) }

// num scans an integer column into an integer field of any width, NULL as
// 0; optNum and nullText keep NULL as nil. database/sql hands the driver's
// value straight to a Scanner, where a plain pointer of another width or a
// pointer field takes its reflection path.
type (
	num[T ~int | ~int32 | ~int64]    struct{ p *T }
	optNum[T ~int | ~int32 | ~int64] struct{ p **T }
	nullText                         struct{ p **string }
)

func (n num[T]) Scan(v any) error {
	switch v := v.(type) {
	case int64:
		*n.p = T(v)
	case nil:
		*n.p = 0
	default:
		return fmt.Errorf("cannot scan %T into an integer", v)
	}
	return nil
}

func (n optNum[T]) Scan(v any) error {
	switch v := v.(type) {
	case int64:
		x := T(v)
		*n.p = &x
	case nil:
		*n.p = nil
	default:
		return fmt.Errorf("cannot scan %T into an integer", v)
	}
	return nil
}

func (o nullText) Scan(v any) error {
	var s string
	switch v := v.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	case nil:
		*o.p = nil
		return nil
	default:
		return fmt.Errorf("cannot scan %T into a string", v)
	}
	*o.p = &s
	return nil
}

func (r *txRow) fields() []any {
	return []any{(*nullString)(&r.Hash), (*nullString)(&r.Account), num[int64]{&r.Lt}, num[int64]{&r.Utime},
		(*nullString)(&r.TraceID), (*nullString)(&r.OrigStatus), (*nullString)(&r.EndStatus),
		num[int64]{&r.TotalFees}, &r.Success, &r.Aborted, num[int32]{&r.ComputeExitCode},
		(*nullString)(&r.InMsgHash), num[int64]{&r.McSeqno}, &r.BOC, optNum[int32]{&r.BlockWorkchain},
		optNum[int64]{&r.BlockShard}, optNum[int64]{&r.BlockSeqno}, nullText{&r.Facts}, optNum[int64]{&r.Seq}}
}

func (r *msgRow) fields() []any {
	return []any{(*nullString)(&r.TxHash), (*nullString)(&r.Direction), num[int]{&r.Seq}, (*nullString)(&r.Hash),
		(*nullString)(&r.Source), (*nullString)(&r.Destination), num[int64]{&r.Value}, num[int64]{&r.FwdFee},
		num[int64]{&r.CreatedLt}, optNum[int64]{&r.Opcode}, &r.Bounce, &r.Bounced, &r.Body, &r.InitState,
		nullText{&r.HashNorm}, nullText{&r.BodyHash}, optNum[int64]{&r.CreatedAt}, nullText{&r.Facts}}
}
