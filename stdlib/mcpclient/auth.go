package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// Credentials of HTTP servers (docs/mcp-client.md, "Credentials"). A
// config's auth function gives them: a token string, or an OAuth token
// response {access_token | token, token_type?, expires_in?}. The client
// calls it when it connects and sends "Authorization: TYPE TOKEN" with
// every request; mcp_reauth_expired calls it again for the named servers
// whose credentials expired (expires_in elapsed, or the server answered
// HTTP 401 to them). Nothing refreshes them behind the script's back.

// credentials are what an auth function gave.
type credentials struct {
	header  string    // the Authorization value
	expires time.Time // zero: no expiry given
}

// fetchCredentials calls cfg's auth function with {server, url, reason}
// on a task of the script's VM.
func fetchCredentials(ctx context.Context, cfg *config, in *inputs, server, reason string) (credentials, error) {
	params := jsonv.NewObject(3)
	params.Set("server", server)
	params.Set("url", cfg.url)
	params.Set("reason", reason)
	v, err := in.call(ctx, cfg.auth, params)
	if err != nil {
		return credentials{}, err
	}
	return readCredentials(v, time.Now())
}

// readCredentials reads an auth function's answer.
func readCredentials(v any, now time.Time) (credentials, error) {
	const shape = "the auth function must return a token string or a dict {access_token | token, token_type?, expires_in?}"
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return credentials{}, fmt.Errorf("the auth function returned an empty token")
		}
		return credentials{header: "Bearer " + x}, nil
	case *jsonv.Object:
		token, _ := jsonv.Member[string](x, "access_token")
		if token == "" {
			token, _ = jsonv.Member[string](x, "token")
		}
		if strings.TrimSpace(token) == "" {
			return credentials{}, fmt.Errorf("%s; the dict has no access_token or token", shape)
		}
		kind := "Bearer"
		if t, ok := x.Get("token_type"); ok && t != nil {
			s, isStr := t.(string)
			if !isStr || strings.TrimSpace(s) == "" {
				return credentials{}, fmt.Errorf("%s; token_type must be a non-empty string", shape)
			}
			if !strings.EqualFold(s, "bearer") {
				kind = s
			}
		}
		c := credentials{header: kind + " " + token}
		if e, ok := x.Get("expires_in"); ok && e != nil {
			n, isNum := e.(json.Number)
			secs, ferr := n.Float64()
			if !isNum || ferr != nil || secs < 0 {
				return credentials{}, fmt.Errorf("%s; expires_in must be a number of seconds, at least 0", shape)
			}
			c.expires = now.Add(time.Duration(secs * float64(time.Second)))
		}
		return c, nil
	}
	return credentials{}, fmt.Errorf("%s, got %s", shape, jsonKind(v))
}

// jsonKind names a JSON value's kind for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case bool:
		return "a bool"
	case string:
		return "a string"
	case []any:
		return "a list"
	case *jsonv.Object:
		return "a dict"
	}
	return "a number"
}

// authExpired reports whether c's credentials need refreshing: c has an
// auth function and its credentials expired or were refused.
func (c *Client) authExpired(now time.Time) bool {
	ht, ok := c.s.t.(*httpTransport)
	if !ok || !vm.IsCallable(c.cfg.auth) {
		return false
	}
	return ht.credentialsExpired(now)
}

func mcpReauthExpired(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_reauth_expired"
	type due struct {
		name string
		c    *Client
	}
	now := time.Now()
	r := registryOf(th)
	r.mu.Lock()
	var list []due
	for name, e := range r.entries {
		if e.client != nil && e.client.alive() && e.client.authExpired(now) {
			list = append(list, due{name, e.client})
		}
	}
	r.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].name < list[j].name })
	var refreshed []string
	var failed []string
	err := blocking(th, func(ctx context.Context) error {
		for _, d := range list {
			creds, err := fetchCredentials(ctx, d.c.cfg, d.c.s.in, d.name, "expired")
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				failed = append(failed, fmt.Sprintf("%q: %s", d.name, errText(err)))
				continue
			}
			d.c.s.t.(*httpTransport).setCredentials(creds)
			refreshed = append(refreshed, d.name)
		}
		return nil
	})
	if err != nil {
		return vm.Value{}, failure(builtin, nil, err)
	}
	if len(failed) > 0 {
		return vm.Value{}, vm.Throwf("%s: cannot re-authenticate %s", builtin, strings.Join(failed, "; "))
	}
	return vm.Of(lib.StrList(refreshed)), nil
}

// errText is the message of an error: a Harn error as catch would
// receive it.
func errText(err error) string {
	if ve, ok := err.(*vm.Error); ok {
		return vm.ToDisplay(ve.Caught())
	}
	return err.Error()
}
