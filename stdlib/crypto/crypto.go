package crypto

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/harnlang/harn/stdlib/encoding"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// Keys and signatures are lowercase hex; an ed25519 private key is its
// 32-byte seed. A signed URL is the URL as given with `expires` (Unix
// seconds) and `signature` (hex HMAC-SHA256 of everything before
// `&signature=`) appended as its last two query parameters.
// Signed cookie values and session tokens are `payload.mac` with the MAC
// in unpadded base64url; a session payload is base64url JSON.

func init() {
	lib.Def("signed_url", "signed_url(url, secret, expires_at) -> string", "url, unchanged, with &expires=N (Unix seconds; expires_at is Unix seconds, a float counting from its whole second, or a date dict) and then &signature=HMAC-SHA256 of everything before it appended (? when url has no query); a url or secret that is not a string (or an empty secret), or a url that already has expires or signature, is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("signed_url", "secret", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		raw, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("signed_url: url must be a string, got %s", a.At(0).Type())
		}
		u, err := url.Parse(raw)
		if err != nil {
			return vm.Value{}, vm.Throwf("signed_url: invalid url: %s", raw)
		}
		if q := u.Query(); q.Has("expires") || q.Has("signature") {
			return vm.Value{}, vm.Throwf("signed_url: url already has an expires or signature parameter: %s", raw)
		}
		var exp int64
		switch v := a.At(2); v.Kind() {
		case vm.KInt, vm.KFloat, vm.KDict:
			// a float (timestamp() + 3600) or a date dict counts from its whole second
			t, err := htime.Instant("signed_url", v)
			if err != nil {
				return vm.Value{}, vm.Typef("signed_url: expires_at must be Unix seconds or a date dict, got %s", v.Type())
			}
			exp = t.Unix()
		default:
			return vm.Value{}, vm.Typef("signed_url: expires_at must be Unix seconds or a date dict, got %s", v.Type())
		}
		base, fragment, _ := strings.Cut(raw, "#")
		signed := base + querySep(base) + "expires=" + strconv.FormatInt(exp, 10)
		out := signed + "&signature=" + urlMAC(signed, secret)
		if fragment != "" {
			out += "#" + fragment
		}
		return vm.Str(out), nil
	})
	lib.Def("verify_signed_url", "verify_signed_url(url, secret, now?) -> dict", "{valid, reason} for a url signed_url gave: reason is nil, \"missing signature\" (the last two parameters are not expires and signature), \"bad signature\" (anything before the signature changed) or \"expired\"; now (default: the current time) is Unix seconds or a date dict, anything else an error; a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("verify_signed_url", "secret", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		fail := func(reason string) (vm.Value, error) {
			return vm.Of(lib.DictOf("valid", vm.False, "reason", vm.Str(reason))), nil
		}
		// The MAC covers the url byte for byte up to the signature (the
		// fragment, which a browser does not send, excluded), so the url is
		// split rather than parsed: parsing and re-encoding would accept a
		// url a proxy changed and refuse one signed with a different encoding.
		base, _, _ := strings.Cut(a.Text(0), "#")
		signed, sig, ok := lastParam(base, "signature")
		if !ok {
			return fail("missing signature")
		}
		_, expText, ok := lastParam(signed, "expires")
		if !ok {
			return fail("missing signature")
		}
		if !hmac.Equal([]byte(sig), []byte(urlMAC(signed, secret))) {
			return fail("bad signature")
		}
		exp, err := strconv.ParseInt(expText, 10, 64)
		if err != nil {
			return fail("bad signature")
		}
		now := htime.VMNow(th).Unix()
		if a.Given(2) && !a.At(2).IsNil() {
			t, err := htime.Instant("verify_signed_url", a.At(2))
			if err != nil {
				return vm.Value{}, err
			}
			now = t.Unix()
		}
		if now > exp {
			return fail("expired")
		}
		return vm.Of(lib.DictOf("valid", vm.True, "reason", vm.Nil)), nil
	})

	lib.Def("cookie_parse", "cookie_parse(header) -> dict", "a Cookie header as a dict of name → value (RFC 6265: names and values trimmed, %XX decoded, + kept); nil gives {}, another non-string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		header, err := cookieHeader("cookie_parse", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(parseCookies(header)), nil
	})
	lib.Def("cookie_serialize", "cookie_serialize(name, value, options?) -> string", "a Set-Cookie value; the value's bytes that a cookie may not hold (space, \", comma, ;, \\, controls, non-ASCII) and % are %XX-encoded; options path, domain (neither may hold ';' or a control character), max_age (int seconds or a duration), expires (Unix seconds or a date dict, written as an HTTP date; a string as is), http_only, secure, same_site", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := cookieOptions("cookie_serialize", a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		return serializeCookie("cookie_serialize", a.At(0), a.Text(1), opts)
	})
	lib.Def("cookie_delete", "cookie_delete(name, options?) -> string", "a Set-Cookie value that deletes the cookie", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := cookieOptions("cookie_delete", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		if opts == nil {
			opts = vm.NewDict()
		}
		opts = opts.Set("max_age", vm.IntOf(0)).Set("expires", vm.IntOf(0))
		return serializeCookie("cookie_delete", a.At(0), "", opts)
	})
	lib.Def("cookie_round_trip", "cookie_round_trip(name, value, options?) -> dict", "{set_cookie, cookie, value}: the Set-Cookie value, the Cookie header a browser sends back, and the value read from it", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		opts, err := cookieOptions("cookie_round_trip", a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		set, err := serializeCookie("cookie_round_trip", a.At(0), a.Text(1), opts)
		if err != nil {
			return vm.Value{}, err
		}
		pair, _, _ := strings.Cut(vm.ToDisplay(set), ";")
		back, _ := parseCookies(pair).Get(a.Text(0))
		return vm.Of(lib.DictOf("set_cookie", set, "cookie", vm.Str(pair), "value", back)), nil
	})
	lib.Def("cookie_sign", "cookie_sign(value, secret) -> string", "value.mac with an HMAC-SHA256 of value; a value that is not a string, or a secret that is not a non-empty string, is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("cookie_sign", "secret", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		v, ok := a.Str(0)
		if !ok {
			return vm.Value{}, vm.Typef("cookie_sign: value must be a string, got %s", a.At(0).Type())
		}
		return vm.Str(v + "." + mac(v, secret)), nil
	})
	lib.Def("cookie_verify", "cookie_verify(signed, secret) -> string?", "the value of a signed cookie value, or nil when the signature does not match (or signed is not a string); a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("cookie_verify", "secret", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		signed, ok := a.Str(0)
		if !ok {
			return vm.Nil, nil
		}
		v, ok := unsign(signed, secret)
		if !ok {
			return vm.Nil, nil
		}
		return vm.Str(v), nil
	})
	lib.Def("session_sign", "session_sign(data, secret) -> string", "a signed session token holding data (JSON); a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return sessionToken("session_sign", a.At(0), a.At(1))
	})
	lib.Def("session_verify", "session_verify(token, secret)", "the data of a session token, or nil when it was not signed with secret; a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("session_verify", "secret", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		tok, ok := a.Str(0)
		if !ok {
			return vm.Nil, nil
		}
		return sessionData(tok, secret), nil
	})
	lib.Def("session_cookie", "session_cookie(name, data, secret, options?) -> string", "a Set-Cookie value carrying a session token; a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		tok, err := sessionToken("session_cookie", a.At(1), a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		opts, err := cookieOptions("session_cookie", a.At(3))
		if err != nil {
			return vm.Value{}, err
		}
		if opts == nil {
			opts = lib.DictOf("path", vm.Str("/"), "http_only", vm.True)
		}
		return serializeCookie("session_cookie", a.At(0), vm.ToDisplay(tok), opts)
	})
	lib.Def("session_from_cookies", "session_from_cookies(header, name, secret)", "the session data in the named cookie of a Cookie header (a string, or nil for none), or nil; a secret that is not a non-empty string is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		secret, err := lib.Secret("session_from_cookies", "secret", a.At(2))
		if err != nil {
			return vm.Value{}, err
		}
		header, err := cookieHeader("session_from_cookies", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		c, ok := parseCookies(header).Get(a.Text(1))
		if !ok {
			return vm.Nil, nil
		}
		return sessionData(vm.ToDisplay(c), secret), nil
	})
}

