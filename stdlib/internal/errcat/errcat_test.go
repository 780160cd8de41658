package errcat

import "testing"

// Every category the text heuristic gives, and the cases around its rules
// (docs/spec/builtins.md §3.3).
func TestOfText(t *testing.T) {
	cases := []struct{ text, want string }{
		// statuses
		{"HTTP 401 unauthorized", "auth"},
		{"403", "auth"},
		{"HTTP 404", "not_found"},
		{"gone: 410", "not_found"},
		{"408 request timeout", "timeout"},
		{"504", "timeout"},
		{"522", "timeout"},
		{"524", "timeout"},
		{"HTTP 429: slow down", "rate_limit"},
		{"HTTP429", "rate_limit"}, // adjacent letters are fine, digits are not
		{"503 service unavailable", "overloaded"},
		{"529", "overloaded"},
		{"500", "server_error"},
		{"502 bad gateway", "server_error"},
		{"HTTP 501 from the proxy", "generic"}, // a number that does not map is skipped
		{"error 501 then 429", "rate_limit"},
		{"code 4290", "generic"},            // four digits
		{"1429", "generic"},                 // adjacent to another digit
		{"HTTP 404 after 429", "not_found"}, // the first that maps wins
		{"HTTP 200 ok", "generic"},
		// markers, case-sensitive
		{"Deadline exceeded", "timeout"},
		{"deadline exceeded", "generic"},
		{"overloaded_error: busy", "overloaded"},
		{"api_error", "server_error"},
		{"insufficient_quota", "rate_limit"},
		{"billing_hard_limit_reached", "rate_limit"},
		{"invalid_api_key", "auth"},
		{"authentication_error", "auth"},
		{"not_found_error", "not_found"},
		{"model_not_found", "not_found"},
		{"circuit_open for provider", "circuit_open"},
		// network, case-insensitive
		{"Connection Reset by peer", "transient_network"},
		{"connection refused", "transient_network"},
		{"connection closed", "transient_network"},
		{"BROKEN PIPE", "transient_network"},
		{"dns error: no such host", "transient_network"},
		{"stream error", "transient_network"},
		{"Unexpected EOF", "transient_network"},
		// a status beats a marker, a marker beats the network markers
		{"overloaded_error 429", "rate_limit"},
		{"api_error: connection reset", "server_error"},
		// a categorized error's prefix
		{"Error [timeout]: took too long", "timeout"},
		{"Error [budget_exceeded]: over", "budget_exceeded"},
		{"Error [nonsense]: 429", "rate_limit"},
		// not the reference's markers
		{"timeout", "generic"},
		{"rate limit exceeded", "generic"},
		{"overloaded", "generic"},
		{"something odd", "generic"},
		{"", "generic"},
	}
	for _, c := range cases {
		if got := OfText(c.text); got != c.want {
			t.Errorf("OfText(%q) = %s, want %s", c.text, got, c.want)
		}
	}
}

func TestOfStatus(t *testing.T) {
	cases := map[int]string{
		401: "auth", 403: "auth", 404: "not_found", 410: "not_found",
		408: "timeout", 504: "timeout", 522: "timeout", 524: "timeout",
		429: "rate_limit", 503: "overloaded", 529: "overloaded",
		500: "server_error", 502: "server_error", 501: "server_error", 599: "server_error",
		400: "generic", 200: "generic", 0: "generic", 1000: "generic",
	}
	for code, want := range cases {
		if got := OfStatus(code); got != want {
			t.Errorf("OfStatus(%d) = %s, want %s", code, got, want)
		}
	}
}

func TestIsCategory(t *testing.T) {
	for _, c := range Categories {
		if !IsCategory(c) {
			t.Errorf("%s is not a category", c)
		}
	}
	if IsCategory("nonsense") || len(Categories) != 17 {
		t.Errorf("categories: %v", Categories)
	}
}
