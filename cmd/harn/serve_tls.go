//go:build !harnlite

package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/harnlang/harn/internal/tlsconf"
)

// serveTLSModes are the values of `harn serve mcp --tls` (docs/mcp.md,
// TLS): plain HTTP; edge, plain HTTP behind a proxy that terminates TLS;
// self-signed-dev, HTTPS with a certificate made in memory; pem, HTTPS
// with --cert and --key.
var serveTLSModes = []string{"plain", "edge", "self-signed-dev", "pem"}

// resolveServeTLS settles f.tls from --tls, --cert, --key and, for the
// pem mode, HARN_SERVE_CERT and HARN_SERVE_KEY: a certificate and a key
// without --tls mean pem. It returns a usage error, or "". TLS is the
// HTTP listener's: with stdio, --tls other than plain, --cert and --key
// are usage errors and the environment is not read.
func resolveServeTLS(f *serveFlags) string {
	certFlag, keyFlag := f.cert != "", f.key != ""
	if f.transport != "http" {
		switch {
		case f.tls != "" && f.tls != "plain":
			return "--tls " + f.tls + " requires --transport http"
		case certFlag || keyFlag:
			return "--cert and --key require --transport http"
		}
		f.tls = "plain"
		return ""
	}
	if f.tls != "" && f.tls != "pem" {
		if certFlag || keyFlag {
			return "--cert and --key go with --tls pem, not --tls " + f.tls
		}
		return ""
	}
	certFrom, keyFrom := "--cert", "--key"
	if !certFlag {
		f.cert, certFrom = os.Getenv("HARN_SERVE_CERT"), "HARN_SERVE_CERT"
	}
	if !keyFlag {
		f.key, keyFrom = os.Getenv("HARN_SERVE_KEY"), "HARN_SERVE_KEY"
	}
	switch {
	case f.cert != "" && f.key != "":
		f.tls = "pem"
	case f.tls == "pem":
		return "--tls pem requires --cert and --key (or HARN_SERVE_CERT and HARN_SERVE_KEY)"
	case f.cert != "":
		return certFrom + " requires --key (or HARN_SERVE_KEY)"
	case f.key != "":
		return keyFrom + " requires --cert (or HARN_SERVE_CERT)"
	default:
		f.tls = "plain"
	}
	return ""
}

// loadServeTLS makes the certificate of a listener that terminates TLS
// (pem, self-signed-dev); nil for plain and edge. A certificate or key
// that cannot be read or used is an error for stderr (exit 1).
func loadServeTLS(f *serveFlags) (*tlsconf.Cert, error) {
	switch f.tls {
	case "self-signed-dev":
		return tlsconf.SelfSigned(nil)
	case "pem":
		cert, err := tlsconf.ReadPEM("cert", f.cert)
		if err != nil {
			return nil, err
		}
		key, err := tlsconf.ReadPEM("key", f.key)
		if err != nil {
			return nil, err
		}
		return tlsconf.FromPEM(cert, key)
	}
	return nil, nil
}

// announceServeTLS tells on stderr what a TLS mode means for clients
// before the server listens: the development certificate's hosts and
// fingerprint (a client pins or trusts it explicitly), or that an edge
// terminates TLS in front.
func announceServeTLS(f *serveFlags, cert *tlsconf.Cert, stderr io.Writer) {
	switch f.tls {
	case "self-signed-dev":
		fmt.Fprintf(stderr, "[harn] serve mcp: self-signed certificate for %s, for development only; SHA-256 fingerprint %s\n",
			strings.Join(tlsconf.DevHosts, ", "), cert.Fingerprint())
	case "edge":
		fmt.Fprintln(stderr, "[harn] serve mcp: --tls edge: TLS ends at the proxy in front, which clients reach over https; this listener speaks plain HTTP")
	}
}
