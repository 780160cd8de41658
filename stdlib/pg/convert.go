package pg

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"math"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/harnlang/harn/internal/uuids"
	"github.com/harnlang/harn/stdlib/internal/decimal"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

// Values between PostgreSQL and Harn (docs/pg.md, "Types").

// rawJSON is a json or jsonb value as the server sent it; it is parsed
// by Harn's own JSON reader, so that integers stay ints and keys keep
// Harn's dict order.
type rawJSON []byte

// keepRaw is the Unmarshal of the json codecs: decoding into an any
// keeps the text, anything else is encoding/json's.
func keepRaw(data []byte, v any) error {
	if p, ok := v.(*any); ok {
		*p = rawJSON(bytes.Clone(data))
		return nil
	}
	return stdjson.Unmarshal(data, v)
}

// registerTypes sets up a connection's type map for the mapping of
// docs/pg.md, "Types": json and jsonb (and their arrays) decode to
// rawJSON, numeric keeps the scale of a zero, and every type outside the
// mapping (geometric types, ranges, bit strings, xml, "char", …) is read
// in PostgreSQL's text form, arrays of them as lists of those texts,
// split at their element type's delimiter (pgx's table has each built-in
// type's pg_type.typdelim: `;` for box, `,` for every other).
func registerTypes(m *pgtype.Map) {
	js := &pgtype.Type{Name: "json", OID: pgtype.JSONOID, Codec: &pgtype.JSONCodec{Marshal: stdjson.Marshal, Unmarshal: keepRaw}}
	jsb := &pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID, Codec: &pgtype.JSONBCodec{Marshal: stdjson.Marshal, Unmarshal: keepRaw}}
	num := &pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: scaledNumeric{}}
	m.RegisterType(js)
	m.RegisterType(jsb)
	m.RegisterType(num)
	m.RegisterType(&pgtype.Type{Name: "_json", OID: pgtype.JSONArrayOID, Codec: &pgtype.ArrayCodec{ElementType: js}})
	m.RegisterType(&pgtype.Type{Name: "_jsonb", OID: pgtype.JSONBArrayOID, Codec: &pgtype.ArrayCodec{ElementType: jsb}})
	m.RegisterType(&pgtype.Type{Name: "_numeric", OID: pgtype.NumericArrayOID, Codec: &pgtype.ArrayCodec{ElementType: num}})
	// pgx registers only built-in types, whose OIDs are below 16384
	// (FirstNormalObjectId); user types (enums, composites) are unknown
	// to it and already arrive as text.
	for oid := uint32(1); oid < 16384; oid++ {
		t, ok := m.TypeForOID(oid)
		if !ok || mappedOIDs[oid] {
			continue
		}
		if ac, isArray := t.Codec.(*pgtype.ArrayCodec); isArray {
			if !mappedOIDs[ac.ElementType.OID] {
				m.RegisterType(&pgtype.Type{Name: t.Name, OID: oid, Codec: &pgtype.ArrayCodec{ElementType: textType(ac.ElementType), Delimiter: ac.Delimiter}})
			}
			continue
		}
		m.RegisterType(textType(t))
	}
}

// mappedOIDs are the types docs/pg.md, "Types" maps to Harn values of
// their own; every other type reads as its text.
var mappedOIDs = map[uint32]bool{
	pgtype.BoolOID: true, pgtype.Int2OID: true, pgtype.Int4OID: true, pgtype.Int8OID: true, pgtype.OIDOID: true,
	pgtype.Float4OID: true, pgtype.Float8OID: true, pgtype.NumericOID: true,
	pgtype.TextOID: true, pgtype.VarcharOID: true, pgtype.BPCharOID: true, pgtype.NameOID: true, pgtype.UnknownOID: true,
	pgtype.ByteaOID: true, pgtype.JSONOID: true, pgtype.JSONBOID: true,
	pgtype.DateOID: true, pgtype.TimestampOID: true, pgtype.TimestamptzOID: true, pgtype.TimeOID: true,
	pgtype.IntervalOID: true, pgtype.UUIDOID: true, pgtype.InetOID: true, pgtype.CIDROID: true, pgtype.MacaddrOID: true,
}

