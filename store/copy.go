package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"reflect"
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

// staged is one table's rows in COPY's binary format, bound for its
// staging table: a temporary table of the session, emptied at every
// commit, from which INSERT ... SELECT moves the rows into the target under
// the target's ON CONFLICT rule. Binary rather than text spares both sides
// the hex of the BOCs, most of the bytes.
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

// copyHeader opens binary COPY data: signature, flags, no extension.
var copyHeader = []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")

// copyNull is the length -1 that stands for NULL.
var copyNull = []byte{0xff, 0xff, 0xff, 0xff}

// stage encodes rows for COPY and returns the statement that moves them
// from the staging table into the target.
func stage[T any](db bun.IDB, rows []T, on string) (staged, string, error) {
	s, err := encodeRows(db, rows)
	if err != nil {
		return staged{}, "", err
	}
	cols := columns(s.table)
	insert := fmt.Sprintf("INSERT INTO %s AS %s (%s) SELECT %s FROM %s ON %s",
		s.table.SQLName, s.table.SQLAlias, cols, cols, stageName(s.table), on)
	return s, insert, nil
}

// encodeRows writes rows as binary COPY data of their table, columns in
// struct order.
func encodeRows[T any](db bun.IDB, rows []T) (staged, error) {
	t := db.Dialect().Tables().Get(reflect.TypeFor[T]())
	data := append([]byte(nil), copyHeader...)
	for i := range rows {
		v := reflect.ValueOf(&rows[i]).Elem()
		data = binary.BigEndian.AppendUint16(data, uint16(len(t.Fields)))
		for _, f := range t.Fields {
			var err error
			if data, err = appendCopyValue(data, f, v); err != nil {
				return staged{}, fmt.Errorf("%s.%s: %w", t.Name, f.Name, err)
			}
		}
	}
	return staged{table: t, data: binary.BigEndian.AppendUint16(data, 0xffff)}, nil // 0xffff: end of data
}

// stageType is the staging column type of a field, by its Go kind; binary
// COPY wants exactly that type's layout, and INSERT ... SELECT converts to
// the target's (bigint to integer, say) as it would a literal.
func stageType(f *schema.Field) (string, error) {
	switch f.IndirectType.Kind() {
	case reflect.String:
		return "text", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f.UserSQLType == "integer" {
			return "integer", nil
		}
		return "bigint", nil
	case reflect.Bool:
		return "boolean", nil
	case reflect.Slice:
		if f.IndirectType.Elem().Kind() == reflect.Uint8 {
			return "bytea", nil
		}
	}
	return "", fmt.Errorf("%s.%s: no COPY encoding for %s", f.Table.Name, f.Name, f.IndirectType)
}

// appendCopyValue writes one field in COPY's binary format (length, then
// bytes), meaning what bun would have written as a literal: nil (or a zero
// nullzero field) is NULL.
func appendCopyValue(b []byte, f *schema.Field, strct reflect.Value) ([]byte, error) {
	v := f.Value(strct)
	if f.NullZero && f.HasZeroValue(strct) {
		return append(b, copyNull...), nil
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return append(b, copyNull...), nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.String:
		b = binary.BigEndian.AppendUint32(b, uint32(v.Len()))
		return append(b, v.String()...), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if f.UserSQLType == "integer" { // a field tagged type:integer: the column's own 4 bytes
			b = binary.BigEndian.AppendUint32(b, 4)
			return binary.BigEndian.AppendUint32(b, uint32(int32(v.Int()))), nil
		}
		b = binary.BigEndian.AppendUint32(b, 8)
		return binary.BigEndian.AppendUint64(b, uint64(v.Int())), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 0, 0, 0, 1, 1), nil
		}
		return append(b, 0, 0, 0, 1, 0), nil
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if v.IsNil() {
				return append(b, copyNull...), nil
			}
			b = binary.BigEndian.AppendUint32(b, uint32(v.Len()))
			return append(b, v.Bytes()...), nil
		}
	}
	return b, fmt.Errorf("no COPY encoding for %s", v.Type())
}

// sendStaged fills the staging tables and then runs script, the statements
// that read them, behind the last COPY: COPY must open its query string for
// the driver, and whatever follows it rides in the same round trip.
func sendStaged(ctx context.Context, tx bun.Tx, conn bun.Conn, copies []staged, script []byte) error {
	var create bytes.Buffer
	for _, s := range copies {
		// Created once per session (IF NOT EXISTS costs a catalog lookup
		// after that), with no index or constraint to maintain. A row under
		// a page stays whole and uncompressed: it lives until the commit,
		// and pglz on every BOC over 2 kB showed in the profile.
		cols := make([]string, len(s.table.Fields))
		for i, f := range s.table.Fields {
			typ, err := stageType(f)
			if err != nil {
				return err
			}
			cols[i] = string(f.SQLName) + " " + typ
		}
		fmt.Fprintf(&create, "CREATE TEMP TABLE IF NOT EXISTS %s (%s) WITH (toast_tuple_target = 8160) ON COMMIT DELETE ROWS;\n",
			stageName(s.table), strings.Join(cols, ", "))
	}
	if _, err := tx.Tx.ExecContext(ctx, create.String()); err != nil {
		return fmt.Errorf("staging tables: %w", err)
	}
	for i, s := range copies {
		query := fmt.Sprintf("COPY %s (%s) FROM STDIN (FORMAT binary)", stageName(s.table), columns(s.table))
		if i == len(copies)-1 {
			query += ";\n" + string(script)
		}
		if _, err := pgdriver.CopyFrom(ctx, conn, bytes.NewReader(s.data), query); err != nil {
			return fmt.Errorf("copy %s: %w", s.table.Name, err)
		}
	}
	return nil
}
