package protocol

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// APIKeys are the API keys an HTTP server accepts. Each is held as its
// SHA-256, so comparing takes the same time whatever the length of the
// presented value. Both servers' authenticators match with it and answer
// a refusal in their own way (docs/spec/mcp-projection.md §12,
// docs/spec/orchestrator.md §9).
type APIKeys struct{ digests [][sha256.Size]byte }

// NewAPIKeys holds keys, in order.
func NewAPIKeys(keys []string) APIKeys {
	var k APIKeys
	for _, key := range keys {
		k.digests = append(k.digests, sha256.Sum256([]byte(key)))
	}
	return k
}

// ParseAPIKeys splits a comma-separated key list given by source (an
// environment variable or a flag, named in the error), trimming blanks
// and skipping blank segments (docs/spec/orchestrator.md §9). A list
// that holds no key ("", " , ") is an error: whoever sets the variable
// or passes the flag means to require keys, and serving without
// authentication instead is never what they meant. (An environment
// variable that is unset or empty is not parsed at all.)
func ParseAPIKeys(source, list string) ([]string, error) {
	var keys []string
	for _, k := range strings.Split(list, ",") {
		if k = strings.TrimSpace(k); k != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s holds no API key (%q); give one or more keys separated by commas", source, list)
	}
	return keys, nil
}

// Len is the number of keys.
func (k APIKeys) Len() int { return len(k.digests) }

// Match returns the 1-based position of the key that r presents in
// X-API-Key or as an Authorization: Bearer token, or 0. Every key is
// compared with every presented value, so the time taken reveals neither
// which key matched nor how long the keys are.
func (k APIKeys) Match(r *http.Request) int {
	var presented [][sha256.Size]byte
	if v := r.Header.Get("X-Api-Key"); v != "" {
		presented = append(presented, sha256.Sum256([]byte(v)))
	}
	if v, ok := BearerToken(r); ok {
		presented = append(presented, sha256.Sum256([]byte(v)))
	}
	match := 0
	for _, p := range presented {
		for i, d := range k.digests {
			if subtle.ConstantTimeCompare(p[:], d[:]) == 1 && match == 0 {
				match = i + 1
			}
		}
	}
	return match
}

// BearerToken returns the credentials of an `Authorization: Bearer`
// header (scheme case-insensitive, surrounding space trimmed).
func BearerToken(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	scheme, rest, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token := strings.TrimSpace(rest)
	return token, token != ""
}