// cookieHeader is the text of a Cookie header argument: a string, or nil
// (no header, so no cookies); anything else is an error.
func cookieHeader(fn string, v vm.Value) (string, error) {
	if v.IsNil() || !v.IsValid() {
		return "", nil
	}
	s, ok := v.AsString()
	if !ok {
		return "", vm.Typef("%s: header must be a string, got %s", fn, v.Type())
	}
	return s.Go(), nil
}

func hexArg(name, what string, v vm.Value, size int) ([]byte, error) {
	s, ok := v.AsString()
	if !ok {
		return nil, vm.Typef("%s: %s must be a hex string, got %s", name, what, v.Type())
	}
	b, err := hex.DecodeString(s.Go())
	if err != nil || len(b) != size {
		return nil, vm.Throwf("%s: %s must be %d bytes of hex", name, what, size)
	}
	return b, nil
}

// querySep is what goes before a parameter appended to url: "?" when it
// has no query, nothing when it ends in "?" or "&", else "&".
func querySep(url string) string {
	switch {
	case !strings.Contains(url, "?"):
		return "?"
	case strings.HasSuffix(url, "?"), strings.HasSuffix(url, "&"):
		return ""
	}
	return "&"
}

// lastParam splits url before its last query parameter when that is
// name=value: the url without it (and its ? or &) and the raw value.
func lastParam(url, name string) (rest, value string, ok bool) {
	i := strings.LastIndexAny(url, "?&")
	if i < 0 || !strings.Contains(url[:i+1], "?") {
		return "", "", false
	}
	value, ok = strings.CutPrefix(url[i+1:], name+"=")
	return url[:i], value, ok
}

