package evals

import (
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

func need(name string, a vm.Args, i int) error {
	if !a.Has(i) {
		return vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	return nil
}

func dictArg(name string, a vm.Args, i int) (*vm.Dict, error) {
	if err := need(name, a, i); err != nil {
		return nil, err
	}
	d, ok := a.Dict(i)
	if !ok {
		return nil, vm.Runtimef("%s: expected dict at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return d, nil
}

// defManifest defines the builtin name(spec: dict) that checks and
// completes a manifest with check.
func defManifest(name, doc string, check func(name string, d *vm.Dict) (*vm.Dict, error)) {
	lib.Def(name, name+"(spec: dict) -> dict", doc,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := dictArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			m, err := check(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(m), nil
		})
}

// defRun defines the builtin name(spec: dict, options?: dict) (sig
// names the spec) that runs the spec with run.
func defRun(name, sig, doc string, run func(th *vm.Thread, name string, d, opts *vm.Dict) (*vm.Dict, error)) {
	lib.Def(name, sig, doc,
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			d, err := dictArg(name, a, 0)
			if err != nil {
				return vm.Value{}, err
			}
			opts, err := lib.OptionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			r, err := run(th, name, d, opts)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.Of(r), nil
		})
}

func listArg(name string, a vm.Args, i int) (*vm.List, error) {
	if err := need(name, a, i); err != nil {
		return nil, err
	}
	l, ok := a.List(i)
	if !ok {
		return nil, vm.Runtimef("%s: expected list at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return l, nil
}

func stringArg(name string, a vm.Args, i int) (string, error) {
	if err := need(name, a, i); err != nil {
		return "", err
	}
	s, ok := a.At(i).AsString()
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return s.Go(), nil
}

// str is d[k] when it is a string.
func str(d *vm.Dict, k string) (string, bool) {
	v, ok := d.Get(k)
	if !ok {
		return "", false
	}
	s, ok := v.AsString()
	if !ok {
		return "", false
	}
	return s.Go(), true
}

// callCaught calls fn; a failure the script could catch comes back as
// its message (failed true), anything else (exit, cancellation) as err.
func callCaught(th *vm.Thread, fn vm.Value, args ...vm.Value) (res vm.Value, msg string, failed bool, err error) {
	res, err = th.Call(fn, args...)
	if err == nil {
		return res, "", false, nil
	}
	e := vm.AsError(err)
	if e == nil || e.Kind == vm.KindExit || e.Kind == vm.KindCancelled {
		return vm.Value{}, "", false, err
	}
	return vm.Nil, lib.Display(e.Caught()), true, nil
}

// score reads a check or metric result: a bool is 1 or 0 (passed as
// itself), a number is the score (passed when ≥ threshold), nil is a
// failure, and a dict {passed?, score?} gives either or both.
func score(v vm.Value, threshold float64) (float64, bool, bool) {
	if b, ok := v.AsBool(); ok {
		if b {
			return 1, true, true
		}
		return 0, false, true
	}
	if f, ok := lib.ToFloat(v); ok {
		return f, f >= threshold, true
	}
	if d, ok := v.AsDict(); ok {
		sv, hasScore := d.Get("score")
		pv, hasPass := d.Get("passed")
		var s float64
		if hasScore {
			f, ok := lib.ToFloat(sv)
			if !ok {
				return 0, false, false
			}
			s = f
		}
		if hasPass {
			p, ok := pv.AsBool()
			if !ok {
				return 0, false, false
			}
			if !hasScore {
				if p {
					s = 1
				}
			}
			return s, bool(p), true
		}
		if hasScore {
			return s, s >= threshold, true
		}
	}
	return 0, false, false
}

func threshold(name string, d *vm.Dict, def float64) (float64, error) {
	v, ok := d.Get("threshold")
	if !ok || v.IsNil() {
		return def, nil
	}
	f, ok := lib.ToFloat(v)
	if !ok {
		return 0, vm.Runtimef("%s: `threshold` must be a number, got %s", name, v.Type())
	}
	return f, nil
}
