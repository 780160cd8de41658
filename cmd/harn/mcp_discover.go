//go:build !harnlite

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/jsonv"
)

// `harn mcp discover`: the client side of /.well-known/mcp.json
// (docs/spec/orchestrator.md §8) and, when the server is OAuth-protected, of its
// RFC 9728 protected-resource metadata.

const mcpDiscoverHelp = `Usage: harn mcp discover URL [--json] [--timeout DURATION]

Fetch URL/.well-known/mcp.json, the discovery document of an HTTP MCP
server, and, when it names one (authorization.resourceMetadata), the RFC 9728
protected-resource metadata that says which authorization servers protect the
endpoint. URL is the server's origin (http://127.0.0.1:8765), or the full
discovery URL; a URL without a scheme gets http://. When URL has a path and
nothing is found under it, the origin's /.well-known/mcp.json is tried.

  --json      print one JSON object {"url","mcp","protectedResource"}
              (protectedResource is null when the server does not use OAuth);
              otherwise print "key: value" lines, nested keys joined with dots
  --timeout   limit for each request (default 10s)

Exit status: 0 on success, 1 when a request fails or a document is not a
JSON object (the message is printed to stderr as "error: ..."), 2 on a usage
error.
`

const wellKnownMCP = "/.well-known/mcp.json"

// maxDiscoveryBody bounds each fetched document.
const maxDiscoveryBody = 4 << 20

func init() {
	commandHelp["mcp discover"] = mcpDiscoverHelp
}

func mcpDiscover(args []string, stdout, stderr io.Writer) int {
	asJSON := false
	timeout := 10 * time.Second
	var target string
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "error: "+format+"\n\n%s", append(a, mcpDiscoverHelp)...)
		return 2
	}
	for i := 0; i < len(args); i++ {
		name, _, hasVal := strings.Cut(args[i], "=")
		switch {
		case name == "--help" || name == "-h":
			fmt.Fprint(stdout, mcpDiscoverHelp)
			return 0
		case name == "--json" && !hasVal:
			asJSON = true
		case name == "--timeout":
			val, last, err := flagValue(args, i)
			if err != nil {
				return usage("%v", err)
			}
			i = last
			d, err := time.ParseDuration(val)
			if err != nil || d <= 0 {
				return usage("--timeout: %q is not a positive duration such as 5s", val)
			}
			timeout = d
		case strings.HasPrefix(args[i], "-") && args[i] != "-":
			return usage("unknown option %s", args[i])
		case target != "":
			return usage("discover takes one URL")
		default:
			target = args[i]
		}
	}
	if target == "" {
		return usage("discover needs the server's URL")
	}
	client := &http.Client{Timeout: timeout}
	d, err := discover(context.Background(), client, target)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	for _, w := range d.warnings() {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	if asJSON {
		out := jsonv.NewObject(3)
		out.Set("url", d.url)
		out.Set("mcp", d.mcp)
		if d.protectedResource != nil {
			out.Set("protectedResource", d.protectedResource)
		} else {
			out.Set("protectedResource", nil)
		}
		stdout.Write(append(jsonv.Marshal(out), '\n'))
		return 0
	}
	var b strings.Builder
	fmt.Fprintf(&b, "url: %s\n", d.url)
	fmt.Fprintf(&b, "discovery: %s\n", d.discoveryURL)
	flatten(&b, "mcp", d.mcp)
	if d.protectedResource != nil {
		fmt.Fprintf(&b, "protected_resource_metadata: %s\n", d.metadataURL)
		flatten(&b, "protectedResource", d.protectedResource)
	} else {
		b.WriteString("protectedResource: none\n")
	}
	io.WriteString(stdout, b.String())
	return 0
}

// discovery is what discover found.
type discovery struct {
	url               string // the server URL, with a scheme
	discoveryURL      string // where the discovery document was found
	mcp               *jsonv.Object
	metadataURL       string        // "" when the document names none
	protectedResource *jsonv.Object // nil when the document names none
}

