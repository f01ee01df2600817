package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"
	"github.com/uptrace/bun/schema"
)

// copyMinRows is the size from which a table's rows go through COPY rather
// than an INSERT ... VALUES. Postgres parses a COPY row about twice as fast
// as the same row as SQL literals, but a COPY costs two extra round trips
// (~0.1 ms each here), which a handful of rows does not earn back.
const copyMinRows = 64

// staged is one table's rows in COPY text format, bound for its staging
// table. The staging table is a temporary table of the session, shaped
// like the target and emptied at every commit; rows reach the target with
// INSERT ... SELECT, which keeps the target's ON CONFLICT rule.
type staged struct {
	table *schema.Table
	data  []byte
}

func stageName(t *schema.Table) string { return "tonql_stage_" + t.Name }

// columns lists the table's columns quoted, in struct order (the order the
// COPY rows are written in).
func columns(t *schema.Table) string {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = string(f.SQLName)
	}
	return strings.Join(names, ", ")
}

// stage encodes rows for COPY and returns the statement that moves them
// from the staging table into the target.
func stage[T any](db bun.IDB, rows []T, on string) (staged, string, error) {
	t := db.Dialect().Tables().Get(reflect.TypeFor[T]())
	s := staged{table: t}
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		for j, f := range t.Fields {
			if j > 0 {
				s.data = append(s.data, '\t')
			}
			var err error
			if s.data, err = appendCopyValue(s.data, f, v); err != nil {
				return staged{}, "", fmt.Errorf("%s.%s: %w", t.Name, f.Name, err)
			}
		}
		s.data = append(s.data, '\n')
	}
	cols := columns(t)
	insert := fmt.Sprintf("INSERT INTO %s AS %s (%s) SELECT %s FROM %s ON %s",
		t.SQLName, t.SQLAlias, cols, cols, stageName(t), on)
	return s, insert, nil
}

// appendCopyValue writes one field in COPY's text format, meaning what
// bun would have written as a literal: nil (or a zero nullzero field) is
// NULL, a byte slice bytea hex.
func appendCopyValue(b []byte, f *schema.Field, strct reflect.Value) ([]byte, error) {
	v := f.Value(strct)
	if f.NullZero && f.HasZeroValue(strct) {
		return append(b, `\N`...), nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return append(b, `\N`...), nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		return appendCopyText(b, v.String()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 't'), nil
		}
		return append(b, 'f'), nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, `\N`...), nil
			}
			b = append(b, `\\x`...)
			return hex.AppendEncode(b, v.Bytes()), nil
		}
	}
	return b, fmt.Errorf("no COPY encoding for %s", v.Type())
}

// appendCopyText escapes the characters COPY's text format gives a meaning.
func appendCopyText(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// sendStaged fills the staging tables and then runs script, the statements
// that read them, behind the last COPY: COPY must open its query string for
// the driver, and whatever follows it rides in the same round trip.
func sendStaged(ctx context.Context, tx bun.Tx, conn bun.Conn, copies []staged, script []byte) error {
	var create bytes.Buffer
	for _, s := range copies {
		// Created once per session (IF NOT EXISTS costs a catalog lookup
		// after that); no indexes or constraints but NOT NULL, so filling
		// them is cheap.
		fmt.Fprintf(&create, "CREATE TEMP TABLE IF NOT EXISTS %s (LIKE %s) ON COMMIT DELETE ROWS;\n",
			stageName(s.table), s.table.SQLName)
	}
	if _, err := tx.Tx.ExecContext(ctx, create.String()); err != nil {
		return fmt.Errorf("staging tables: %w", err)
	}
	for i, s := range copies {
		query := fmt.Sprintf("COPY %s (%s) FROM STDIN", stageName(s.table), columns(s.table))
		if i == len(copies)-1 {
			query += ";\n" + string(script)
		}
		if _, err := pgdriver.CopyFrom(ctx, conn, bytes.NewReader(s.data), query); err != nil {
			return fmt.Errorf("copy %s: %w", s.table.Name, err)
		}
	}
	return nil
}
