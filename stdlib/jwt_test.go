package stdlib_test

import (
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

// RS256 and ES256 tokens sign with a PEM private key and verify with the
// public key (or the private key), and not with another key.
func TestJWTPublicKeyAlgorithms(t *testing.T) {
	rk, _ := rsa.GenerateKey(rand.Reader, 2048)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	pemOf := func(typ string, der []byte) string {
		return strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})), "\n", `\n`)
	}
	pub := func(k any) string {
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return pemOf("PUBLIC KEY", der)
	}
	ecDER, _ := x509.MarshalECPrivateKey(ek)
	src := `
let rsa_priv = "` + pemOf("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(rk)) + `"
let rsa_pub = "` + pub(&rk.PublicKey) + `"
let ec_priv = "` + pemOf("EC PRIVATE KEY", ecDER) + `"
let ec_pub = "` + pub(&ek.PublicKey) + `"
let other_pub = "` + pub(&other.PublicKey) + `"
let r = jwt_sign("RS256", {sub: "r"}, rsa_priv)
println("${jwt_verify(r, rsa_pub).valid} ${jwt_verify(r, rsa_priv).valid} ${jwt_verify(r, other_pub).reason}")
let e = jwt_sign({sub: "e"}, ec_priv, {alg: "ES256", header: {kid: "k1"}})
let v = jwt_verify(e, ec_pub)
println("${v.valid} ${v.header.kid} ${v.claims.sub} ${jwt_verify(e, other_pub).reason}")
let forged = jwt_sign({sub: "admin"}, rsa_pub, {alg: "HS256"})
println(jwt_verify(forged, rsa_pub).reason)
`
	expectOutput(t, src, "true true bad signature\ntrue k1 e bad signature\nbad signature")
}

// A key of the wrong curve or kind is a clear error, not an internal one:
// ES256 with a P-384 key, and verifying with an X25519 private key.
func TestJWTWrongKeyKind(t *testing.T) {
	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalECPrivateKey(p384)
	xk, _ := ecdh.X25519().GenerateKey(rand.Reader)
	xDER, err := x509.MarshalPKCS8PrivateKey(xk)
	if err != nil {
		t.Fatal(err)
	}
	pemOf := func(typ string, der []byte) string {
		return strings.ReplaceAll(string(pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})), "\n", `\n`)
	}
	src := `
let p384 = "` + pemOf("EC PRIVATE KEY", p384DER) + `"
let xpriv = "` + pemOf("PRIVATE KEY", xDER) + `"
println(try { jwt_sign({sub: "e"}, p384, {alg: "ES256"}) } catch (e) { e })
let tok = jwt_sign({sub: "e"}, "secret", {alg: "HS256"})
let es = tok.split(".")
let forged = "eyJhbGciOiJFUzI1NiJ9.${es[1]}.${es[2]}"
println(try { jwt_verify(forged, xpriv) } catch (e) { e })
`
	expectOutput(t, src, "jwt_sign: ES256 needs an EC P-256 private key\njwt_verify: the key is not a signing key")
}
