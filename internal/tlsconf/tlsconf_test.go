package tlsconf

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSelfSignedCoversTheLoopbackHosts(t *testing.T) {
	c, err := SelfSigned(nil)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(c.Config.Certificates[0].Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range DevHosts {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("development certificate does not cover %s: %v", h, err)
		}
	}
	if len(c.KeyPEM) == 0 {
		t.Error("a development certificate's key PEM is empty")
	}
}

func TestFingerprintIsTheSHA256OfTheLeaf(t *testing.T) {
	c, err := SelfSigned([]string{"example.test"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(c.Config.Certificates[0].Certificate[0])
	want := strings.ToUpper(hex.EncodeToString(sum[:]))
	got := strings.ReplaceAll(c.Fingerprint(), ":", "")
	if got != want || len(c.Fingerprint()) != 32*3-1 {
		t.Errorf("Fingerprint() = %s, want the colon-separated %s", c.Fingerprint(), want)
	}
}

func TestFromPEMRefusesAKeyOfAnotherCertificate(t *testing.T) {
	a, _ := SelfSigned(nil)
	b, _ := SelfSigned(nil)
	_, err := FromPEM(a.CertPEM, b.KeyPEM)
	if err == nil || !strings.Contains(err.Error(), "invalid certificate or key: private key does not match public key") {
		t.Errorf("mismatched key: err = %v", err)
	}
}

func TestFromPEMRefusesTextThatIsNotPEM(t *testing.T) {
	_, err := FromPEM([]byte("not a certificate"), []byte("nor a key"))
	if err == nil || !strings.HasPrefix(err.Error(), "invalid certificate or key: ") {
		t.Errorf("bad PEM: err = %v", err)
	}
}

func TestReadPEMTakesTextOrAFile(t *testing.T) {
	text := "-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"
	if b, err := ReadPEM("cert", text); err != nil || string(b) != text {
		t.Errorf("PEM text: %q, %v", b, err)
	}
	path := filepath.Join(t.TempDir(), "cert.pem")
	os.WriteFile(path, []byte(text), 0o600)
	if b, err := ReadPEM("cert", path); err != nil || string(b) != text {
		t.Errorf("PEM file: %q, %v", b, err)
	}
	missing := filepath.Join(t.TempDir(), "missing.pem")
	_, err := ReadPEM("key", missing)
	if err == nil || err.Error() != "cannot read key file "+missing+": no such file or directory" {
		t.Errorf("missing file: err = %v", err)
	}
}
