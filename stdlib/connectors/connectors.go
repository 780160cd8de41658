package connectors

// connector_call (docs/spec/builtins.md §5, Connectors/events; the design is
// this implementation's, docs/connectors.md): one method of an outbound
// service. A connector is a base URL, an optional token and headers; a
// method is a route "VERB /path/{param}" or a name the project gives one.
// The request goes through stdlib/net's client, so http_mock answers it in
// tests and HTTP error statuses are results, as for http_get.

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	"github.com/harnlang/harn/stdlib/net"
	"github.com/harnlang/harn/stdlib/process"
	"github.com/harnlang/harn/vm"
)

const name = "connector_call"

func init() {
	lib.Def(name, "connector_call(provider: string, method: string, params?, options?: dict)",
		"call one method of a connector (a route \"VERB /path/{param}\" or a name from [connectors.PROVIDER.methods] in harn.toml) through the HTTP client and its mocks: {status, ok, headers, data}, data parsed from JSON when the answer is JSON",
		call)
}

// connector is one provider's resolved configuration: built-in defaults,
// then the project's [connectors.NAME] table, then the call's options.
type connector struct {
	provider   string
	baseURL    string
	secret     string // "provider/name" read as secret_get reads it
	needSecret bool   // the secret was named explicitly: unset is an error
	token      string // options.token, which beats the secret
	authHeader string
	authScheme string
	headers    map[string]string
	timeoutMs  float64
	methods    map[string]string
}

// builtin are the providers that work without configuration. Their
// secrets are optional: GitHub answers public reads without a token.
var builtin = map[string]connector{
	"github": {
		baseURL: "https://api.github.com",
		secret:  "github/token",
		headers: map[string]string{"accept": "application/vnd.github+json", "x-github-api-version": "2022-11-28"},
	},
	"slack": {
		baseURL: "https://slack.com/api",
		secret:  "slack/token",
	},
}

// fields are the keys of a [connectors.NAME] table; options also take token.
var fields = []string{"auth_header", "auth_scheme", "base_url", "headers", "methods", "secret", "timeout_ms"}

func call(th *vm.Thread, a vm.Args) (vm.Value, error) {
	provider, ok := a.At(0).AsString()
	if !ok {
		return vm.Value{}, vm.Typef("%s: provider must be a string, got %s", name, a.At(0).Type())
	}
	method, ok := a.At(1).AsString()
	if !ok {
		return vm.Value{}, vm.Typef("%s: method must be a string, got %s", name, a.At(1).Type())
	}
	params := vm.NewDict()
	if a.Given(2) && !a.At(2).IsNil() {
		if params, ok = a.At(2).AsDict(); !ok {
			return vm.Value{}, vm.Typef("%s: params must be a dict, got %s", name, a.At(2).Type())
		}
	}
	var opts *vm.Dict
	if a.Given(3) && !a.At(3).IsNil() {
		if opts, ok = a.At(3).AsDict(); !ok {
			return vm.Value{}, lib.BadOptions(name, a.At(3))
		}
	}
	c, err := resolve(th, provider.Go(), opts)
	if err != nil {
		return vm.Value{}, err
	}
	verb, path, err := c.route(method.Go())
	if err != nil {
		return vm.Value{}, err
	}
	path, rest, err := expand(path, params)
	if err != nil {
		return vm.Value{}, vm.Throwf("%s: %s %s: %s", name, c.provider, method.Go(), err)
	}
	reqOpts, err := c.requestOptions()
	if err != nil {
		return vm.Value{}, err
	}
	body := vm.Nil
	if rest.Len() > 0 {
		switch verb {
		case "GET", "HEAD", "DELETE":
			reqOpts.Set("query", vm.Of(rest))
		default:
			body = vm.Of(rest)
		}
	}
	res, raw, err := net.Exchange(th, verb, strings.TrimRight(c.baseURL, "/")+path, body, reqOpts.Build())
	if err != nil {
		return vm.Value{}, err
	}
	status, _ := res.Get("status")
	okv, _ := res.Get("ok")
	headers, _ := res.Get("headers")
	return vm.Of(lib.DictOf("status", status, "ok", okv, "headers", headers, "data", answer(verb, headers, raw))), nil
}

