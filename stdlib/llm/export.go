package llm

import (
	"slices"
	"strings"

	"github.com/harnlang/harn/vm"
)

// The Go API other library areas build on (stdlib/agents, stdlib/transcripts):
// one call with llm_call's arguments and response dict, the token estimate
// of estimate_tokens, and the option keys a call reads.

// Call runs one LLM call exactly as llm_call(prompt, system, options)
// does (mocks, providers, usage, budget) and returns its response dict;
// fn names the calling builtin in error messages.
func Call(th *vm.Thread, fn string, prompt, system, options vm.Value) (vm.Value, error) {
	r, err := newRequest(th, fn, prompt, system, options)
	if err != nil {
		return vm.Value{}, err
	}
	resp, _, err := call(th, r)
	if err != nil {
		return vm.Value{}, err
	}
	return resp.value(), nil
}

// EstimateTokens is estimate_tokens(v): one token per four characters of
// a text, of a message dict's content, or summed over a list.
func EstimateTokens(v vm.Value) int64 { return tokensOf(v) }

// OptionKeys are the option keys llm_call reads (docs/llm.md, Options).
func OptionKeys() []string { return slices.Clone(knownOptions) }

// IsNoProvider reports whether err is Call's failure for a run with no
// provider configured and no mock armed (callers fall back to something
// that needs no model, as command_llm_risk_scan does).
func IsNoProvider(err error) bool {
	return err != nil && strings.Contains(err.Error(), noProviderText)
}