func urlMAC(s string, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(s))
	return hex.EncodeToString(m.Sum(nil))
}

func mac(s string, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(s))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// unsign splits payload.mac and checks the MAC.
func unsign(signed string, secret []byte) (string, bool) {
	i := strings.LastIndexByte(signed, '.')
	if i < 0 {
		return "", false
	}
	payload, sig := signed[:i], signed[i+1:]
	return payload, hmac.Equal([]byte(sig), []byte(mac(payload, secret)))
}

// parseCookies reads a Cookie header as RFC 6265 §5.2 does: pairs split
// at ";" and the first "=", name and value trimmed of white space, one
// pair of double quotes taken off the value. Values are percent-decoded
// (the encoding cookie_serialize applies) but "+" stays "+": it is a
// base64 character, not a space.
func parseCookies(header string) *vm.Dict {
	out := vm.NewDict()
	for _, part := range strings.Split(header, ";") {
		name, value, ok := strings.Cut(part, "=")
		name, value = strings.Trim(name, " \t"), strings.Trim(value, " \t")
		if !ok || name == "" {
			continue
		}
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		out = out.Set(name, vm.Str(encoding.PercentDecode(value, false)))
	}
	return out
}

// cookieValue percent-encodes the bytes RFC 6265 §4.1.1 keeps out of a
// cookie value (controls, white space, DQUOTE, comma, semicolon,
// backslash, non-ASCII) and "%" itself, so parseCookies gives value back;
// base64 and base64url text passes unchanged.
func cookieValue(value string) string {
	var sb strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\",;\\%", c) >= 0 {
			fmt.Fprintf(&sb, "%%%02X", c)
			continue
		}
		sb.WriteByte(c)
	}
	return sb.String()
}

// httpDate is the IMF-fixdate layout (RFC 9110 §5.6.7) of an Expires
// attribute; net/http has it too, but the lite harn does not link net/http.
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// cookieOptions reads the Set-Cookie options of builtin fn (nil when not
// given): a misspelt attribute such as `httponly` is refused rather than
// leaving the cookie without it.
func cookieOptions(fn string, v vm.Value) (*vm.Dict, error) {
	d, err := lib.Options(fn, v)
	if err != nil || d == nil {
		return nil, err
	}
	if err := lib.CheckOptions(fn, d, []string{"path", "domain", "max_age", "expires", "http_only", "secure", "same_site"}); err != nil {
		return nil, err
	}
	return d, nil
}

