package pg

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Binding parameters knowing their PostgreSQL types, and the types pgx
// does not know (docs/pg.md, "Statements and parameters" and "Types").

// bindError is a parameter that cannot be bound to its type, said in
// Harn's terms: a type error.
type bindError string

func (e bindError) Error() string { return string(e) }

// describeParam is a parameter as bind errors name it: `decimal 2.5`.
func describeParam(v vm.Value) string {
	d := lib.Display(v)
	if r := []rune(d); len(r) > 40 {
		d = string(r[:37]) + "..." // whole characters: the message stays valid UTF-8
	}
	return v.Type() + " " + d
}

// The integer types, and those read as text whose input stops at a
// fraction (xid takes "2.5" for 2).
var intOIDs = map[uint32]bool{pgtype.Int2OID: true, pgtype.Int4OID: true, pgtype.Int8OID: true,
	pgtype.XIDOID: true, pgtype.XID8OID: true, pgtype.CIDOID: true}
var intArrayOIDs = map[uint32]bool{pgtype.Int2ArrayOID: true, pgtype.Int4ArrayOID: true, pgtype.Int8ArrayOID: true,
	pgtype.XIDArrayOID: true, pgtype.XID8ArrayOID: true, pgtype.CIDArrayOID: true}

// checkParams refuses a float with a fraction for an integer parameter
// (or an element of an integer array), which pgx or the server would
// truncate.
func checkParams(m *pgtype.Map, sd *pgconn.StatementDescription, st statement) error {
	for i, oid := range sd.ParamOIDs {
		var floats []any
		switch {
		case intOIDs[oid]:
			floats = []any{st.args[i]}
		case intArrayOIDs[oid]:
			floats, _ = st.args[i].([]any)
		}
		for _, a := range floats {
			if f, ok := a.(float64); ok && f != math.Trunc(f) {
				return bindError(fmt.Sprintf("parameter $%d: cannot bind %s to %s (a float with a fraction; round it or use an int)", i+1, st.descs[i], typeName(m, oid)))
			}
		}
	}
	return nil
}

// bindFailure finds the parameter pgx could not encode and says which,
// with its Harn type and the parameter's PostgreSQL type.
func bindFailure(m *pgtype.Map, sd *pgconn.StatementDescription, st statement, err error) error {
	for i, a := range st.args {
		oid := sd.ParamOIDs[i]
		format := m.FormatCodeForOID(oid)
		if _, isString := a.(string); isString {
			format = pgtype.TextFormatCode
		}
		if _, e := m.Encode(oid, format, a, nil); e != nil {
			return bindError(fmt.Sprintf("parameter $%d: cannot bind %s to %s", i+1, st.descs[i], typeName(m, oid)))
		}
	}
	return err
}

func typeName(m *pgtype.Map, oid uint32) string {
	if t, ok := m.TypeForOID(oid); ok {
		if _, isArray := t.Codec.(*pgtype.ArrayCodec); isArray {
			return strings.TrimPrefix(t.Name, "_") + "[]"
		}
		return t.Name
	}
	return fmt.Sprintf("the type with OID %d", oid)
}

// userType is a type pgx does not know: an enum, a composite type, an
// extension's type, or an array of one (elem is then its element type).
// It is read and bound in the text format: a string, an array a list
// whose text form separates elements with delim, the element type's
// pg_type.typdelim (`;` for an array of a domain over box).
type userType struct {
	oid      uint32
	name     string
	elem     uint32
	elemName string
	delim    byte
}

// learnTypes registers on c's type map the parameter and column types of
// sd that it does not know, looking up in pg_type those the handle has
// not met yet. It reports whether it ran a query (which replaced the
// unnamed statement sd describes).
func (d *DB) learnTypes(ctx context.Context, c *pgx.Conn, sd *pgconn.StatementDescription) (bool, error) {
	m := c.TypeMap()
	oids := append([]uint32(nil), sd.ParamOIDs...)
	for _, f := range sd.Fields {
		oids = append(oids, f.DataTypeOID)
	}
	var missing []int64
	d.mu.Lock()
	for _, oid := range oids {
		if _, ok := m.TypeForOID(oid); ok || oid == 0 {
			continue
		}
		if u, ok := d.types[oid]; ok {
			registerUserType(m, u)
			continue
		}
		missing = append(missing, int64(oid))
	}
	d.mu.Unlock()
	if len(missing) == 0 {
		return false, nil
	}
	rows, err := c.Query(ctx, `SELECT t.oid::int8, t.typname::text,
  CASE WHEN t.typcategory = 'A' THEN t.typelem::int8 ELSE 0 END, coalesce(e.typname::text, ''),
  coalesce(e.typdelim, t.typdelim)::text
  FROM pg_type t LEFT JOIN pg_type e ON e.oid = t.typelem WHERE t.oid = ANY($1::int8[])`, missing)
	if err != nil {
		return true, err
	}
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (userType, error) {
		var oid, elem int64
		var u userType
		var delim string
		err := r.Scan(&oid, &u.name, &elem, &u.elemName, &delim)
		u.oid, u.elem = uint32(oid), uint32(elem)
		if len(delim) == 1 {
			u.delim = delim[0]
		}
		return u, err
	})
	if err != nil {
		return true, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.types == nil {
		d.types = map[uint32]userType{}
	}
	for _, u := range found {
		d.types[u.oid] = u
		registerUserType(m, u)
	}
	return true, nil
}

func registerUserType(m *pgtype.Map, u userType) {
	if u.elem == 0 {
		m.RegisterType(&pgtype.Type{Name: u.name, OID: u.oid, Codec: textOnly{}})
		return
	}
	et, ok := m.TypeForOID(u.elem)
	if !ok {
		et = &pgtype.Type{Name: u.elemName, OID: u.elem, Codec: textOnly{}}
		m.RegisterType(et)
	}
	m.RegisterType(&pgtype.Type{Name: u.name, OID: u.oid, Codec: &pgtype.ArrayCodec{ElementType: et, Delimiter: u.delim}})
}
