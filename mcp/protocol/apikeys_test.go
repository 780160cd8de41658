package protocol

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func TestAPIKeysMatch(t *testing.T) {
	keys := NewAPIKeys([]string{"k1", "second-key"})
	cases := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"none", nil, 0},
		{"x-api-key", map[string]string{"X-API-Key": "k1"}, 1},
		{"bearer", map[string]string{"Authorization": "Bearer second-key"}, 2},
		{"scheme in any case, space trimmed", map[string]string{"Authorization": "  bearer   k1 "}, 1},
		{"another scheme", map[string]string{"Authorization": "Basic k1"}, 0},
		{"wrong key", map[string]string{"X-API-Key": "k2"}, 0},
		{"a prefix of a key", map[string]string{"X-API-Key": "second"}, 0},
		{"one of two presented is right", map[string]string{"X-API-Key": "nope", "Authorization": "Bearer k1"}, 1},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/mcp", nil)
		for k, v := range c.headers {
			r.Header.Set(k, v)
		}
		if got := keys.Match(r); got != c.want {
			t.Errorf("%s: Match = %d, want %d", c.name, got, c.want)
		}
	}
	if NewAPIKeys(nil).Len() != 0 || keys.Len() != 2 {
		t.Error("Len")
	}
}

func TestParseAPIKeys(t *testing.T) {
	keys, err := ParseAPIKeys("KEYS", " k1 ,, k2,")
	if err != nil || len(keys) != 2 || keys[0] != "k1" || keys[1] != "k2" {
		t.Errorf("keys %q, %v", keys, err)
	}
	for _, list := range []string{"", " ", " , ", ",,"} {
		if _, err := ParseAPIKeys("KEYS", list); err == nil || !strings.HasPrefix(err.Error(), "KEYS holds no API key") {
			t.Errorf("%q: %v", list, err)
		}
	}
}