func discover(ctx context.Context, client *http.Client, target string) (*discovery, error) {
	if !strings.Contains(target, "://") {
		target = "http://" + target
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q is not an http(s) URL", target)
	}
	d := &discovery{url: target}
	var lastErr error
	for _, candidate := range discoveryURLs(u) {
		doc, status, err := fetchJSON(ctx, client, candidate)
		if err == nil {
			d.discoveryURL, d.mcp = candidate, doc
			break
		}
		lastErr = err
		if status != http.StatusNotFound {
			break
		}
	}
	if d.mcp == nil {
		return nil, lastErr
	}
	auth, _ := d.mcp.Get("authorization")
	authObj, _ := auth.(*jsonv.Object)
	if authObj == nil {
		return d, nil
	}
	rm, _ := authObj.Get("resourceMetadata")
	rmURL, ok := rm.(string)
	if !ok || rmURL == "" {
		return d, nil
	}
	base, _ := url.Parse(d.discoveryURL)
	ref, err := url.Parse(rmURL)
	if err != nil {
		return nil, fmt.Errorf("%s: authorization.resourceMetadata %q is not a URL", d.discoveryURL, rmURL)
	}
	d.metadataURL = base.ResolveReference(ref).String()
	if d.protectedResource, _, err = fetchJSON(ctx, client, d.metadataURL); err != nil {
		return nil, err
	}
	return d, nil
}

// warnings are the misalignments the seed asks operators to fix: the
// published endpoint and resource must be the public URL the client
// used, or OAuth clients ask for tokens the server will refuse.
func (d *discovery) warnings() []string {
	var out []string
	endpoint, _ := d.mcp.Get("endpoint")
	ep, _ := endpoint.(string)
	asked, _ := url.Parse(d.discoveryURL)
	if eu, err := url.Parse(ep); ep != "" && err == nil && asked != nil && !strings.EqualFold(eu.Host, asked.Host) {
		out = append(out, fmt.Sprintf("the published endpoint %s is not on %s, the origin you asked; behind a proxy, forward X-Forwarded-Proto and X-Forwarded-Host", ep, asked.Scheme+"://"+asked.Host))
	}
	if d.protectedResource != nil {
		resource, _ := d.protectedResource.Get("resource")
		if r, _ := resource.(string); ep != "" && r != ep {
			out = append(out, fmt.Sprintf("the protected resource %q is not the endpoint %q; clients will request tokens for %q", r, ep, r))
		}
	}
	return out
}

// discoveryURLs lists where the discovery document may be: the URL
// itself when it already names it, else under the URL, then at the
// origin (well-known URIs live at the root, RFC 8615).
func discoveryURLs(u *url.URL) []string {
	if strings.HasSuffix(u.Path, wellKnownMCP) {
		return []string{u.String()}
	}
	origin := u.Scheme + "://" + u.Host
	path := strings.TrimRight(u.EscapedPath(), "/")
	if path == "" {
		return []string{origin + wellKnownMCP}
	}
	return []string{origin + path + wellKnownMCP, origin + wellKnownMCP}
}

// fetchJSON GETs a JSON object; status is the HTTP status when one was
// received.
func fetchJSON(ctx context.Context, client *http.Client, u string) (*jsonv.Object, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("GET %s: %v", u, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "harn/"+version)
	resp, err := client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) && uerr.Timeout() {
			return nil, 0, fmt.Errorf("GET %s: timed out after %s", u, client.Timeout)
		}
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return nil, 0, fmt.Errorf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDiscoveryBody+1))
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: %v", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: HTTP %s", u, resp.Status)
	}
	if len(body) > maxDiscoveryBody {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: response larger than %d bytes", u, maxDiscoveryBody)
	}
	v, err := jsonv.Parse(body)
	if err != nil {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: response is not JSON: %v", u, err)
	}
	obj, ok := v.(*jsonv.Object)
	if !ok {
		return nil, resp.StatusCode, fmt.Errorf("GET %s: response is a JSON %s, not an object", u, jsonv.TypeName(v))
	}
	return obj, resp.StatusCode, nil
}

// flatten writes v as "key: value" lines: nested object keys joined
// with dots, lists of scalars joined with ", ", lists of objects indexed.
func flatten(b *strings.Builder, key string, v any) {
	switch v := v.(type) {
	case *jsonv.Object:
		if v.Len() == 0 {
			fmt.Fprintf(b, "%s: {}\n", key)
		}
		v.Range(func(k string, e any) bool {
			flatten(b, key+"."+k, e)
			return true
		})
	case []any:
		scalars := make([]string, 0, len(v))
		for _, e := range v {
			switch e.(type) {
			case *jsonv.Object, []any:
				for i, e := range v {
					flatten(b, fmt.Sprintf("%s.%d", key, i), e)
				}
				return
			}
			scalars = append(scalars, scalarText(e))
		}
		fmt.Fprintf(b, "%s: %s\n", key, strings.Join(scalars, ", "))
	default:
		fmt.Fprintf(b, "%s: %s\n", key, scalarText(v))
	}
}

func scalarText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return string(jsonv.Marshal(v))
}
