// Package errcat is the one classification of errors into the categories
// of docs/spec/builtins.md §3.3 (timeout, auth, rate_limit, …): by HTTP
// status, and by the text-matching heuristic error_category, is_timeout
// and is_rate_limited apply to strings, which LLM failures (mocked
// `error:` strings, provider stream errors, wrapped throws) use too.
package errcat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
)

// Categories are the error categories of docs/spec/builtins.md §3.3, and
// those the runtime itself raises as "Error [category]: msg": a failed
// non-null assertion `x!` (unwrap_nil, docs/spec/newer.md §1.4) and a
// deadlock (docs/concurrency.md), so a caught one is classified by its
// category instead of "generic".
var Categories = []string{
	"timeout", "auth", "rate_limit", "overloaded", "server_error",
	"transient_network", "schema_validation", "tool_error", "tool_rejected",
	"egress_blocked", "cancelled", "not_found", "circuit_open",
	"budget_exceeded", "generic",
	"unwrap_nil", "deadlock",
}

// IsCategory reports whether s is one of Categories.
func IsCategory(s string) bool { return slices.Contains(Categories, s) }

// textStatuses are the 3-digit numbers the heuristic maps (any other
// number is skipped, docs/spec/builtins.md §3.3).
var textStatuses = map[string]string{
	"401": "auth", "403": "auth",
	"404": "not_found", "410": "not_found",
	"408": "timeout", "504": "timeout", "522": "timeout", "524": "timeout",
	"429": "rate_limit",
	"503": "overloaded", "529": "overloaded",
	"500": "server_error", "502": "server_error",
}

// markers are checked in order, case-sensitively.
var markers = []struct{ marker, category string }{
	{"Deadline exceeded", "timeout"},
	{"overloaded_error", "overloaded"},
	{"api_error", "server_error"},
	{"insufficient_quota", "rate_limit"},
	{"billing_hard_limit_reached", "rate_limit"},
	{"invalid_api_key", "auth"},
	{"authentication_error", "auth"},
	{"not_found_error", "not_found"},
	{"model_not_found", "not_found"},
	{"circuit_open", "circuit_open"},
}

// networkMarkers are matched case-insensitively.
var networkMarkers = []string{
	"connection reset", "connection refused", "connection closed",
	"broken pipe", "dns error", "stream error", "unexpected eof",
}

// OfText is the heuristic classification of an error string
// (docs/spec/builtins.md §3.3): the first 3-digit number not adjacent to
// other digits that maps, then the provider markers, then network
// failures, else "generic". A caught categorized error reads
// "Error [category]: msg" (docs/spec/builtins.md §0); when its category is
// one of §3.3's it is the answer, so `is_timeout(e)` holds for a
// builtin's timeout error whatever its message says (this
// implementation's extension of the heuristic).
func OfText(s string) string {
	if rest, ok := strings.CutPrefix(s, "Error ["); ok {
		if cat, _, ok := strings.Cut(rest, "]: "); ok && IsCategory(cat) {
			return cat
		}
	}
	for i := 0; i < len(s); {
		if !lib.ASCIIDigit(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && lib.ASCIIDigit(s[j]) {
			j++
		}
		if j-i == 3 {
			if c, ok := textStatuses[s[i:j]]; ok {
				return c
			}
		}
		i = j
	}
	for _, m := range markers {
		if strings.Contains(s, m.marker) {
			return m.category
		}
	}
	lower := strings.ToLower(s)
	for _, m := range networkMarkers {
		if strings.Contains(lower, m) {
			return "transient_network"
		}
	}
	return "generic"
}

// OfStatus is the category of a response's HTTP status: the mapped codes
// of the heuristic, and any other 5xx a server_error (a status known to
// be one, unlike a number met in text); "generic" otherwise.
func OfStatus(code int) string {
	if c, ok := textStatuses[strconv.Itoa(code)]; ok {
		return c
	}
	if code >= 500 && code <= 599 {
		return "server_error"
	}
	return "generic"
}
