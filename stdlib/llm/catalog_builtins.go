package llm

import (
	"sort"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The model catalog builtins (docs/llm.md, "Model catalog"): the models
// of the built-in table, their tiers and prices, and a pick by tier among
// the providers that are set up.

var tiers = []string{"small", "mid", "frontier"}

func init() {
	lib.Def("llm_known_models", "llm_known_models(provider?) -> list<string>", "the ids of the catalog's models (of one provider), sorted", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		want := ""
		if a.Given(0) && !a.At(0).IsNil() {
			want = strings.ToLower(a.Text(0))
			if _, ok := providerByName(want); !ok {
				return vm.Value{}, vm.Throwf("llm_known_models: unknown provider %q (known: %s)", want, providerNames())
			}
		}
		var ids []string
		for _, m := range models {
			if want == "" || m.provider == want {
				ids = append(ids, m.id)
			}
		}
		sort.Strings(ids)
		return vm.Of(lib.StrList(ids)), nil
	})
	lib.Def("llm_model_info", "llm_model_info(model) -> dict?", "{id, provider, aliases, tier, input_per_mtok, output_per_mtok} of a catalog model or alias, or nil", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, ok := findModel(a.Text(0))
		if !ok {
			return vm.Nil, nil
		}
		price := func(p float64) vm.Value {
			if m.in == 0 && m.out == 0 {
				return vm.Nil
			}
			return vm.FloatOf(p)
		}
		aliases := append([]string{}, m.aliases...)
		return vm.Of(lib.DictOf("id", vm.Str(m.id), "provider", vm.Str(m.provider), "aliases", lib.StrList(aliases),
			"tier", vm.Str(m.tier), "input_per_mtok", price(m.in), "output_per_mtok", price(m.out))), nil
	})
	lib.Def("llm_model_tier", "llm_model_tier(model) -> string?", `the tier of a catalog model: "small", "mid" or "frontier"; nil when unknown`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		m, ok := findModel(a.Text(0))
		if !ok {
			return vm.Nil, nil
		}
		return vm.Str(m.tier), nil
	})
	lib.Def("llm_available_providers", "llm_available_providers() -> list<string>", "the providers a call can use now: those whose API key is set, ollama when OLLAMA_BASE_URL is set, mock while llm_mock is armed", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(lib.StrList(available(th))), nil
	})
	lib.Def("llm_pick_model", "llm_pick_model(options?) -> string?", `a catalog model id for {tier?: "small"|"mid"|"frontier" (default mid), provider?}; nil when none fits`, func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		tier, want := "mid", ""
		d, err := lib.OptionsArg("llm_pick_model", a, 0)
		if err != nil {
			return vm.Value{}, err
		}
		if err := lib.CheckOptions("llm_pick_model", d, []string{"tier", "provider"}); err != nil {
			return vm.Value{}, err
		}
		if v, ok := d.Get("tier"); ok && !v.IsNil() {
			tier = strings.ToLower(vm.ToDisplay(v))
			if _, isStr := v.AsString(); !isStr || !contains(tiers, tier) {
				return vm.Value{}, vm.Throwf("llm_pick_model: tier must be small, mid or frontier, got %s", lib.Shown(v))
			}
		}
		if v, ok := d.Get("provider"); ok && !v.IsNil() {
			want = strings.ToLower(vm.ToDisplay(v))
			if _, ok := providerByName(want); !ok {
				return vm.Value{}, vm.Throwf("llm_pick_model: unknown provider %q (known: %s)", want, providerNames())
			}
		}
		candidates := []string{want}
		if want == "" {
			candidates = available(th)
		}
		for _, p := range candidates {
			for _, m := range models {
				if m.provider == p && m.tier == tier {
					return vm.Str(m.id), nil
				}
			}
		}
		return vm.Nil, nil
	})
}

// available lists the providers a call can use now, in table order.
func available(th *vm.Thread) []string {
	var out []string
	for _, p := range providers {
		switch {
		case p.api == "mock":
			if stateOf(th).armed() {
				out = append(out, p.name)
			}
		case p.keyEnv == "":
			if env(p.baseEnv) != "" {
				out = append(out, p.name)
			}
		case env(p.keyEnv) != "":
			out = append(out, p.name)
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}
