package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// introspector asks an RFC 7662 endpoint whether an opaque token is
// active and what it grants.
type introspector struct {
	url          string
	clientID     string
	clientSecret string
	bearer       string // takes precedence over the client credentials
	client       *http.Client
}

// introspect returns the token's claims, or the failure to report.
func (in *introspector) introspect(ctx context.Context, token string) (claims, *failure) {
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	if in.bearer == "" && in.clientID != "" && in.clientSecret == "" {
		form.Set("client_id", in.clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, in.url, strings.NewReader(form.Encode()))
	if err != nil {
		return claims{}, unavailable(fmt.Errorf("introspection: %v", err))
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	switch {
	case in.bearer != "":
		req.Header.Set("Authorization", "Bearer "+in.bearer)
	case in.clientSecret != "":
		// RFC 6749 §2.3.1: form-encode the parts before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(in.clientID), url.QueryEscape(in.clientSecret))
	}
	resp, err := in.client.Do(req)
	if err != nil {
		return claims{}, unavailable(fmt.Errorf("introspection: %v", err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIntrospectionBody))
	if err != nil {
		return claims{}, unavailable(fmt.Errorf("introspection: %v", err))
	}
	if resp.StatusCode != http.StatusOK {
		return claims{}, unavailable(fmt.Errorf("introspection: HTTP %d", resp.StatusCode))
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		return claims{}, unavailable(fmt.Errorf("introspection: response is not a JSON object: %v", err))
	}
	if active, _ := doc["active"].(bool); !active {
		return claims{}, invalidToken("access token is inactive")
	}
	now := time.Now()
	// exp and nbf are optional in RFC 7662; one that is not a number
	// (the authorization server's own bug) is not judged.
	if exp, _, ok := numericDate(doc, "exp"); ok && !now.Before(exp) {
		return claims{}, invalidToken("access token is expired")
	}
	if nbf, _, ok := numericDate(doc, "nbf"); ok && now.Before(nbf) {
		return claims{}, invalidToken("access token is not yet valid")
	}
	return claimsOf(doc), nil
}