// textType is t read and written in the text format, as a string.
func textType(t *pgtype.Type) *pgtype.Type {
	return &pgtype.Type{Name: t.Name, OID: t.OID, Codec: textOnly{}}
}

// textOnly is pgx's text codec limited to the text format: it takes the
// binary form of a text type for the same bytes, which for a point or a
// range they are not, and an array asks for its elements' formats.
type textOnly struct{ pgtype.TextCodec }

func (textOnly) FormatSupported(format int16) bool { return format == pgtype.TextFormatCode }
func (textOnly) PreferredFormat() int16            { return pgtype.TextFormatCode }

// PlanEncode binds an int, a float or a bool to a type read as text
// (xid, cid, regclass, money, a domain, …) as its decimal text, which the
// server parses as it would the literal: pgx's text codec takes only
// strings. A float is written without an exponent, so that a whole one
// (7.0) is read by integer-like types as 7 and one with a fraction is
// refused by them instead of truncated (docs/pg.md, "Statements and
// parameters").
func (c textOnly) PlanEncode(m *pgtype.Map, oid uint32, format int16, value any) pgtype.EncodePlan {
	switch value.(type) {
	case int64, float64, bool:
		if format == pgtype.TextFormatCode {
			return scalarText{}
		}
	}
	return c.TextCodec.PlanEncode(m, oid, format, value)
}

type scalarText struct{}

func (scalarText) Encode(value any, buf []byte) ([]byte, error) {
	switch v := value.(type) {
	case int64:
		return strconv.AppendInt(buf, v, 10), nil
	case bool:
		return strconv.AppendBool(buf, v), nil
	case float64:
		switch {
		case math.IsNaN(v):
			return append(buf, "NaN"...), nil
		case math.IsInf(v, 1):
			return append(buf, "Infinity"...), nil
		case math.IsInf(v, -1):
			return append(buf, "-Infinity"...), nil
		}
		return strconv.AppendFloat(buf, v, 'f', -1, 64), nil
	}
	return nil, fmt.Errorf("cannot encode %T as text", value)
}

// scaledNumeric is pgx's numeric codec, except that a zero keeps its
// scale: pgx reads 0.00 as a bare 0, the binary form says 2 digits.
type scaledNumeric struct{ pgtype.NumericCodec }

func (c scaledNumeric) DecodeValue(m *pgtype.Map, oid uint32, format int16, src []byte) (any, error) {
	v, err := c.NumericCodec.DecodeValue(m, oid, format, src)
	n, ok := v.(pgtype.Numeric)
	if err != nil || !ok || !n.Valid || n.Int == nil || n.Int.Sign() != 0 {
		return v, err
	}
	switch format {
	case pgtype.BinaryFormatCode:
		// ndigits, weight, sign, dscale: four 16-bit words
		if len(src) >= 8 {
			n.Exp = -int32(int16(uint16(src[6])<<8 | uint16(src[7])))
		}
	case pgtype.TextFormatCode:
		if i := bytes.IndexByte(src, '.'); i >= 0 {
			n.Exp = -int32(len(src) - i - 1)
		}
	}
	return n, nil
}

// typeMap answers "what is the element type of this array type".
var typeMap = sync.OnceValue(pgtype.NewMap)

func elementOID(oid uint32) uint32 {
	if t, ok := typeMap().TypeForOID(oid); ok {
		if ac, ok := t.Codec.(*pgtype.ArrayCodec); ok {
			return ac.ElementType.OID
		}
	}
	return 0
}

// convertRows turns a statement's rows into dicts of column name → value.
func convertRows(th *vm.Thread, name string, res result) ([]vm.Value, error) {
	out := make([]vm.Value, len(res.rows))
	for i, row := range res.rows {
		b := vm.NewDictBuilder(len(res.fields))
		for j, f := range res.fields {
			v, err := toHarn(th, row[j], f.DataTypeOID)
			if err != nil {
				return nil, vm.Throwf("%s: column %s: %s", name, f.Name, err.Error())
			}
			b.Set(f.Name, v)
		}
		out[i] = vm.Of(b.Build())
	}
	return out, nil
}

