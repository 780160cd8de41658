package mcpclient

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/tool"
	"github.com/harnlang/harn/vm"
)

// mcp_server_card: the discovery document an HTTP MCP server publishes
// before any connection. Harn's orchestrator (`harn mcp serve`) serves
// /.well-known/mcp.json (docs/spec/orchestrator.md §8, the document
// `harn mcp discover` reads); `harn serve mcp --card` serves its card at
// /.well-known/mcp-card (docs/spec/mcp-projection.md §12) and embeds it
// in serverInfo.card.

const (
	wellKnownMCP  = "/.well-known/mcp.json"
	wellKnownCard = "/.well-known/mcp-card"
	maxCard       = 4 << 20
)

// cardURLs lists where a server's card may be, in order: the URL itself
// when it names a well-known document; else under the URL's path, then
// at the origin (RFC 8615 puts well-known documents at the root), each
// as mcp.json and then mcp-card.
func cardURLs(u *url.URL) []string {
	if strings.Contains(u.Path, "/.well-known/") {
		return []string{u.String()}
	}
	origin := u.Scheme + "://" + u.Host
	var out []string
	if p := strings.TrimRight(u.Path, "/"); p != "" {
		out = append(out, origin+p+wellKnownMCP, origin+p+wellKnownCard)
	}
	return append(out, origin+wellKnownMCP, origin+wellKnownCard)
}

// fetchCard GETs candidate URLs until one answers 200 with a JSON
// object; a status other than 404 stops the search.
func fetchCard(ctx context.Context, client *http.Client, target string, headers map[string]string) (*jsonv.Object, error) {
	if !strings.Contains(target, "://") {
		target = "http://" + target
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", target)
	}
	var first error
	for _, candidate := range cardURLs(u) {
		doc, status, err := getJSON(ctx, client, candidate, headers)
		if err == nil {
			return doc, nil
		}
		if first == nil {
			first = err
		}
		if status != http.StatusNotFound {
			return nil, err
		}
	}
	return nil, first
}

func getJSON(ctx context.Context, client *http.Client, target string, headers map[string]string) (*jsonv.Object, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %v", target, err)
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if e, ok := err.(*url.Error); ok {
			ue = e
			err = ue.Err
		}
		return nil, 0, fmt.Errorf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: HTTP %s", target, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxCard+1))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: %v", target, err)
	}
	if len(body) > maxCard {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: the document is larger than %d bytes", target, maxCard)
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: the document is not JSON: %v", target, err)
	}
	o, ok := v.(*jsonv.Object)
	if !ok {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: the document is not a JSON object", target)
	}
	return o, resp.StatusCode, nil
}

func mcpServerCard(th *vm.Thread, a vm.Args) (vm.Value, error) {
	const builtin = "mcp_server_card"
	timeout := 10 * time.Second
	var headers map[string]string
	if a.Given(1) && !a.At(1).IsNil() {
		opts, ok := a.Dict(1)
		if !ok {
			return vm.Value{}, lib.BadOptions(builtin, a.At(1))
		}
		if err := lib.CheckOptions(builtin, opts, []string{"headers", "timeout"}); err != nil {
			return vm.Value{}, err
		}
		if v, ok := opts.Get("timeout"); ok && !v.IsNil() {
			t, err := timeoutOf(builtin, v)
			if err != nil {
				return vm.Value{}, err
			}
			timeout = t
		}
		if v, ok := opts.Get("headers"); ok && !v.IsNil() {
			h, err := stringDict(builtin, "headers", v)
			if err != nil {
				return vm.Value{}, err
			}
			headers = h
		}
	}
	var target string
	switch x := a.At(0).Object().(type) {
	case *Client:
		// A connected server: the card its serverInfo embeds, else
		// (HTTP) the one its origin publishes.
		if card, ok := x.s.serverInfo.Get("card"); ok && card != nil {
			return tool.FromJSON(card), nil
		}
		if x.cfg.url == "" {
			return vm.Nil, nil
		}
		target = x.cfg.url
		if headers == nil {
			headers = x.cfg.headers
		}
	default:
		s, ok := a.Str(0)
		if !ok || strings.TrimSpace(s) == "" {
			return vm.Value{}, argErr(builtin, "expected the server's URL or an MCP client, got %s", a.At(0).Type())
		}
		target = strings.TrimSpace(s)
	}
	if err := lib.CheckEgress(th, target); err != nil {
		return vm.Value{}, err
	}
	doc, err := fetchCardWithin(th, target, headers, timeout)
	if err != nil {
		return vm.Value{}, failure(builtin, nil, err)
	}
	return tool.FromJSON(doc), nil
}

// fetchCardWithin fetches target's discovery document off the VM lock,
// giving up after timeout.
func fetchCardWithin(th *vm.Thread, target string, headers map[string]string, timeout time.Duration) (*jsonv.Object, error) {
	var doc *jsonv.Object
	err := blocking(th, func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var ferr error
		doc, ferr = fetchCard(ctx, &http.Client{}, target, headers)
		if ferr != nil && ctx.Err() == context.DeadlineExceeded {
			return fmt.Errorf("GET %s: timed out after %s", target, vm.FormatDuration(timeout.Milliseconds()))
		}
		return ferr
	})
	return doc, err
}
