//go:build !harnlite

package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCert writes a certificate for 127.0.0.1 signed by its own key,
// made here rather than by the code under test, and returns the paths of
// its PEM files and a pool that trusts it.
func testCert(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "harn serve test"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600)
	leaf, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(leaf)
	return certFile, keyFile, pool
}

// toolsListBody is a 2026-07-28 tools/list request.
const toolsListBody = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`

// postMCP posts body to base's /mcp with client and extra headers; it
// returns the response (body read into text).
func postMCP(t *testing.T, client *http.Client, base, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/list")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func tlsClient(cfg *tls.Config) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

func TestServeMCPTLSPemServesHTTPS(t *testing.T) {
	certFile, keyFile, pool := testCert(t)
	base := startServeHTTP(t, "--surface", "script", "--cert", certFile, "--key", keyFile, writeServeScript(t, serveWidget))
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("startup line names %s, want https://", base)
	}
	resp, body := postMCP(t, tlsClient(&tls.Config{RootCAs: pool}), base, toolsListBody, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `"lookup_widget"`) {
		t.Errorf("tools/list over HTTPS: %d %s", resp.StatusCode, body)
	}
	if resp.TLS == nil || resp.Header.Get("Strict-Transport-Security") == "" {
		t.Errorf("pem: TLS %v, Strict-Transport-Security %q", resp.TLS != nil, resp.Header.Get("Strict-Transport-Security"))
	}
	// The listener speaks TLS only.
	if resp, err := http.Post(strings.Replace(base, "https:", "http:", 1)+"/mcp", "application/json", strings.NewReader(toolsListBody)); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("plain HTTP is answered 200 on a pem listener")
		}
	}
}

func TestServeMCPTLSPemFromTheEnvironment(t *testing.T) {
	certFile, keyFile, pool := testCert(t)
	base, _ := startServeHTTPCmd(t, []string{"HARN_SERVE_CERT=" + certFile, "HARN_SERVE_KEY=" + keyFile}, "--surface", "script", writeServeScript(t, serveWidget))
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("startup line names %s, want https://", base)
	}
	if resp, body := postMCP(t, tlsClient(&tls.Config{RootCAs: pool}), base, toolsListBody, nil); resp.StatusCode != 200 {
		t.Errorf("tools/list over HTTPS: %d %s", resp.StatusCode, body)
	}
}

func TestServeMCPTLSPemTakesPEMText(t *testing.T) {
	certFile, keyFile, pool := testCert(t)
	cert, _ := os.ReadFile(certFile)
	key, _ := os.ReadFile(keyFile)
	// A value that starts with "--" goes after "=" on the command line;
	// a key is better kept out of the arguments, which ps shows.
	base, _ := startServeHTTPCmd(t, []string{"HARN_SERVE_KEY=" + string(key)}, "--surface", "script", "--tls", "pem", "--cert="+string(cert), writeServeScript(t, serveWidget))
	if resp, body := postMCP(t, tlsClient(&tls.Config{RootCAs: pool}), base, toolsListBody, nil); resp.StatusCode != 200 {
		t.Errorf("tools/list over HTTPS: %d %s", resp.StatusCode, body)
	}
}

func TestServeMCPTLSSelfSignedDev(t *testing.T) {
	base, _, before := startServeHTTPLog(t, nil, "--surface", "script", "--tls", "self-signed-dev", writeServeScript(t, serveWidget))
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("startup line names %s, want https://", base)
	}
	var fingerprint string
	for _, l := range before {
		if _, fp, ok := strings.Cut(l, "for development only; SHA-256 fingerprint "); ok {
			fingerprint = fp
		}
	}
	if fingerprint == "" {
		t.Fatalf("no development-certificate fingerprint on stderr: %q", before)
	}
	resp, body := postMCP(t, tlsClient(&tls.Config{InsecureSkipVerify: true}), base, toolsListBody, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("tools/list over HTTPS: %d %s", resp.StatusCode, body)
	}
	leaf := resp.TLS.PeerCertificates[0]
	sum := sha256.Sum256(leaf.Raw)
	if want := strings.ToUpper(hex.EncodeToString(sum[:])); strings.ReplaceAll(fingerprint, ":", "") != want {
		t.Errorf("announced fingerprint %s, the certificate's is %s", fingerprint, want)
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("the development certificate does not cover %s: %v", h, err)
		}
	}
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Error("a development certificate's responses ask browsers for HSTS")
	}
}

func TestServeMCPTLSEdgeIsPlainHTTPWithHSTS(t *testing.T) {
	base, _, before := startServeHTTPLog(t, nil, "--surface", "script", "--tls", "edge", writeServeScript(t, serveWidget))
	if !strings.HasPrefix(base, "http://") {
		t.Fatalf("edge listener announced as %s, want http://", base)
	}
	if !strings.Contains(strings.Join(before, "\n"), "--tls edge: TLS ends at the proxy in front") {
		t.Errorf("no edge notice on stderr: %q", before)
	}
	resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, map[string]string{"X-Forwarded-Proto": "https"})
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") != "max-age=31536000; includeSubDomains" {
		t.Errorf("edge: %d, Strict-Transport-Security %q: %s", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"), body)
	}
}

func TestServeMCPPlainHasNoHSTS(t *testing.T) {
	base := startServeHTTP(t, "--surface", "script", writeServeScript(t, serveWidget))
	if resp, _ := postMCP(t, http.DefaultClient, base, toolsListBody, nil); resp.Header.Get("Strict-Transport-Security") != "" {
		t.Error("plain HTTP responses carry Strict-Transport-Security")
	}
}

func TestServeMCPTLSUsageErrors(t *testing.T) {
	script := writeServeScript(t, serveWidget)
	t.Setenv("HARN_SERVE_CERT", "")
	t.Setenv("HARN_SERVE_KEY", "")
	for _, tc := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--transport", "http", "--tls", "https"}, "error: --tls must be plain, edge, self-signed-dev or pem"},
		{nil, []string{"--tls", "edge"}, "error: --tls edge requires --transport http"},
		{nil, []string{"--tls", "self-signed-dev"}, "error: --tls self-signed-dev requires --transport http"},
		{nil, []string{"--cert", "c.pem", "--key", "k.pem"}, "error: --cert and --key require --transport http"},
		{nil, []string{"--transport", "http", "--tls", "pem"}, "error: --tls pem requires --cert and --key (or HARN_SERVE_CERT and HARN_SERVE_KEY)"},
		{nil, []string{"--transport", "http", "--cert", "c.pem"}, "error: --cert requires --key (or HARN_SERVE_KEY)"},
		{nil, []string{"--transport", "http", "--key", "k.pem"}, "error: --key requires --cert (or HARN_SERVE_CERT)"},
		{[]string{"HARN_SERVE_CERT", "c.pem"}, []string{"--transport", "http"}, "error: HARN_SERVE_CERT requires --key (or HARN_SERVE_KEY)"},
		{nil, []string{"--transport", "http", "--tls", "self-signed-dev", "--cert", "c.pem", "--key", "k.pem"}, "error: --cert and --key go with --tls pem, not --tls self-signed-dev"},
		{nil, []string{"--transport", "http", "--hmac-secret", ""}, "error: --hmac-secret must not be empty"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if tc.env != nil {
				t.Setenv(tc.env[0], tc.env[1])
			}
			_, stderr, code := runHarn(append(append([]string{"serve", "mcp"}, tc.args...), script)...)
			if code != 2 || !strings.HasPrefix(stderr, tc.want+"\n") {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, firstLine(stderr), tc.want)
			}
		})
	}
}

func TestServeMCPTLSExplicitModeIgnoresTheEnvironment(t *testing.T) {
	t.Setenv("HARN_SERVE_CERT", "missing-cert.pem")
	t.Setenv("HARN_SERVE_KEY", "missing-key.pem")
	base := startServeHTTP(t, "--surface", "script", "--tls", "plain", writeServeScript(t, serveWidget))
	if resp, body := postMCP(t, http.DefaultClient, base, toolsListBody, nil); resp.StatusCode != 200 {
		t.Errorf("--tls plain with HARN_SERVE_CERT set: %d %s", resp.StatusCode, body)
	}
}

func TestServeMCPTLSCertificateErrors(t *testing.T) {
	script := writeServeScript(t, serveWidget)
	certFile, keyFile, _ := testCert(t)
	otherCert, otherKey, _ := testCert(t)
	notPEM := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(notPEM, []byte("not a certificate\n"), 0o644)
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for name, tc := range map[string]struct {
		cert, key, want string
	}{
		"missing cert": {missing, keyFile, "error: --tls pem: cannot read cert file " + missing + ": no such file or directory"},
		"missing key":  {certFile, missing, "error: --tls pem: cannot read key file " + missing + ": no such file or directory"},
		"bad PEM":      {notPEM, keyFile, "error: --tls pem: invalid certificate or key: failed to find any PEM data in certificate input"},
		"key mismatch": {certFile, otherKey, "error: --tls pem: invalid certificate or key: private key does not match public key"},
		"cert as key":  {otherCert, otherCert, "error: --tls pem: invalid certificate or key: found a certificate rather than a key in the PEM for the private key"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := runHarn("serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", "--cert", tc.cert, "--key", tc.key, script)
			if code != 1 || stderr != tc.want+"\n" {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, tc.want)
			}
		})
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
