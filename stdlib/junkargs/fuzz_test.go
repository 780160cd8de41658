package junkargs_test

import (
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzBuiltinArgs calls one builtin or method, picked by the first two
// bytes, with arguments decoded from the rest (decodeArgs): any call may
// fail, but only with an ordinary Harn error, and it must end.
//
//	go test ./stdlib/junkargs -run '^$' -fuzz FuzzBuiltinArgs -fuzztime 5m
//
// The seeds are the junk matrix: one sampled combination per target.
func FuzzBuiltinArgs(f *testing.F) {
	tgs := fuzzTargets(f)
	for i, tg := range tgs {
		lists := argLists(tg.name)
		args := lists[1+i%(len(lists)-1)]
		data := []byte{byte(i >> 8), byte(i), byte(len(args))}
		for _, a := range args {
			data = append(data, 0, byte(a))
		}
		f.Add(data)
	}
	// Example mode: 'E', two bytes picking a call site of the mutation
	// sweep, then per argument a byte saying whether to keep it (not a
	// multiple of 3) or to replace it by a decoded value.
	sites := fuzzSites(f, tgs)
	for i, s := range sites {
		if i%2 == 0 && fuzzing() {
			f.Add([]byte{'E', byte(i >> 8), byte(i), 0, 0, byte((i + len(s.cs.args)) % len(junk))})
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		if data[0] == 'E' && len(data) >= 3 && len(sites) > 0 {
			s := sites[int(binary.BigEndian.Uint16(data[1:]))%len(sites)]
			d := &decoder{data: data[3:]}
			args := s.cs.origArgs()
			for i := range args {
				if d.byte()%3 == 0 {
					args[i] = d.value(0)
				}
			}
			if d.byte()%4 == 0 {
				args = append(args, d.value(0))
			}
			src := s.cs.withArgs(args)
			if p := runMutantWithin(src, inputBudget()); p != "" {
				t.Fatalf("%s: %s\n  from %s, program:\n%s", s.tg.name, p, s.cs.ex.file, clip(src))
			}
			return
		}
		tg := tgs[int(binary.BigEndian.Uint16(data))%len(tgs)]
		d := &decoder{data: data[2:]}
		args := d.args()
		call := tg.call[d.byte()%len(tg.call)]
		src := fmt.Sprintf(call, args)
		limit := inputBudget()
		_, blocks := mayBlock[tg.name]
		if blocks {
			limit = 100 * time.Millisecond
		}
		if p := runMutantWithin(src, limit); p != "" {
			if blocks && strings.HasPrefix(p, "still running") {
				return
			}
			t.Fatalf("%s: %s\n  call: %s", tg.name, p, src)
		}
	})
}

// fuzzInputBudget is how long one fuzz input may run before it is
// interrupted. The fuzzer kills a worker whose input takes 10 s, so this
// budget plus grace stays below that; an input of slow but finite work
// (the seed d2ccb9fd9d6a1161 starts 16M parallel branches) is then
// interrupted and must stop, rather than take the worker down with it.
const fuzzInputBudget = 4 * time.Second

// inputBudget is fuzzInputBudget under -fuzz and confirmBudget when the
// seeds run as ordinary tests (also under the race detector).
func inputBudget() time.Duration {
	if fuzzing() {
		return fuzzInputBudget
	}
	return confirmBudget
}

// fuzzing reports whether the test runs with -fuzz: the example seeds
// only start the fuzzer off (TestBuiltinsWithMutatedExamples covers those
// calls in ordinary runs).
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// fuzzSite is a call site of a target in the examples.
type fuzzSite struct {
	tg target
	cs callSite
}

// fuzzSites returns the call sites the example mode mutates: one per
// target that has one (not the targets that may block).
func fuzzSites(t testing.TB, tgs []target) []fuzzSite {
	examples := loadExamples(t)
	var out []fuzzSite
	for _, tg := range tgs {
		if _, ok := mayBlock[tg.name]; ok {
			continue
		}
		if cs, ok := siteFor(tg, examples); ok {
			out = append(out, fuzzSite{tg, cs})
		}
	}
	return out
}

// fuzzTargets are the targets the fuzzer may pick: all but the skipped.
func fuzzTargets(t testing.TB) []target {
	var out []target
	for _, tg := range targets(t) {
		if _, ok := skipped[tg.name]; !ok {
			out = append(out, tg)
		}
	}
	return out
}

// decoder turns fuzz bytes into Harn argument expressions. Running out
// of bytes reads zeros.
type decoder struct {
	data []byte
}

func (d *decoder) byte() int {
	if len(d.data) == 0 {
		return 0
	}
	b := d.data[0]
	d.data = d.data[1:]
	return int(b)
}

func (d *decoder) bytes(n int) []byte {
	n = min(n, len(d.data))
	b := d.data[:n]
	d.data = d.data[n:]
	return b
}

func (d *decoder) u64() uint64 {
	var buf [8]byte
	copy(buf[:], d.bytes(8))
	return binary.LittleEndian.Uint64(buf[:])
}

// args reads an argument count (0-4) and that many values.
func (d *decoder) args() string {
	n := d.byte() % 5
	parts := make([]string, n)
	for i := range parts {
		parts[i] = d.value(0)
	}
	return strings.Join(parts, ", ")
}

// value reads one value expression; depth bounds nesting.
func (d *decoder) value(depth int) string {
	tag := d.byte() % 12
	if depth >= 4 && tag >= 4 && tag != 6 && tag != 7 {
		tag = 0
	}
	switch tag {
	case 1:
		v := int64(d.u64())
		if v == math.MinInt64 {
			return "(-9223372036854775807 - 1)"
		}
		return "(" + strconv.FormatInt(v, 10) + ")"
	case 2:
		x := math.Float64frombits(d.u64())
		switch {
		case math.IsNaN(x):
			return "(0.0 / 0.0)"
		case math.IsInf(x, 1):
			return "(1.0 / 0.0)"
		case math.IsInf(x, -1):
			return "(-1.0 / 0.0)"
		}
		s := strconv.FormatFloat(x, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return "(" + s + ")"
	case 3:
		return fmt.Sprintf("bytes_to_string_lossy(bytes_from_hex(%q))", hex.EncodeToString(noPaths(d.bytes(d.byte()%48))))
	case 4:
		n := d.byte() % 4
		parts := make([]string, n)
		for i := range parts {
			parts[i] = d.value(depth + 1)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case 5:
		n := d.byte() % 4
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%s: %s", dictKeys[d.byte()%len(dictKeys)], d.value(depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case 6:
		return fmt.Sprintf("(%dms)", int64(d.u64())>>(d.byte()%64))
	case 7:
		return fmt.Sprintf("bytes_from_hex(%q)", hex.EncodeToString(d.bytes(d.byte()%48)))
	case 8:
		return "{ x -> " + d.value(depth+1) + " }"
	case 9:
		return "set(" + d.value(depth+1) + ", " + d.value(depth+1) + ")"
	case 10:
		if d.byte()%2 == 0 {
			return "Result.Ok(" + d.value(depth+1) + ")"
		}
		return "Result.Err(" + d.value(depth+1) + ")"
	case 11:
		return fmt.Sprintf("%q", words[d.byte()%len(words)])
	}
	return fmt.Sprintf("__F[%d]()", d.byte()%len(junk))
}

// noPaths keeps a decoded string from naming anything outside the
// sandbox's working directory (the tests may run as root, and delete_file
// deletes directories): no '/', no '.', so no absolute path, no "..".
func noPaths(b []byte) []byte {
	out := append([]byte(nil), b...)
	for i, c := range out {
		if c == '/' || c == '.' {
			out[i] = '_'
		}
	}
	return out
}

// dictKeys are the keys decoded dicts use: the option names builtins
// read most.
var dictKeys = []string{
	"name", "description", "type", "parameters", "handler", "schema", "required",
	"properties", "items", "url", "method", "headers", "body", "timeout", "model",
	"provider", "messages", "content", "role", "id", "key", "value", "text", "path",
	"tags", "max", "min", "limit", "retry", "default", "a",
}

// words are strings builtins give meaning to. None is a path outside the
// sandbox's working directory (see noPaths): no "/", ".", "..".
var words = []string{
	"", "x", "a.txt", "*", "**", "string", "int", "object", "array",
	"GET", "POST", "http://junk.invalid/", "mock", "utf-8", "base64", "%", "${x}",
	"{{x}}", "\\", "\n", "\x00", "é", "🙂", "-1", "1e999", "NaN", "true", "null", "[]", "{}",
	"a,b", "k=v", "1s", "P1D", "2024-01-01T00:00:00Z", "UTC", "America/New_York",
}
