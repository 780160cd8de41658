package mcpclient

import (
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// config says how to reach one server.
type config struct {
	name string

	// stdio
	command string
	args    []string
	env     []string // KEY=VALUE, added to the parent's environment
	cwd     string
	// baseDir resolves a relative cwd (a harn.toml server: the project
	// root, which is also its default directory); "" for the execution
	// root.
	baseDir string

	// Streamable HTTP
	url     string
	headers map[string]string

	// roots are offered to the server (the roots capability): file://
	// URIs, or paths resolvedRoots makes into URIs when connecting.
	roots []root

	// elicit and sample are the script's handlers for elicitation/create
	// and sampling/createMessage (closures), the zero Value when not given.
	elicit, sample vm.Value
	// auth gives an HTTP server's credentials (auth.go): a function
	// called when connecting and by mcp_reauth_expired; the zero Value
	// when not given.
	auth vm.Value

	// lazy: mcp_bootstrap registers the server without connecting it.
	lazy bool

	timeout       time.Duration
	version       string // the protocol version to ask for
	clientName    string
	clientVersion string
}

// defaultTimeout bounds each request unless the config says otherwise.
const defaultTimeout = 60 * time.Second

// knownKeys are the keys a config dict may have. transport and
// description are accepted for configs written for other Harn hosts
// (the transport follows from command or url); lazy matters to
// mcp_bootstrap only (mcp_ensure_active always connects on first use).
var knownKeys = []string{"args", "auth", "client_info", "command", "cwd", "description", "elicitation", "env", "headers", "lazy", "name", "protocol_version", "roots", "sampling", "timeout", "transport", "url"}

func argErr(builtin, format string, a ...any) error {
	return vm.Runtimef("%s: %s", builtin, fmt.Sprintf(format, a...))
}

// parseConfig reads mcp_connect's arguments: a command line or URL
// string (with an args list or an options dict after it), or a config
// dict.
func parseConfig(builtin string, a vm.Args) (*config, error) {
	c := &config{timeout: defaultTimeout, version: latestReleased, clientName: "harn", clientVersion: defaultClientVersion()}
	first := a.At(0)
	if s, ok := first.AsString(); ok {
		text := strings.TrimSpace(s.Go())
		if text == "" {
			return nil, argErr(builtin, "the command must not be empty")
		}
		if isURL(text) {
			c.url = text
		} else {
			words, err := splitCommand(text)
			if err != nil {
				return nil, argErr(builtin, "%v", err)
			}
			c.command, c.args = words[0], words[1:]
		}
		if a.Given(1) {
			if l, ok := a.List(1); ok {
				if c.url != "" {
					return nil, argErr(builtin, "an args list goes with a command, not a URL")
				}
				args, err := stringList(builtin, "args", l)
				if err != nil {
					return nil, err
				}
				c.args = append(c.args, args...)
			} else if d, ok := a.Dict(1); ok {
				if err := c.apply(builtin, d, true); err != nil {
					return nil, err
				}
			} else if !a.At(1).IsNil() {
				return nil, argErr(builtin, "the second argument must be a list of arguments or an options dict, got %s", a.At(1).Type())
			}
		}
		if a.Given(2) && !a.At(2).IsNil() {
			d, ok := a.Dict(2)
			if !ok {
				return nil, lib.BadOptions(builtin, a.At(2))
			}
			if err := c.apply(builtin, d, true); err != nil {
				return nil, err
			}
		}
		if err := c.check(builtin); err != nil {
			return nil, err
		}
		return c, nil
	}
	d, ok := first.AsDict()
	if !ok {
		return nil, argErr(builtin, "expected a command string, a URL or a config dict {command, args?, env?, cwd?} / {url, headers?}, got %s", first.Type())
	}
	if err := c.apply(builtin, d, false); err != nil {
		return nil, err
	}
	if c.command == "" && c.url == "" {
		return nil, argErr(builtin, "the config needs a command (stdio) or a url (HTTP)")
	}
	if err := c.check(builtin); err != nil {
		return nil, err
	}
	return c, nil
}

// check rejects what only one transport can do, once both the first
// argument and the options are read.
func (c *config) check(builtin string) error {
	if vm.IsCallable(c.auth) && c.url == "" {
		return argErr(builtin, "auth gives the credentials of an HTTP server (a url); a stdio server takes its credentials in env")
	}
	return nil
}

func isURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// apply reads a config dict; options (after a command or URL string)
// may not name another command or url.
func (c *config) apply(builtin string, d *vm.Dict, options bool) error {
	for _, k := range d.Keys() {
		if !contains(knownKeys, k) {
			return argErr(builtin, "unknown config key %q (known: %s)", k, strings.Join(knownKeys, ", "))
		}
	}
	str := func(key string) (string, bool, error) {
		v, ok := d.Get(key)
		if !ok || v.IsNil() {
			return "", false, nil
		}
		s, ok := v.AsString()
		if !ok {
			return "", false, argErr(builtin, "%s must be a string, got %s", key, v.Type())
		}
		return s.Go(), true, nil
	}
	if s, ok, err := str("name"); err != nil {
		return err
	} else if ok {
		c.name = s
	}
	command, hasCommand, err := str("command")
	if err != nil {
		return err
	}
	u, hasURL, err := str("url")
	if err != nil {
		return err
	}
	if options && (hasCommand || hasURL) {
		return argErr(builtin, "the options dict cannot name a command or url: the first argument does")
	}
	if hasCommand && hasURL {
		return argErr(builtin, "give either a command (stdio) or a url (HTTP), not both")
	}
	if hasCommand {
		if strings.TrimSpace(command) == "" {
			return argErr(builtin, "command must not be empty")
		}
		c.command = command
	}
	if hasURL {
		if !isURL(u) {
			return argErr(builtin, "url must start with http:// or https://, got %q", u)
		}
		c.url = u
	}
	if v, ok := d.Get("args"); ok && !v.IsNil() {
		l, ok := v.AsList()
		if !ok {
			return argErr(builtin, "args must be a list of strings, got %s", v.Type())
		}
		args, err := stringList(builtin, "args", l)
		if err != nil {
			return err
		}
		c.args = append(c.args, args...)
	}
	if v, ok := d.Get("env"); ok && !v.IsNil() {
		m, err := stringDict(builtin, "env", v)
		if err != nil {
			return err
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c.env = append(c.env, k+"="+m[k])
		}
	}
	if s, ok, err := str("cwd"); err != nil {
		return err
	} else if ok {
		c.cwd = s
	}
	for _, h := range []struct {
		key string
		dst *vm.Value
	}{{"elicitation", &c.elicit}, {"sampling", &c.sample}} {
		if v, ok := d.Get(h.key); ok && !v.IsNil() {
			if !vm.IsCallable(v) {
				return argErr(builtin, "%s must be a function (the handler of the server's requests), got %s", h.key, v.Type())
			}
			*h.dst = v
		}
	}
	if v, ok := d.Get("auth"); ok && !v.IsNil() {
		if !vm.IsCallable(v) {
			return argErr(builtin, "auth must be a function returning the credentials, got %s", v.Type())
		}
		c.auth = v
	}
	if v, ok := d.Get("lazy"); ok && !v.IsNil() {
		b, ok := v.AsBool()
		if !ok {
			return argErr(builtin, "lazy must be a bool, got %s", v.Type())
		}
		c.lazy = bool(b)
	}
	if v, ok := d.Get("roots"); ok && !v.IsNil() {
		roots, err := parseRoots(builtin, v)
		if err != nil {
			return err
		}
		c.roots = roots
	}
	if v, ok := d.Get("headers"); ok && !v.IsNil() {
		m, err := stringDict(builtin, "headers", v)
		if err != nil {
			return err
		}
		c.headers = m
	}
	if v, ok := d.Get("timeout"); ok && !v.IsNil() {
		t, err := timeoutOf(builtin, v)
		if err != nil {
			return err
		}
		c.timeout = t
	}
	if s, ok, err := str("protocol_version"); err != nil {
		return err
	} else if ok {
		if s != sessionFreeV && !contains(releasedVersions, s) {
			return argErr(builtin, "protocol_version %q is not one this client speaks (%s, %s)", s, strings.Join(releasedVersions, ", "), sessionFreeV)
		}
		c.version = s
	}
	if s, ok, err := str("transport"); err != nil {
		return err
	} else if ok {
		switch s {
		case "stdio":
			if c.url != "" {
				return argErr(builtin, `transport "stdio" needs a command, not a url`)
			}
		case "http":
			if c.command != "" {
				return argErr(builtin, `transport "http" needs a url, not a command`)
			}
		default:
			return argErr(builtin, `transport must be "stdio" or "http", got %q`, s)
		}
	}
	if v, ok := d.Get("client_info"); ok && !v.IsNil() {
		m, err := stringDict(builtin, "client_info", v)
		if err != nil {
			return err
		}
		if n := m["name"]; n != "" {
			c.clientName = n
		}
		if n := m["version"]; n != "" {
			c.clientVersion = n
		}
	}
	return nil
}

// dir is the directory a stdio server starts in: cwd resolved against
// baseDir, or against the execution root as exec does.
func (c *config) dir(th *vm.Thread) string {
	if c.baseDir != "" {
		if c.cwd == "" {
			return c.baseDir
		}
		if filepath.IsAbs(c.cwd) {
			return c.cwd
		}
		return filepath.Join(c.baseDir, c.cwd)
	}
	return fs.ResolvePath(th, c.cwd)
}

// timeoutOf reads a timeout: a duration, or a number of milliseconds.
func timeoutOf(builtin string, v vm.Value) (time.Duration, error) {
	var ms float64
	if d, ok := v.AsDuration(); ok {
		ms = float64(d)
	} else if f, ok := lib.ToFloat(v); ok && v.Kind() != vm.KBool {
		ms = f
	} else {
		return 0, argErr(builtin, "timeout must be a duration (30s) or a number of milliseconds, got %s", v.Type())
	}
	if ms <= 0 {
		return 0, argErr(builtin, "timeout must be positive")
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

func stringList(builtin, what string, l *vm.List) ([]string, error) {
	out := make([]string, 0, l.Len())
	for i, it := range l.Items() {
		s, ok := it.AsString()
		if !ok {
			return nil, argErr(builtin, "%s[%d] must be a string, got %s", what, i, it.Type())
		}
		out = append(out, s.Go())
	}
	return out, nil
}

// stringDict reads a dict whose values are text (numbers and bools are
// written as they display).
func stringDict(builtin, what string, v vm.Value) (map[string]string, error) {
	d, ok := v.AsDict()
	if !ok {
		return nil, argErr(builtin, "%s must be a dict, got %s", what, v.Type())
	}
	out := map[string]string{}
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		switch x.Kind() {
		case vm.KString, vm.KInt, vm.KFloat, vm.KBool:
			out[k] = vm.ToDisplay(x)
		default:
			return nil, argErr(builtin, "%s.%s must be a string, got %s", what, k, x.Type())
		}
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// splitCommand splits a command line into words the way a POSIX shell
// would for plain words: blanks separate, single quotes keep text as is,
// double quotes keep blanks (backslash escapes ", \ and $), a backslash
// outside quotes escapes the next character. No expansion happens.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in the command")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf(`unterminated " in the command`)
			}
		case ch == '\\' && i+1 < len(s):
			inWord = true
			i++
			cur.WriteByte(s[i])
		default:
			inWord = true
			cur.WriteByte(ch)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("the command must not be empty")
	}
	return words, nil
}

// label names the server for a client's display when neither the
// config nor the server gives a name: the command's base name or the
// URL's host.
func (c *config) label() string {
	if c.command != "" {
		name := c.command
		if i := strings.LastIndexAny(name, `/\`); i >= 0 {
			name = name[i+1:]
		}
		return name
	}
	rest := c.url[strings.Index(c.url, "://")+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// textArg reads a required non-empty string argument.
func textArg(builtin, what string, a vm.Args, i int) (string, error) {
	s, ok := a.Str(i)
	if !ok {
		return "", argErr(builtin, "the %s must be a string, got %s", what, a.At(i).Type())
	}
	if s == "" {
		return "", argErr(builtin, "the %s must not be empty", what)
	}
	return s, nil
}

// root is one entry of roots/list: a file:// URI and an optional name.
type root struct {
	uri, name string
	path      string // a path still to resolve into uri
}

// parseRoots reads the roots key: a list of paths, file:// URIs or
// {uri | path, name?} dicts.
func parseRoots(builtin string, v vm.Value) ([]root, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, argErr(builtin, "roots must be a list of paths, file:// URIs or {uri, name} dicts, got %s", v.Type())
	}
	out := make([]root, 0, l.Len())
	for i, x := range l.Items() {
		var r root
		text := ""
		if s, ok := x.AsString(); ok {
			text = s.Go()
		} else if d, ok := x.AsDict(); ok {
			for _, k := range d.Keys() {
				if k != "uri" && k != "path" && k != "name" {
					return nil, argErr(builtin, "roots[%d]: unknown key %q (known: name, path, uri)", i, k)
				}
			}
			u, hasU := d.Get("uri")
			p, hasP := d.Get("path")
			if hasU == hasP {
				return nil, argErr(builtin, "roots[%d]: give either uri or path", i)
			}
			if !hasU {
				u = p
			}
			s, ok := u.AsString()
			if !ok {
				return nil, argErr(builtin, "roots[%d]: uri and path must be strings, got %s", i, u.Type())
			}
			text = s.Go()
			if n, ok := d.Get("name"); ok && !n.IsNil() {
				ns, ok := n.AsString()
				if !ok {
					return nil, argErr(builtin, "roots[%d]: name must be a string, got %s", i, n.Type())
				}
				r.name = ns.Go()
			}
			if hasU && !strings.HasPrefix(text, "file://") {
				return nil, argErr(builtin, "roots[%d]: uri must be a file:// URI, got %q", i, text)
			}
		} else {
			return nil, argErr(builtin, "roots[%d]: expected a path, a file:// URI or a dict, got %s", i, x.Type())
		}
		if strings.TrimSpace(text) == "" {
			return nil, argErr(builtin, "roots[%d]: must not be empty", i)
		}
		if strings.HasPrefix(text, "file://") {
			r.uri = text
		} else {
			r.path = text
		}
		out = append(out, r)
	}
	return out, nil
}

// resolvedRoots are the roots with paths turned into file:// URIs,
// relative paths against the same directory as a relative cwd (a copy:
// a registry's config is shared).
func (c *config) resolvedRoots(th *vm.Thread) []root {
	out := make([]root, len(c.roots))
	for i, r := range c.roots {
		out[i] = r
		if r.path == "" {
			continue
		}
		p := r.path
		if !filepath.IsAbs(p) {
			if c.baseDir != "" {
				p = filepath.Join(c.baseDir, p)
			} else {
				p = fs.ResolvePath(th, p)
			}
		}
		out[i].uri = (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Clean(p))}).String()
		out[i].path = ""
	}
	return out
}

// checkEgress asks the run's egress policy about the server's URL (a
// stdio server is not network egress).
func (c *config) checkEgress(th *vm.Thread) error {
	if c.url == "" {
		return nil
	}
	return lib.CheckEgress(th, c.url)
}

// inputs is what the client answers of the server's requests: the
// resolved roots and the handlers, run on th's VM.
func (c *config) inputs(th *vm.Thread) *inputs {
	return &inputs{roots: c.resolvedRoots(th), vm: th.VM(), elicit: c.elicit, sample: c.sample}
}
