package crypto

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/hex"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// X25519 key agreement (RFC 7748), keys in lowercase hex like ed25519's.

func init() {
	lib.Def("x25519_keypair", "x25519_keypair(private_hex?)", "{public_key, private_key} in hex (32 bytes each)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var priv *ecdh.PrivateKey
		if a.Given(0) {
			b, err := hexArg("x25519_keypair", "private key", a.At(0), 32)
			if err != nil {
				return vm.Value{}, err
			}
			priv, _ = ecdh.X25519().NewPrivateKey(b)
		} else {
			priv, _ = ecdh.X25519().GenerateKey(rand.Reader)
		}
		return vm.Of(lib.DictOf("public_key", vm.Str(hex.EncodeToString(priv.PublicKey().Bytes())),
			"private_key", vm.Str(hex.EncodeToString(priv.Bytes())))), nil
	})
	lib.Def("x25519_agree", "x25519_agree(private_key, peer_public_key)", "the 32-byte shared secret in hex", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		pb, err := hexArg("x25519_agree", "private key", a.At(0), 32)
		if err != nil {
			return vm.Value{}, err
		}
		qb, err := hexArg("x25519_agree", "public key", a.At(1), 32)
		if err != nil {
			return vm.Value{}, err
		}
		priv, _ := ecdh.X25519().NewPrivateKey(pb)
		pub, _ := ecdh.X25519().NewPublicKey(qb)
		secret, err := priv.ECDH(pub)
		if err != nil {
			// A low-order peer key gives the all-zero secret, which RFC 7748 §6.1 says to refuse.
			return vm.Value{}, vm.Throwf("x25519_agree: public key is of low order")
		}
		return vm.Str(hex.EncodeToString(secret)), nil
	})
}
