//go:build !harnlite

package crypto

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"hash"
	"math/big"
	"strings"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	htime "github.com/harnlang/harn/stdlib/time"
	"github.com/harnlang/harn/vm"
)

// JSON Web Tokens (RFC 7519) in compact form. The key's form follows the
// algorithm: HS256/384/512 take a shared secret (string or bytes), RS256 an
// RSA private key in PEM (a public key or certificate to verify), ES256 a
// P-256 key in PEM, EdDSA an ed25519 key in the hex form ed25519_keypair
// gives. Extra header fields may set anything but `alg`.
//
// Both call shapes are accepted because scripts are written both ways:
// jwt_sign(claims, key, options?) with options {alg, header}, and
// jwt_sign(alg, claims, key).

func init() {
	lib.Def("jwt_sign", "jwt_sign(claims, key, options?)", "a compact JWT of claims; options {alg = \"HS256\", header}; also jwt_sign(alg, claims, key); a key that is not a non-empty string or bytes is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		claims, key, alg, extra := a.At(0), a.At(1), "HS256", (*vm.Dict)(nil)
		if s, ok := a.At(0).AsString(); ok {
			alg, claims, key = s.Go(), a.At(1), a.At(2)
		} else if opts, ok := a.Dict(2); ok {
			if v, ok := opts.Get("alg"); ok && !v.IsNil() {
				alg = vm.ToDisplay(v)
			}
			if v, ok := opts.Get("header"); ok {
				extra, _ = v.AsDict()
			}
		}
		cd, ok := claims.AsDict()
		if !ok {
			return vm.Value{}, vm.Typef("jwt_sign: claims must be a dict, got %s", claims.Type())
		}
		header := lib.DictOf("typ", vm.Str("JWT"))
		if extra != nil {
			header = header.Merge(extra)
		}
		header = header.Set("alg", vm.Str(alg))
		input := segment(vm.Of(header)) + "." + segment(vm.Of(cd))
		sig, err := jwtSign(alg, key, []byte(input))
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(input + "." + base64.RawURLEncoding.EncodeToString(sig)), nil
	})
	lib.Def("jwt_verify", "jwt_verify(token, key, options?)", "{valid, header, claims, reason}: reason is nil, \"malformed\", \"bad signature\", \"expired\" or \"not yet valid\"; options {alg, now (Unix seconds or a date dict), leeway (seconds or a duration)}; a key that is not a non-empty string or bytes is an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// Checked before the token is read, so a nil key fails on the first
		// request rather than on the first well-formed token.
		if _, err := lib.Secret("jwt_verify", "key", a.At(1)); err != nil {
			return vm.Value{}, err
		}
		opts, _ := a.Dict(2)
		opt := func(k string) (vm.Value, bool) {
			if opts == nil {
				return vm.Nil, false
			}
			v, ok := opts.Get(k)
			return v, ok && !v.IsNil()
		}
		result := func(valid bool, header, claims vm.Value, reason string) (vm.Value, error) {
			r := vm.Nil
			if reason != "" {
				r = vm.Str(reason)
			}
			return vm.Of(lib.DictOf("valid", vm.BoolOf(valid), "header", header, "claims", claims, "reason", r)), nil
		}
		parts := strings.Split(a.Text(0), ".")
		if len(parts) != 3 {
			return result(false, vm.Nil, vm.Nil, "malformed")
		}
		header, herr := decodeSegment(parts[0])
		claims, cerr := decodeSegment(parts[1])
		sig, serr := base64.RawURLEncoding.DecodeString(parts[2])
		if herr != nil || cerr != nil || serr != nil {
			return result(false, vm.Nil, vm.Nil, "malformed")
		}
		hd, _ := header.AsDict()
		cd, _ := claims.AsDict()
		if hd == nil || cd == nil {
			return result(false, vm.Nil, vm.Nil, "malformed")
		}
		alg := ""
		if v, ok := hd.Get("alg"); ok {
			alg = vm.ToDisplay(v)
		}
		// The expected algorithm comes from the caller when given, so a token
		// cannot pick a weaker one ("none", or HS256 keyed with a public key).
		if v, ok := opt("alg"); ok && vm.ToDisplay(v) != alg {
			return result(false, header, claims, "bad signature")
		}
		ok, err := jwtVerify(alg, a.At(1), []byte(parts[0]+"."+parts[1]), sig)
		if err != nil {
			return vm.Value{}, err
		}
		if !ok {
			return result(false, header, claims, "bad signature")
		}
		now := float64(htime.VMNow(th).Unix())
		if v, ok := opt("now"); ok && !v.IsNil() {
			t := v
			if d, isDict := v.AsDict(); isDict {
				t, _ = d.Get("timestamp")
			}
			if now, ok = lib.ToFloat(t); !ok {
				return vm.Value{}, vm.Typef("jwt_verify: now must be Unix seconds or a date dict, got %s", v.Type())
			}
		}
		leeway := 0.0
		if v, ok := opt("leeway"); ok && !v.IsNil() {
			if d, isDur := v.AsDuration(); isDur {
				leeway = float64(d) / 1000
			} else if leeway, ok = lib.ToFloat(v); !ok {
				return vm.Value{}, vm.Typef("jwt_verify: leeway must be seconds or a duration, got %s", v.Type())
			}
		}
		if v, ok := cd.Get("exp"); ok {
			if exp, ok := lib.ToFloat(v); ok && now >= exp+leeway {
				return result(false, header, claims, "expired")
			}
		}
		if v, ok := cd.Get("nbf"); ok {
			if nbf, ok := lib.ToFloat(v); ok && now+leeway < nbf {
				return result(false, header, claims, "not yet valid")
			}
		}
		return result(true, header, claims, "")
	})
}

