//go:build !harnlite

package crypto

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// The ed25519 builtins are left out of the lite harn: crypto/ed25519
// precomputes its tables when the process starts (docs/architecture.md,
// "Start-up").
func init() {
	lib.Def("ed25519_keypair", "ed25519_keypair(seed_hex?)", "{public_key, private_key} in hex (the private key is the 32-byte seed)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var seed []byte
		if a.Given(0) {
			s, err := hexArg("ed25519_keypair", "seed", a.At(0), ed25519.SeedSize)
			if err != nil {
				return vm.Value{}, err
			}
			seed = s
		} else {
			seed = make([]byte, ed25519.SeedSize)
			rand.Read(seed)
		}
		priv := ed25519.NewKeyFromSeed(seed)
		return vm.Of(lib.DictOf("public_key", vm.Str(hex.EncodeToString(priv.Public().(ed25519.PublicKey))),
			"private_key", vm.Str(hex.EncodeToString(seed)))), nil
	})
	lib.Def("ed25519_sign", "ed25519_sign(private_key, message)", "the hex signature of message (a string or bytes; anything else is an error)", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		seed, err := hexArg("ed25519_sign", "private key", a.At(0), ed25519.SeedSize)
		if err != nil {
			return vm.Value{}, err
		}
		msg, err := lib.Message("ed25519_sign", "message", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		sig := ed25519.Sign(ed25519.NewKeyFromSeed(seed), msg)
		return vm.Str(hex.EncodeToString(sig)), nil
	})
	lib.Def("ed25519_verify", "ed25519_verify(public_key, message, signature)", "whether signature signs message (a string or bytes; anything else is an error) for public_key; a malformed signature (anything but 64 bytes of hex) is false, a malformed public_key (anything but 32 bytes of hex) an error", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		// The signature arrives with the untrusted message, so any bad one
		// is just "does not verify"; the key is the verifier's own
		// configuration, so a bad one is a programming error worth a stop.
		pub, err := hexArg("ed25519_verify", "public key", a.At(0), ed25519.PublicKeySize)
		if err != nil {
			return vm.Value{}, err
		}
		msg, err := lib.Message("ed25519_verify", "message", a.At(1))
		if err != nil {
			return vm.Value{}, err
		}
		sig, err := hex.DecodeString(a.Text(2))
		if err != nil || len(sig) != ed25519.SignatureSize {
			return vm.False, nil
		}
		return vm.BoolOf(ed25519.Verify(pub, msg, sig)), nil
	})

}