// resolve builds the provider's connector from the defaults, harn.toml
// and the options, in that order; a provider without a base URL is an
// error that says where to declare one.
func resolve(th *vm.Thread, provider string, opts *vm.Dict) (*connector, error) {
	if provider == "" {
		return nil, vm.Throwf("%s: provider must not be empty", name)
	}
	c := builtin[provider]
	c.provider = provider
	c.headers = copyMap(c.headers)
	c.methods = map[string]string{}
	table, where, err := manifestTable(th, provider)
	if err != nil {
		return nil, err
	}
	if table != nil {
		if err := c.apply(where, table, false); err != nil {
			return nil, vm.Throwf("%s: %v", name, err)
		}
	}
	if opts != nil {
		m := map[string]any{}
		opts.Range(func(k string, v vm.Value) bool {
			m[k] = plain(v)
			return true
		})
		if err := c.apply("options", m, true); err != nil {
			return nil, vm.Throwf("%s: %v", name, err)
		}
	}
	if c.baseURL == "" {
		return nil, vm.Throwf("%s: no connector %q: declare [connectors.%s] with a base_url in harn.toml, or pass options.base_url", name, provider, provider)
	}
	if u, err := url.Parse(c.baseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, vm.Throwf("%s: %s base_url must be an http or https URL, got %q", name, provider, c.baseURL)
	}
	return &c, nil
}