func segment(v vm.Value) string {
	return base64.RawURLEncoding.EncodeToString([]byte(json.Stringify(v)))
}

func decodeSegment(s string) (vm.Value, error) {
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return vm.Value{}, err
	}
	return json.Parse(string(raw))
}

func hmacHash(alg string) func() hash.Hash {
	switch alg {
	case "HS256":
		return sha256.New
	case "HS384":
		return sha512.New384
	case "HS512":
		return sha512.New
	}
	return nil
}

func unsupportedAlg(fn, alg string) error {
	return vm.Throwf("%s: unsupported algorithm %q (HS256, HS384, HS512, RS256, ES256 or EdDSA)", fn, alg)
}

func jwtSign(alg string, key vm.Value, input []byte) ([]byte, error) {
	if h := hmacHash(alg); h != nil {
		secret, err := lib.Secret("jwt_sign", "key", key)
		if err != nil {
			return nil, err
		}
		m := hmac.New(h, secret)
		m.Write(input)
		return m.Sum(nil), nil
	}
	digest := sha256.Sum256(input)
	switch alg {
	case "EdDSA":
		seed, err := hexArg("jwt_sign", "key", key, ed25519.SeedSize)
		if err != nil {
			return nil, err
		}
		return ed25519.Sign(ed25519.NewKeyFromSeed(seed), input), nil
	case "RS256":
		k, err := privateKey("jwt_sign", key)
		if err != nil {
			return nil, err
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, vm.Throwf("jwt_sign: RS256 needs an RSA private key")
		}
		return rsa.SignPKCS1v15(rand.Reader, rk, crypto.SHA256, digest[:])
	case "ES256":
		k, err := privateKey("jwt_sign", key)
		if err != nil {
			return nil, err
		}
		ek, ok := k.(*ecdsa.PrivateKey)
		if !ok || ek.Curve != elliptic.P256() {
			return nil, vm.Throwf("jwt_sign: ES256 needs an EC P-256 private key")
		}
		r, s, err := ecdsa.Sign(rand.Reader, ek, digest[:])
		if err != nil {
			return nil, err
		}
		sig := make([]byte, 64)
		r.FillBytes(sig[:32])
		s.FillBytes(sig[32:])
		return sig, nil
	}
	return nil, unsupportedAlg("jwt_sign", alg)
}

func jwtVerify(alg string, key vm.Value, input, sig []byte) (bool, error) {
	if h := hmacHash(alg); h != nil {
		// A PEM key is a public-key algorithm's: a token that asks for HMAC
		// with it is the algorithm-confusion forgery (the public key is no secret).
		secret, err := lib.Secret("jwt_verify", "key", key)
		if err != nil {
			return false, err
		}
		if strings.Contains(string(secret), "-----BEGIN") {
			return false, nil
		}
		m := hmac.New(h, secret)
		m.Write(input)
		return hmac.Equal(sig, m.Sum(nil)), nil
	}
	digest := sha256.Sum256(input)
	switch alg {
	case "EdDSA":
		pub, err := hexArg("jwt_verify", "key", key, ed25519.PublicKeySize)
		if err != nil {
			return false, err
		}
		return ed25519.Verify(pub, input, sig), nil
	case "RS256":
		k, err := publicKey("jwt_verify", key)
		if err != nil {
			return false, err
		}
		rk, ok := k.(*rsa.PublicKey)
		return ok && rsa.VerifyPKCS1v15(rk, crypto.SHA256, digest[:], sig) == nil, nil
	case "ES256":
		k, err := publicKey("jwt_verify", key)
		if err != nil {
			return false, err
		}
		ek, ok := k.(*ecdsa.PublicKey)
		if !ok || len(sig) != 64 {
			return false, nil
		}
		r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
		return ecdsa.Verify(ek, digest[:], r, s), nil
	}
	return false, nil
}

// keyText is a PEM key's text ("" for a value that is neither a string
// nor bytes, which then is no PEM block).
func keyText(v vm.Value) string {
	b, _ := lib.BytesOf(v)
	return string(b)
}

func pemBlock(fn string, key vm.Value) (*pem.Block, error) {
	block, _ := pem.Decode([]byte(keyText(key)))
	if block == nil {
		return nil, vm.Throwf("%s: key must be a PEM block", fn)
	}
	return block, nil
}

func privateKey(fn string, key vm.Value) (any, error) {
	block, err := pemBlock(fn, key)
	if err != nil {
		return nil, err
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	return nil, vm.Throwf("%s: unreadable private key (%s)", fn, block.Type)
}

// publicKey reads a public key, a certificate, or the public half of a
// private key, so a script can verify with whichever it holds.
func publicKey(fn string, key vm.Value) (any, error) {
	block, err := pemBlock(fn, key)
	if err != nil {
		return nil, err
	}
	if k, err := x509.ParsePKIXPublicKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParsePKCS1PublicKey(block.Bytes); err == nil {
		return k, nil
	}
	if c, err := x509.ParseCertificate(block.Bytes); err == nil {
		return c.PublicKey, nil
	}
	k, err := privateKey(fn, key)
	if err != nil {
		return nil, err
	}
	signer, ok := k.(crypto.Signer)
	if !ok {
		return nil, vm.Throwf("%s: the key is not a signing key", fn)
	}
	return signer.Public(), nil
}