// toHarn converts one decoded value; oid is its PostgreSQL type.
func toHarn(th *vm.Thread, x any, oid uint32) (vm.Value, error) {
	switch v := x.(type) {
	case nil:
		return vm.Nil, nil
	case bool:
		return vm.BoolOf(v), nil
	case int16:
		return vm.IntOf(int64(v)), nil
	case int32:
		return vm.IntOf(int64(v)), nil
	case int64:
		return vm.IntOf(v), nil
	case int8:
		return vm.IntOf(int64(v)), nil
	case int:
		return vm.IntOf(int64(v)), nil
	case uint32:
		return vm.IntOf(int64(v)), nil
	case uint64:
		if v > math.MaxInt64 {
			return vm.Str(strconv.FormatUint(v, 10)), nil
		}
		return vm.IntOf(int64(v)), nil
	case float32:
		// the shortest text of the float32, read as a float64: 1.1, not
		// 1.100000023841858
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
		return vm.FloatOf(f), nil
	case float64:
		return vm.FloatOf(v), nil
	case string:
		return vm.Str(v), nil
	case []byte:
		return vm.Of(lib.NewBytes(bytes.Clone(v))), nil
	case rawJSON:
		return json.Parse(string(v))
	case pgtype.Numeric:
		return numeric(v)
	case time.Time:
		return vm.Str(formatTime(v, oid)), nil
	case pgtype.InfinityModifier:
		return vm.Str(v.String()), nil
	case pgtype.Time:
		return vm.Str(formatClock(v.Microseconds)), nil
	case pgtype.Interval:
		if v.Months == 0 {
			return vm.DurationOf(int64(v.Days)*86_400_000 + v.Microseconds/1000), nil
		}
		return vm.Str(formatInterval(v)), nil
	case [16]byte:
		return vm.Str(uuids.Format(v)), nil
	case netip.Prefix:
		if oid == pgtype.InetOID && v.Bits() == v.Addr().BitLen() {
			return vm.Str(v.Addr().String()), nil
		}
		return vm.Str(v.String()), nil
	case net.HardwareAddr:
		return vm.Str(v.String()), nil
	case []any:
		elem := elementOID(oid)
		items := make([]vm.Value, len(v))
		for i, e := range v {
			hv, err := toHarn(th, e, elem)
			if err != nil {
				return vm.Value{}, err
			}
			items[i] = hv
		}
		return vm.Of(lib.List(items)), nil
	case map[string]any:
		b := vm.NewDictBuilder(len(v))
		for k, e := range v {
			hv, err := toHarn(th, e, 0)
			if err != nil {
				return vm.Value{}, err
			}
			b.Set(k, hv)
		}
		return vm.Of(b.Build()), nil
	case fmt.Stringer:
		return vm.Str(v.String()), nil
	}
	// anything else (geometric types, ranges, …): its text form
	if tv, ok := x.(interface{ Value() (any, error) }); ok {
		if t, err := tv.Value(); err == nil {
			if s, ok := t.(string); ok {
				return vm.Str(s), nil
			}
		}
	}
	return vm.Str(fmt.Sprint(x)), nil
}

// formatTime: a date is 2006-01-02, a timestamp (without time zone) its
// wall time 2006-01-02T15:04:05[.ffffff], a timestamptz RFC 3339 in UTC.
func formatTime(t time.Time, oid uint32) string {
	switch oid {
	case pgtype.DateOID:
		return t.Format("2006-01-02")
	case pgtype.TimestampOID:
		return t.Format("2006-01-02T15:04:05.999999")
	}
	return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00")
}

func formatClock(us int64) string {
	t := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(us) * time.Microsecond)
	if us >= 86_400_000_000 {
		return "24:00:00"
	}
	return t.Format("15:04:05.999999")
}

