package httpserver

import (
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/vm"
)

var caseKeys = map[string]bool{"name": true, "method": true, "path": true, "expect": true,
	"headers": true, "body": true, "json": true, "query": true, "remote_addr": true}

var expectKeys = map[string]bool{"status": true, "body": true, "body_contains": true, "json": true, "headers": true}

// runTests is http_server_test: every case is served in-process and its
// expectations checked; a failing expectation is a result, not an error
// (only a malformed case is).
func (s *Server) runTests(th *vm.Thread, cases *vm.List) (vm.Value, error) {
	const name = "http_server_test"
	results := make([]vm.Value, 0, cases.Len())
	passed := 0
	for i, c := range cases.Items() {
		d, ok := c.AsDict()
		if !ok {
			return vm.Value{}, vm.Typef("%s: case %d must be a dict, got %s", name, i, c.Type())
		}
		var bad error
		d.Range(func(k string, _ vm.Value) bool {
			if !caseKeys[k] {
				bad = vm.Throwf("%s: case %d: unknown key %q", name, i, k)
			}
			return bad == nil
		})
		if bad != nil {
			return vm.Value{}, bad
		}
		method := "GET"
		if m, ok := d.Get("method"); ok && !m.IsNil() {
			method = lib.Display(m)
		}
		pv, ok := d.Get("path")
		if !ok || pv.Kind() != vm.KString {
			return vm.Value{}, vm.Typef("%s: case %d: path must be a string, got %s", name, i, typeOrMissing(pv, ok))
		}
		path := lib.Display(pv)
		label := strings.ToUpper(method) + " " + path
		if n, ok := d.Get("name"); ok && !n.IsNil() {
			label = lib.Display(n)
		}
		opts := vm.NewDict()
		for _, k := range requestOptions {
			if v, ok := d.Get(k); ok {
				opts = opts.Set(k, v)
			}
		}
		var expect *vm.Dict
		if e, ok := d.Get("expect"); ok && !e.IsNil() {
			if expect, ok = e.AsDict(); !ok {
				return vm.Value{}, vm.Typef("%s: case %d: expect must be a dict, got %s", name, i, e.Type())
			}
			expect.Range(func(k string, _ vm.Value) bool {
				if !expectKeys[k] {
					bad = vm.Throwf("%s: case %d: unknown expectation %q", name, i, k)
				}
				return bad == nil
			})
			if bad != nil {
				return vm.Value{}, bad
			}
		} else {
			expect = vm.NewDict()
		}
		g, err := s.inProcessRequest(name, method, path, opts)
		if err != nil {
			return vm.Value{}, err
		}
		resp, err := s.dispatch(th, g)
		if err != nil {
			return vm.Value{}, err
		}
		got := clientView(th, resp)
		failures := check(expect, got)
		if len(failures) == 0 {
			passed++
		}
		status, _ := got.Get("status")
		results = append(results, vm.Of(lib.DictOf("name", vm.Str(label), "ok", vm.BoolOf(len(failures) == 0),
			"status", status, "failures", lib.StrList(failures))))
	}
	failed := len(results) - passed
	return vm.Of(lib.DictOf("ok", vm.BoolOf(failed == 0), "passed", lib.IntOf(passed), "failed", lib.IntOf(failed),
		"results", lib.List(results))), nil
}

func typeOrMissing(v vm.Value, ok bool) string {
	if !ok {
		return "nothing"
	}
	return v.Type()
}

// check compares a response ({status, headers, body, json}) with a
// case's expectations and describes each mismatch.
func check(expect, got *vm.Dict) []string {
	var out []string
	field := func(k string) vm.Value { v, _ := got.Get(k); return v }
	if want, ok := expect.Get("status"); ok && !vm.Equal(want, field("status")) {
		out = append(out, "status: expected "+lib.Display(want)+", got "+lib.Display(field("status")))
	}
	if want, ok := expect.Get("body"); ok && !vm.Equal(want, field("body")) {
		out = append(out, "body: expected "+quote(lib.Display(want))+", got "+quote(lib.Display(field("body"))))
	}
	if want, ok := expect.Get("body_contains"); ok && !strings.Contains(lib.Display(field("body")), lib.Display(want)) {
		out = append(out, "body: expected to contain "+quote(lib.Display(want))+", got "+quote(lib.Display(field("body"))))
	}
	if want, ok := expect.Get("json"); ok && !vm.Equal(want, field("json")) {
		out = append(out, "json: expected "+json.Stringify(want)+", got "+json.Stringify(field("json")))
	}
	if want, ok := expect.Get("headers"); ok {
		if wd, ok := want.AsDict(); ok {
			hv := field("headers")
			hd, _ := hv.AsDict()
			for _, k := range wd.Keys() {
				w, _ := wd.Get(k)
				g, present := hd.Get(strings.ToLower(k))
				switch {
				case w.IsNil() && present:
					out = append(out, "header "+strings.ToLower(k)+": expected none, got "+quote(lib.Display(g)))
				case w.IsNil():
				case !present:
					out = append(out, "header "+strings.ToLower(k)+": expected "+quote(lib.Display(w))+", got none")
				case lib.Display(w) != lib.Display(g):
					out = append(out, "header "+strings.ToLower(k)+": expected "+quote(lib.Display(w))+", got "+quote(lib.Display(g)))
				}
			}
		}
	}
	return out
}
