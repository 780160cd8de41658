// Package tlsconf owns the TLS settings the project's HTTP servers share:
// the Harn http_server's tls modes (stdlib/httpserver) and the listener
// of `harn serve mcp --transport http` (cmd/harn). Both terminate TLS
// with a PEM certificate and key, or with a self-signed certificate made
// in memory for development; this package makes the *tls.Config for
// each, so the two servers accept the same files and refuse bad ones
// with the same messages.
package tlsconf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"time"
)

// DevHosts are the hosts a development certificate is made for by
// default: the loopback names a local client uses.
var DevHosts = []string{"localhost", "127.0.0.1", "::1"}

// devValidity is how long a development certificate is valid.
const devValidity = 30 * 24 * time.Hour

// Cert is a certificate a server presents: its TLS configuration and
// the PEM text of its certificate (and, for a development certificate
// only, of its key: a key made for a test is no secret).
type Cert struct {
	Config  *tls.Config
	CertPEM []byte
	KeyPEM  []byte // set for SelfSigned only
}

// FromPEM is the certificate of a PEM certificate chain and its private
// key. A bad block, a missing one or a key that does not match the
// certificate is an error that says which ("invalid certificate or key:
// ...").
func FromPEM(certPEM, keyPEM []byte) (*Cert, error) {
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("invalid certificate or key: %s", strings.TrimPrefix(err.Error(), "tls: "))
	}
	return &Cert{Config: serverConfig(pair), CertPEM: certPEM}, nil
}

// SelfSigned makes an ECDSA P-256 certificate for hosts (names or IP
// addresses; DevHosts when empty), valid for 30 days from now, signed by
// its own key: for development only, since no client trusts it unless
// told to.
func SelfSigned(hosts []string) (*Cert, error) {
	if len(hosts) == 0 {
		hosts = DevHosts
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: hosts[0], Organization: []string{"harn development"}},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(devValidity),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	c, err := FromPEM(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
	if err != nil {
		return nil, err
	}
	c.KeyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
	return c, nil
}

// Fingerprint is the SHA-256 fingerprint of the leaf certificate, as
// `openssl x509 -fingerprint -sha256` prints it: upper-case hex byte
// pairs joined by colons.
func (c *Cert) Fingerprint() string {
	sum := sha256.Sum256(c.Config.Certificates[0].Certificate[0])
	var sb strings.Builder
	for i, b := range sum {
		if i > 0 {
			sb.WriteByte(':')
		}
		fmt.Fprintf(&sb, "%02X", b)
	}
	return sb.String()
}

// ReadPEM is the PEM text of value, a `what` ("cert", "key") given as
// the text itself (it holds "-----BEGIN") or as the path of a file
// holding it; a file that cannot be read is an error naming it.
func ReadPEM(what, value string) ([]byte, error) {
	if strings.Contains(value, "-----BEGIN") {
		return []byte(value), nil
	}
	b, err := os.ReadFile(value)
	if err != nil {
		if pe, ok := err.(*os.PathError); ok {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read %s file %s: %s", what, value, err)
	}
	return b, nil
}

// Listener is ln speaking TLS with c's configuration.
func (c *Cert) Listener(ln net.Listener) net.Listener { return tls.NewListener(ln, c.Config.Clone()) }

// serverConfig presents pair, to TLS 1.2 clients and later.
func serverConfig(pair tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
}