func serializeCookie(fn string, nameV vm.Value, value string, opts *vm.Dict) (vm.Value, error) {
	name, ok := nameV.AsString()
	if !ok || name.Go() == "" || strings.ContainsAny(name.Go(), "=; \t\r\n,") {
		return vm.Value{}, vm.Throwf("%s: invalid cookie name %s", fn, vm.ToDisplay(nameV))
	}
	var sb strings.Builder
	sb.WriteString(name.Go())
	sb.WriteByte('=')
	sb.WriteString(cookieValue(value))
	if opts == nil {
		return vm.Str(sb.String()), nil
	}
	get := func(k string) (vm.Value, bool) {
		v, ok := opts.Get(k)
		return v, ok && !v.IsNil()
	}
	for _, attr := range [...]struct{ key, name string }{{"path", "Path"}, {"domain", "Domain"}} {
		if v, ok := get(attr.key); ok {
			text := vm.ToDisplay(v)
			// A ';' or a control character would end the attribute and
			// smuggle others into the header.
			if strings.ContainsFunc(text, func(r rune) bool { return r == ';' || r < 0x20 || r == 0x7f }) {
				return vm.Value{}, vm.Throwf("%s: %s must not contain ';' or control characters, got %q", fn, attr.key, text)
			}
			sb.WriteString("; " + attr.name + "=" + text)
		}
	}
	if v, ok := get("max_age"); ok {
		secs, isInt := v.AsInt()
		if d, isDur := v.AsDuration(); isDur {
			secs, isInt = vm.Int(int64(d)/1000), true
		}
		if !isInt {
			return vm.Value{}, vm.Typef("%s: max_age must be an int (seconds) or a duration, got %s", fn, v.Type())
		}
		sb.WriteString("; Max-Age=" + strconv.FormatInt(int64(secs), 10))
	}
	if v, ok := get("expires"); ok {
		// A string is taken as an HTTP date already (cookie_delete's);
		// a time value (Unix seconds, date dict) is written as one.
		date, isStr := v.AsString()
		if isStr {
			sb.WriteString("; Expires=" + date.Go())
		} else {
			t, err := htime.Instant(fn, v)
			if err != nil {
				return vm.Value{}, vm.Typef("%s: expires must be Unix seconds, a date dict or an HTTP date string, got %s", fn, v.Type())
			}
			sb.WriteString("; Expires=" + t.UTC().Format(httpDate))
		}
	}
	if v, ok := get("http_only"); ok && v.Truth() {
		sb.WriteString("; HttpOnly")
	}
	if v, ok := get("secure"); ok && v.Truth() {
		sb.WriteString("; Secure")
	}
	if v, ok := get("same_site"); ok {
		s := strings.ToLower(vm.ToDisplay(v))
		switch s {
		case "lax", "strict", "none":
			sb.WriteString("; SameSite=" + strings.ToUpper(s[:1]) + s[1:])
		default:
			return vm.Value{}, vm.Throwf("%s: same_site must be lax, strict or none, got %s", fn, vm.ToDisplay(v))
		}
	}
	return vm.Str(sb.String()), nil
}

func sessionToken(fn string, data, secretV vm.Value) (vm.Value, error) {
	secret, err := lib.Secret(fn, "secret", secretV)
	if err != nil {
		return vm.Value{}, err
	}
	if _, ok := data.AsDict(); !ok {
		return vm.Value{}, vm.Typef("%s: data must be a dict, got %s", fn, data.Type())
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(json.Stringify(data)))
	return vm.Str(payload + "." + mac(payload, secret)), nil
}

func sessionData(token string, secret []byte) vm.Value {
	payload, ok := unsign(token, secret)
	if !ok {
		return vm.Nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return vm.Nil
	}
	v, err := json.Parse(string(raw))
	if err != nil {
		return vm.Nil
	}
	return v
}