// manifestTable is the [connectors.PROVIDER] table of the project's
// harn.toml (the nearest one above the script), or nil.
func manifestTable(th *vm.Thread, provider string) (map[string]any, string, error) {
	root := process.ProjectRoot(th)
	if root == "" {
		return nil, "", nil
	}
	path := filepath.Join(root, "harn.toml")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", nil
	}
	var doc struct {
		Connectors map[string]any `toml:"connectors"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil, "", vm.Throwf("%s: %s: %v", name, path, err)
	}
	where := fmt.Sprintf("%s [connectors.%s]", path, provider)
	t, ok := doc.Connectors[provider]
	if !ok {
		return nil, "", nil
	}
	table, ok := t.(map[string]any)
	if !ok {
		return nil, "", vm.Throwf("%s: %s: expected a table", name, where)
	}
	return table, where, nil
}

// apply lays the keys of a table (or the call's options, which may also
// carry token) over c. Unknown keys and wrong types are errors naming
// where; a call throws them with the builtin's name in front.
func (c *connector) apply(where string, t map[string]any, isOptions bool) error {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := t[k]
		bad := func(want string) error {
			return fmt.Errorf("%s: %s must be %s, got %s", where, k, want, typeName(v))
		}
		switch k {
		case "base_url", "secret", "auth_header", "auth_scheme", "token":
			if k == "token" && !isOptions {
				return fmt.Errorf("%s: a token does not belong in harn.toml; name a secret (\"%s/token\") and set %s", where, c.provider, triggerspec.SecretEnv(c.provider+"/token"))
			}
			s, ok := v.(string)
			if !ok {
				return bad("a string")
			}
			switch k {
			case "base_url":
				c.baseURL = s
			case "secret":
				if p, n, ok := strings.Cut(s, "/"); !ok || p == "" || n == "" {
					return fmt.Errorf("%s: secret must be \"<provider>/<secret>\", got %q", where, s)
				}
				c.secret, c.needSecret = s, true
			case "auth_header":
				c.authHeader = strings.ToLower(s)
			case "auth_scheme":
				c.authScheme = s
			case "token":
				c.token = s
			}
		case "headers", "methods":
			m, ok := v.(map[string]any)
			if !ok {
				return bad("a table of strings")
			}
			for hk, hv := range m {
				s, ok := hv.(string)
				if !ok {
					return fmt.Errorf("%s: %s.%s must be a string, got %s", where, k, hk, typeName(hv))
				}
				if k == "headers" {
					c.headers[strings.ToLower(hk)] = s
				} else {
					if _, _, err := parseRoute(s); err != nil {
						return fmt.Errorf("%s: methods.%s: %s", where, hk, err)
					}
					c.methods[hk] = s
				}
			}
		case "timeout_ms":
			var f float64
			switch x := v.(type) {
			case int64:
				f = float64(x)
			case float64:
				f = x
			default:
				return bad("a number")
			}
			if f <= 0 {
				return fmt.Errorf("%s: timeout_ms must be positive, got %v", where, v)
			}
			c.timeoutMs = f
		default:
			known := fields
			if isOptions {
				known = append(append([]string{}, fields...), "token")
				sort.Strings(known)
			}
			return fmt.Errorf("%s: unknown field %q (known: %s)", where, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// route is the verb and path of method: a name of the connector's methods
// table, or a route itself.
func (c *connector) route(method string) (string, string, error) {
	if r, ok := c.methods[method]; ok {
		method = r
	}
	verb, path, err := parseRoute(method)
	if err != nil {
		return "", "", vm.Throwf("%s: %s has no method %q (%s; a method is \"VERB /path\" or a name of [connectors.%s.methods])", name, c.provider, method, err, c.provider)
	}
	return verb, path, nil
}

func parseRoute(s string) (string, string, error) {
	verb, path, ok := strings.Cut(strings.TrimSpace(s), " ")
	path = strings.TrimSpace(path)
	if !ok || !strings.HasPrefix(path, "/") {
		return "", "", fmt.Errorf("expected \"VERB /path\", got %q", s)
	}
	switch verb {
	case "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD":
	default:
		return "", "", fmt.Errorf("unknown HTTP verb %q", verb)
	}
	return verb, path, nil
}

// expand replaces each {param} of path with the escaped value of that
// parameter and returns the parameters left over.
func expand(path string, params *vm.Dict) (string, *vm.Dict, error) {
	var b strings.Builder
	rest := params
	for {
		i := strings.IndexByte(path, '{')
		if i < 0 {
			b.WriteString(path)
			return b.String(), rest, nil
		}
		j := strings.IndexByte(path[i:], '}')
		if j < 0 {
			return "", nil, fmt.Errorf("unclosed { in the path")
		}
		key := path[i+1 : i+j]
		v, ok := params.Get(key)
		if !ok || v.IsNil() {
			return "", nil, fmt.Errorf("missing path parameter %q", key)
		}
		b.WriteString(path[:i])
		b.WriteString(url.PathEscape(vm.ToDisplay(v)))
		rest = rest.Delete(key)
		path = path[i+j+1:]
	}
}

// requestOptions are the http_* options of the request: headers (the
// token's header among them) and the timeout.
func (c *connector) requestOptions() (*vm.DictBuilder, error) {
	headers := copyMap(c.headers)
	token := c.token
	if token == "" && c.secret != "" {
		env := triggerspec.SecretEnv(c.secret)
		token = os.Getenv(env)
		if token == "" && c.needSecret {
			return nil, vm.Throwf("%s: %s: secret %s is not set (environment variable %s)", name, c.provider, c.secret, env)
		}
	}
	if token != "" {
		header, scheme := c.authHeader, c.authScheme
		if header == "" {
			header = "authorization"
		}
		if scheme == "" && c.authHeader == "" {
			scheme = "Bearer"
		}
		if scheme != "" {
			token = scheme + " " + token
		}
		headers[header] = token
	}
	hb := vm.NewDictBuilder(len(headers))
	for k, v := range headers {
		hb.Set(k, vm.Str(v))
	}
	ob := vm.NewDictBuilder(3)
	ob.Set("headers", vm.Of(hb.Build()))
	if c.timeoutMs > 0 {
		ob.Set("timeout_ms", vm.FloatOf(c.timeoutMs))
	}
	return ob, nil
}

// answer is the data of a response: nil for HEAD or an empty body, the
// parsed value of a JSON body (by content type, or by shape when there is
// none), the text otherwise.
func answer(verb string, headers vm.Value, raw []byte) vm.Value {
	if verb == "HEAD" || len(strings.TrimSpace(string(raw))) == 0 {
		return vm.Nil
	}
	ct := ""
	if hd, ok := headers.AsDict(); ok {
		if v, ok := hd.Get("content-type"); ok {
			ct = strings.ToLower(vm.ToDisplay(v))
		}
	}
	text := lib.LossyUTF8(raw)
	if strings.Contains(ct, "json") || ct == "" {
		if v, err := json.Parse(text); err == nil {
			return v
		}
	}
	return vm.Str(text)
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// plain turns an option value into the forms a TOML table decodes to.
func plain(v vm.Value) any {
	if s, ok := v.AsString(); ok {
		return s.Go()
	}
	if n, ok := v.AsInt(); ok && v.Type() == "int" {
		return int64(n)
	}
	if f, ok := lib.ToFloat(v); ok && v.Type() == "float" {
		return f
	}
	if d, ok := v.AsDict(); ok {
		m := map[string]any{}
		d.Range(func(k string, e vm.Value) bool {
			m[k] = plain(e)
			return true
		})
		return m
	}
	return v
}

// typeName names a decoded value's type in Harn's words.
func typeName(v any) string {
	switch x := v.(type) {
	case string:
		return "string"
	case int64:
		return "int"
	case float64:
		return "float"
	case bool:
		return "bool"
	case map[string]any:
		return "dict"
	case []any:
		return "list"
	case vm.Value:
		return x.Type()
	}
	return fmt.Sprintf("%T", v)
}

// CheckManifest checks every [connectors.NAME] table of a parsed
// harn.toml (path names it in messages) the way a call reads it, so a
// loader can refuse a broken table before the script runs
// (docs/spec/registry.md §7 step 2). Tables are checked in name order.
func CheckManifest(path string, doc map[string]any) error {
	raw, ok := doc["connectors"]
	if !ok {
		return nil
	}
	tables, ok := raw.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: connectors must be a table of [connectors.NAME] tables", path)
	}
	providers := make([]string, 0, len(tables))
	for p := range tables {
		providers = append(providers, p)
	}
	sort.Strings(providers)
	for _, p := range providers {
		where := fmt.Sprintf("%s [connectors.%s]", path, p)
		table, ok := tables[p].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: expected a table", where)
		}
		c := builtin[p]
		c.provider = p
		c.headers = map[string]string{}
		c.methods = map[string]string{}
		if err := c.apply(where, table, false); err != nil {
			return err
		}
	}
	return nil
}
