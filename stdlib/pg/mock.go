package pg

import (
	"regexp"
	"strings"
	"sync"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The mock database of pg_mock_pool: a handle that answers statements
// from canned responses and records them, so scripts that take a
// database handle can be tested without a server (docs/pg.md, "Testing
// without a server").

type mock struct {
	mu        sync.Mutex
	responses []*response
	calls     []vm.Value
}

// response is one canned answer. It matches a statement by its text
// (`sql`, compared with runs of white space collapsed), by a regular
// expression searched in the text (`pattern`), or every statement when it
// has neither; the first matching response that has uses left answers.
type response struct {
	sql      string
	pattern  *regexp.Regexp
	rows     []vm.Value
	affected int64
	hasCount bool
	errMsg   string
	code     string
	hasErr   bool
	times    int64 // uses left; -1: unlimited
}

func init() {
	lib.Def("pg_mock_pool", "pg_mock_pool(responses?)",
		"a mock database handle answering from canned responses: a list of {sql | pattern, rows, rows_affected, error, code, times}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			m := &mock{}
			if v := a.At(0); v.IsValid() && !v.IsNil() {
				l, ok := v.AsList()
				if !ok {
					return vm.Value{}, vm.Typef("pg_mock_pool: responses must be a list of dicts, got %s", v.Type())
				}
				for i, item := range l.Items() {
					r, err := readResponse(i+1, item)
					if err != nil {
						return vm.Value{}, err
					}
					m.responses = append(m.responses, r)
				}
			}
			return vm.Of(&DB{kind: "pg_pool", name: "mock", mock: m, inTx: map[*vm.Thread]int{}}), nil
		})
	lib.Def("pg_mock_calls", "pg_mock_calls(mock)",
		"the statements a pg_mock_pool handle received, in order → list of {sql, params} (transactions add BEGIN, COMMIT, ROLLBACK)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			var m *mock
			switch h := a.At(0).Object().(type) {
			case *DB:
				m = h.mock
			case *Tx:
				m = h.db.mock
			}
			if m == nil {
				got := a.At(0).Type()
				if _, isDB := a.At(0).Object().(*DB); isDB {
					got = lib.Display(a.At(0)) // a real pool: say which
				}
				return vm.Value{}, vm.Typef("pg_mock_calls: expected a handle from pg_mock_pool, got %s", got)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			return vm.Of(lib.List(append([]vm.Value(nil), m.calls...))), nil
		})
}

func readResponse(n int, v vm.Value) (*response, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, vm.Typef("pg_mock_pool: response %d must be a dict, got %s", n, v.Type())
	}
	r := &response{times: -1}
	var err error
	fail := func(format string, args ...any) bool {
		err = vm.Typef("pg_mock_pool: response %d: "+format, append([]any{n}, args...)...)
		return false
	}
	d.Range(func(k string, x vm.Value) bool {
		switch k {
		case "sql":
			s, ok := x.AsString()
			if !ok {
				return fail("sql must be a string, got %s", x.Type())
			}
			r.sql = normalize(s.Go())
			if r.sql == "" {
				return fail("sql must not be empty")
			}
		case "pattern":
			s, ok := x.AsString()
			if !ok {
				return fail("pattern must be a string, got %s", x.Type())
			}
			re, rerr := regexp.Compile(s.Go())
			if rerr != nil {
				err = vm.Throwf("pg_mock_pool: response %d: invalid pattern: %s", n, strings.TrimPrefix(rerr.Error(), "error parsing regexp: "))
				return false
			}
			r.pattern = re
		case "rows":
			l, ok := x.AsList()
			if !ok {
				return fail("rows must be a list of dicts, got %s", x.Type())
			}
			for _, row := range l.Items() {
				if row.Kind() != vm.KDict {
					return fail("rows must be a list of dicts, got a %s in it", row.Type())
				}
			}
			r.rows = l.Items()
		case "rows_affected":
			c, ok := x.AsInt()
			if !ok || c < 0 {
				return fail("rows_affected must be a non-negative int, got %s", lib.Display(x))
			}
			r.affected, r.hasCount = int64(c), true
		case "error":
			s, ok := x.AsString()
			if !ok {
				return fail("error must be a string, got %s", x.Type())
			}
			r.errMsg, r.hasErr = s.Go(), true
		case "code":
			s, ok := x.AsString()
			if !ok || len(s.Go()) != 5 {
				return fail("code must be a five-character SQLSTATE string, got %s", lib.Display(x))
			}
			r.code = s.Go()
		case "times":
			c, ok := x.AsInt()
			if !ok || c < 1 {
				return fail("times must be a positive int, got %s", lib.Display(x))
			}
			r.times = int64(c)
		default:
			return fail("unknown key %s (known: sql, pattern, rows, rows_affected, error, code, times)", k)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if r.sql != "" && r.pattern != nil {
		return nil, vm.Typef("pg_mock_pool: response %d: give sql or pattern, not both", n)
	}
	if r.code != "" && !r.hasErr {
		return nil, vm.Typef("pg_mock_pool: response %d: code needs an error", n)
	}
	return r, nil
}

// normalize collapses runs of white space, so that a response's sql
// matches however the script lays the statement out.
func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

func (m *mock) record(sql string, params vm.Value) {
	if !params.IsValid() || params.IsNil() {
		params = vm.Of(lib.List(nil))
	}
	m.mu.Lock()
	m.calls = append(m.calls, vm.Of(lib.DictOf("sql", vm.Str(sql), "params", params)))
	m.mu.Unlock()
}

// answer records the statement and answers it from the first matching
// response.
func (m *mock) answer(name string, o op, sql string, params vm.Value) (vm.Value, error) {
	m.record(sql, params)
	norm := normalize(sql)
	m.mu.Lock()
	var r *response
	for _, c := range m.responses {
		if c.times == 0 {
			continue
		}
		if c.sql != "" && c.sql != norm || c.pattern != nil && !c.pattern.MatchString(sql) {
			continue
		}
		if c.times > 0 {
			c.times--
		}
		r = c
		break
	}
	m.mu.Unlock()
	if r == nil {
		return vm.Value{}, vm.Throwf("%s: pg_mock_pool has no response for: %s", name, norm)
	}
	if r.hasErr {
		if r.code != "" {
			return vm.Value{}, vm.Throwf("%s: ERROR %s: %s", name, r.code, r.errMsg)
		}
		return vm.Value{}, vm.Throwf("%s: %s", name, r.errMsg)
	}
	switch o {
	case opExecute:
		n := int64(len(r.rows))
		if r.hasCount {
			n = r.affected
		}
		return vm.Of(lib.DictOf("rows_affected", vm.IntOf(n))), nil
	case opQueryOne:
		if len(r.rows) == 0 {
			return vm.Nil, nil
		}
		return r.rows[0], nil
	}
	return vm.Of(lib.List(append([]vm.Value(nil), r.rows...))), nil
}