// formatInterval is PostgreSQL's own text form of an interval with a
// month part (which has no fixed length, so it is no Harn duration).
func formatInterval(v pgtype.Interval) string {
	var parts []string
	plural := func(n int64, unit string) {
		if n == 0 {
			return
		}
		s := strconv.FormatInt(n, 10) + " " + unit
		if n != 1 && n != -1 {
			s += "s"
		}
		parts = append(parts, s)
	}
	plural(int64(v.Months/12), "year")
	plural(int64(v.Months%12), "mon")
	plural(int64(v.Days), "day")
	if us := v.Microseconds; us != 0 {
		sign := ""
		if us < 0 {
			sign, us = "-", -us
		}
		h, m := us/3_600_000_000, us/60_000_000%60
		sec := float64(us%60_000_000) / 1e6
		s := fmt.Sprintf("%s%02d:%02d:%02d", sign, h, m, int64(sec))
		if frac := us % 1_000_000; frac != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// numeric is a decimal keeping the column's scale (1.50 stays 1.50);
// NaN and ±Infinity, which no decimal holds, are floats.
func numeric(n pgtype.Numeric) (vm.Value, error) {
	if !n.Valid {
		return vm.Nil, nil
	}
	if n.NaN {
		return vm.FloatOf(math.NaN()), nil
	}
	switch n.InfinityModifier {
	case pgtype.Infinity:
		return vm.FloatOf(math.Inf(1)), nil
	case pgtype.NegativeInfinity:
		return vm.FloatOf(math.Inf(-1)), nil
	}
	d, err := decimal.Convert(vm.Str(numericText(n)), strconv.Quote)
	if err != nil {
		return vm.Value{}, err
	}
	return vm.Of(d), nil
}

// numericText is the plain decimal text of n (no exponent).
func numericText(n pgtype.Numeric) string {
	digits := n.Int.String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	if n.Exp >= 0 {
		digits += strings.Repeat("0", int(n.Exp))
	} else {
		scale := int(-n.Exp)
		if len(digits) <= scale {
			digits = strings.Repeat("0", scale-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
	}
	if neg {
		return "-" + digits
	}
	return digits
}

// toParam converts the i-th parameter to what pgx binds to $i+1.
func toParam(name string, i int, v vm.Value) (any, error) {
	switch v.Kind() {
	case vm.KNil, vm.KInvalid:
		return nil, nil
	case vm.KBool:
		b, _ := v.AsBool()
		return bool(b), nil
	case vm.KInt:
		n, _ := v.AsInt()
		return int64(n), nil
	case vm.KFloat:
		f, _ := v.AsFloat()
		return float64(f), nil
	case vm.KString:
		s, _ := v.AsString()
		return s.Go(), nil
	case vm.KDuration:
		d, _ := v.AsDuration()
		return time.Duration(d) * time.Millisecond, nil
	case vm.KList, vm.KSet:
		var items []vm.Value
		if l, ok := v.AsList(); ok {
			items = l.Items()
		} else {
			s, _ := v.AsSet()
			items = s.Items()
		}
		out := make([]any, len(items))
		for j, it := range items {
			p, err := toParam(name, i, it)
			if err != nil {
				return nil, err
			}
			out[j] = p
		}
		return out, nil
	case vm.KDict:
		if err := json.RefuseHandle(name, v); err != nil {
			return nil, err
		}
		return stdjson.RawMessage(json.Stringify(v)), nil
	}
	switch o := v.Object().(type) {
	case *lib.Bytes:
		return bytes.Clone(o.Data()), nil
	}
	if text, ok := decimal.Text(v); ok {
		var n pgtype.Numeric
		if err := n.Scan(text); err != nil {
			return nil, vm.Throwf("%s: parameter $%d: %v", name, i+1, err)
		}
		return n, nil
	}
	t := v.Type()
	article := "a"
	if strings.ContainsRune("aeiou", rune(t[0])) {
		article = "an"
	}
	return nil, vm.Typef("%s: cannot bind %s %s as parameter $%d", name, article, t, i+1)
}
