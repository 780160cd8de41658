package httpserver

import (
	"crypto/tls"
	"slices"
	"strings"

	"github.com/harnlang/harn/internal/tlsconf"
	"github.com/harnlang/harn/stdlib/fs"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// TLSConfig is how a server meets TLS (type "http_server_tls"), made by
// the http_server_tls_* builtins and passed as http_server's `tls` option:
//
//   - plain: no TLS at all (the default);
//   - edge: TLS ends at a proxy or load balancer in front of the server,
//     which itself speaks plain HTTP; security headers then include
//     Strict-Transport-Security, since clients reach it over HTTPS;
//   - pem: the server terminates TLS with a certificate and key in PEM;
//   - self_signed_dev: a certificate for localhost made in memory at
//     start-up, for development only.
type TLSConfig struct {
	mode    string
	cfg     *tls.Config // nil for plain and edge
	certPEM string
	keyPEM  string // self_signed_dev only: a development key is no secret
}

func (*TLSConfig) Type() string { return "http_server_tls" }
func (*TLSConfig) Truth() bool  { return true }
func (t *TLSConfig) Display(sb *strings.Builder) {
	sb.WriteString("<http_server_tls:")
	sb.WriteString(t.mode)
	sb.WriteByte('>')
}

// EqualTo: a TLS setting equals only itself.
func (t *TLSConfig) EqualTo(o vm.Value) bool { u, ok := o.Object().(*TLSConfig); return ok && t == u }

// Attr is `tls.mode`, `tls.cert_pem` (the certificate, for clients that
// must trust a self-signed one) and, for self_signed_dev only,
// `tls.key_pem`.
func (t *TLSConfig) Attr(name string) (vm.Value, error) {
	switch name {
	case "mode":
		return vm.Str(t.mode), nil
	case "cert_pem":
		if t.certPEM == "" {
			return vm.Nil, nil
		}
		return vm.Str(t.certPEM), nil
	case "key_pem":
		if t.keyPEM == "" {
			return vm.Nil, nil
		}
		return vm.Str(t.keyPEM), nil
	}
	return vm.Value{}, vm.Runtimef("http_server_tls has no field `%s`", name)
}

// terminates reports whether the server itself speaks TLS.
func (t *TLSConfig) terminates() bool { return t != nil && t.cfg != nil }

// pemText reads a PEM argument: the PEM text itself, or the path of a
// file holding it, relative to the execution root as read_file's is.
func pemText(th *vm.Thread, name, what string, v vm.Value) ([]byte, error) {
	s, ok := v.AsString()
	if !ok {
		return nil, vm.Typef("%s: %s must be a string (PEM text or a file path), got %s", name, what, v.Type())
	}
	text := s.Go()
	if !strings.Contains(text, "-----BEGIN") {
		text = fs.ResolvePath(th, text)
	}
	b, err := tlsconf.ReadPEM(what, text)
	if err != nil {
		return nil, vm.Throwf("%s: %s", name, err)
	}
	return b, nil
}

func newPEMConfig(certPEM, keyPEM []byte) (*TLSConfig, error) {
	c, err := tlsconf.FromPEM(certPEM, keyPEM)
	if err != nil {
		return nil, vm.Throwf("http_server_tls_pem: %s", err)
	}
	return &TLSConfig{mode: "pem", cfg: c.Config, certPEM: string(c.CertPEM)}, nil
}

// selfSigned makes a development certificate for hosts (tlsconf.SelfSigned).
func selfSigned(hosts []string) (*TLSConfig, error) {
	c, err := tlsconf.SelfSigned(hosts)
	if err != nil {
		return nil, err
	}
	return &TLSConfig{mode: "self_signed_dev", cfg: c.Config, certPEM: string(c.CertPEM), keyPEM: string(c.KeyPEM)}, nil
}

func init() {
	lib.Def("http_server_tls_plain", "http_server_tls_plain()", "TLS setting for http_server: plain HTTP, no TLS (the default)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(&TLSConfig{mode: "plain"}), nil
	})
	lib.Def("http_server_tls_edge", "http_server_tls_edge()", "TLS setting for http_server: TLS ends at a proxy in front; the server speaks plain HTTP and its security headers include HSTS", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return vm.Of(&TLSConfig{mode: "edge"}), nil
	})
	lib.Def("http_server_tls_pem", "http_server_tls_pem(cert, key)", "TLS setting for http_server: terminate TLS with a PEM certificate chain and key (PEM text or file paths)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		if a.Len() < 2 {
			return vm.Value{}, lib.ArgCountError("http_server_tls_pem", 2)
		}
		cert, err := pemText(th, "http_server_tls_pem", "cert", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		key, err := pemText(th, "http_server_tls_pem", "key", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		t, err := newPEMConfig(cert, key)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(t), nil
	})
	lib.Def("http_server_tls_self_signed_dev", "http_server_tls_self_signed_dev(hosts?)", "TLS setting for http_server: a self-signed certificate made in memory for hosts (default localhost, 127.0.0.1, ::1); development only", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		hosts := slices.Clone(tlsconf.DevHosts)
		if a.Given(0) && !a.At(0).IsNil() {
			l, ok := a.List(0)
			if !ok {
				return vm.Value{}, vm.Typef("http_server_tls_self_signed_dev: hosts must be a list of strings, got %s", a.At(0).Type())
			}
			hosts = hosts[:0]
			for _, x := range l.Items() {
				s, ok := x.AsString()
				if !ok || s.Go() == "" {
					return vm.Value{}, vm.Typef("http_server_tls_self_signed_dev: hosts must be a list of strings, got an item of type %s", x.Type())
				}
				hosts = append(hosts, s.Go())
			}
			if len(hosts) == 0 {
				return vm.Value{}, vm.Throwf("http_server_tls_self_signed_dev: hosts must not be empty")
			}
		}
		t, err := selfSigned(hosts)
		if err != nil {
			return vm.Value{}, vm.Throwf("http_server_tls_self_signed_dev: %s", err)
		}
		return vm.Of(t), nil
	})
}
