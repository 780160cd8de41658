package encoding

// Encodings, hashes and the bytes_* helpers (docs/spec/builtins.md §4.5). Text
// inputs are UTF-8; decoders that return strings decode lossily.

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha3"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"strings"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
)

// RawBytes is the byte content of a "bytes or text" argument.
func RawBytes(v vm.Value) []byte {
	if b, ok := v.Object().(*lib.Bytes); ok {
		return b.Data()
	}
	return []byte(vm.ToDisplay(v))
}

// textOrBytes is argument i as text for the base64, base32 and hex
// decoders: bytes give their content (base64 text read with
// read_file_bytes, say), not their display form b"…", which no decoder
// could read (this implementation's choice, docs/builtins.md); anything
// else its display form. url_decode keeps the display form, as text
// parameters do (docs/spec/builtins.md §0).
func textOrBytes(a vm.Args, i int) string { return string(RawBytes(a.At(i))) }

// digest registers the hash function name as a builtin that returns the
// lower-case hex digest of its argument.
func digest(name string, mk func() hash.Hash) {
	lib.Def(name, name+"(x) -> string", "lower-case hex digest", func(_ *vm.Thread, a vm.Args) (vm.Value, error) {
		h := mk()
		h.Write(RawBytes(a.At(0)))
		return vm.Str(hex.EncodeToString(h.Sum(nil))), nil
	})
}

func init() {
	codec := func(name, sig, doc string, fn func(a vm.Args) (vm.Value, error)) {
		lib.Def(name, sig, doc, func(th *vm.Thread, a vm.Args) (vm.Value, error) { return fn(a) })
	}
	codec("base64_encode", "base64_encode(x) -> string", "standard base64 with padding", func(a vm.Args) (vm.Value, error) {
		return vm.Str(base64.StdEncoding.EncodeToString(RawBytes(a.At(0)))), nil
	})
	codec("base64_decode", "base64_decode(s) -> string", "decode standard base64 to text; s may be bytes holding the base64 text (so may the argument of base64url_decode, base32_decode and hex_decode)", func(a vm.Args) (vm.Value, error) {
		b, err := decodeBase64(base64.StdEncoding, textOrBytes(a, 0))
		if err != nil {
			return vm.Value{}, vm.Runtimef("base64 decode error: %s", err)
		}
		return vm.Str(lib.LossyUTF8(b)), nil
	})
	codec("base64url_encode", "base64url_encode(s) -> string", "URL-safe base64 without padding", func(a vm.Args) (vm.Value, error) {
		return vm.Str(base64.RawURLEncoding.EncodeToString(RawBytes(a.At(0)))), nil
	})
	codec("base64url_decode", "base64url_decode(s) -> string", "decode URL-safe base64 to text; input must be unpadded (a trailing = is a base64url decode error)", func(a vm.Args) (vm.Value, error) {
		b, err := decodeBase64(base64.RawURLEncoding, textOrBytes(a, 0))
		if err != nil {
			return vm.Value{}, vm.Runtimef("base64url decode error: %s", err)
		}
		return vm.Str(lib.LossyUTF8(b)), nil
	})
	codec("base32_encode", "base32_encode(s) -> string", "RFC 4648 base32 with padding", func(a vm.Args) (vm.Value, error) {
		return vm.Str(base32.StdEncoding.EncodeToString(RawBytes(a.At(0)))), nil
	})
	codec("base32_decode", "base32_decode(s) -> string", "decode RFC 4648 base32 to text", func(a vm.Args) (vm.Value, error) {
		text := textOrBytes(a, 0)
		b, err := base32.StdEncoding.DecodeString(text)
		if n := len(strings.NewReplacer("\r", "", "\n", "").Replace(text)); err == nil && n%8 != 0 {
			// Go stops at a padded block and ignores a partial one after it
			err = base32.CorruptInputError(n - n%8)
		}
		if err != nil {
			var ce base32.CorruptInputError
			if errors.As(err, &ce) {
				return vm.Value{}, vm.Runtimef("base32 decode error: invalid base32 input at offset %d", int64(ce))
			}
			return vm.Value{}, vm.Runtimef("base32 decode error: %s", err)
		}
		return vm.Str(lib.LossyUTF8(b)), nil
	})
	codec("hex_encode", "hex_encode(s) -> string", "lower-case hex", func(a vm.Args) (vm.Value, error) {
		return vm.Str(hex.EncodeToString(RawBytes(a.At(0)))), nil
	})
	codec("hex_decode", "hex_decode(s) -> string", "decode hex (either case) to text", func(a vm.Args) (vm.Value, error) {
		b, err := decodeHex(textOrBytes(a, 0))
		if err != nil {
			return vm.Value{}, vm.Runtimef("hex decode error: %s", err)
		}
		return vm.Str(lib.LossyUTF8(b)), nil
	})
	codec("url_encode", "url_encode(s) -> string", "percent-encode all but A-Z a-z 0-9 - _ . ~", func(a vm.Args) (vm.Value, error) {
		return vm.Str(percentEncode(a.Text(0))), nil
	})
	codec("url_decode", "url_decode(s) -> string", "decode %XX and + as space", func(a vm.Args) (vm.Value, error) {
		return vm.Str(PercentDecode(a.Text(0), true)), nil
	})

	digest("sha256", sha256.New)
	digest("sha224", sha256.New224)
	digest("sha384", sha512.New384)
	digest("sha512", sha512.New)
	digest("sha512_256", sha512.New512_256)
	digest("md5", md5.New)
	digest("sha3_256", func() hash.Hash { return sha3.New256() })
	digest("sha3_512", func() hash.Hash { return sha3.New512() })
	codec("hmac_sha256", "hmac_sha256(key, msg) -> string", "HMAC-SHA256 as hex; key and msg are strings or bytes, either may be empty (RFC 2104); anything else, nil included, is an error", func(a vm.Args) (vm.Value, error) {
		m, err := hmacSHA256("hmac_sha256", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(hex.EncodeToString(m)), nil
	})
	codec("hmac_sha256_base64", "hmac_sha256_base64(key, msg) -> string", "HMAC-SHA256 as base64; key and msg as for hmac_sha256", func(a vm.Args) (vm.Value, error) {
		m, err := hmacSHA256("hmac_sha256_base64", a)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(base64.StdEncoding.EncodeToString(m)), nil
	})
	codec("constant_time_eq", "constant_time_eq(a, b) -> bool", "timing-safe equality", func(a vm.Args) (vm.Value, error) {
		return vm.BoolOf(subtle.ConstantTimeCompare(RawBytes(a.At(0)), RawBytes(a.At(1))) == 1), nil
	})

	// bytes_*: strict argument kinds.
	codec("bytes_from_string", "bytes_from_string(s) -> bytes", "the UTF-8 bytes of s", func(a vm.Args) (vm.Value, error) {
		s, err := strArgN(a, "bytes_from_string", 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Of(lib.NewBytes([]byte(s))), nil
	})
	codec("bytes_to_string", "bytes_to_string(b) -> string?", "strict UTF-8 decode", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_to_string", 0)
		if err != nil {
			return vm.Value{}, err
		}
		if !utf8.Valid(b) {
			return vm.Value{}, vm.Runtimef("bytes_to_string: %s", rustUTF8Error(b))
		}
		return vm.Str(string(b)), nil
	})
	codec("bytes_to_string_lossy", "bytes_to_string_lossy(b) -> string", "UTF-8 decode, each ill-formed sequence (a character cut short counts once) → U+FFFD", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_to_string_lossy", 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(lib.LossyUTF8(b)), nil
	})
	codec("bytes_to_hex", "bytes_to_hex(b) -> string", "lower-case hex", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_to_hex", 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(hex.EncodeToString(b)), nil
	})
	codec("bytes_from_hex", "bytes_from_hex(s) -> bytes", "bytes from hex", func(a vm.Args) (vm.Value, error) {
		s, err := strArgN(a, "bytes_from_hex", 0)
		if err != nil {
			return vm.Value{}, err
		}
		b, derr := decodeHex(s)
		if derr != nil {
			return vm.Value{}, vm.Runtimef("bytes_from_hex: %s", derr)
		}
		return vm.Of(lib.NewBytes(b)), nil
	})
	codec("bytes_to_base64", "bytes_to_base64(b) -> string", "standard base64", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_to_base64", 0)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.Str(base64.StdEncoding.EncodeToString(b)), nil
	})
	codec("bytes_from_base64", "bytes_from_base64(s) -> bytes", "bytes from standard base64", func(a vm.Args) (vm.Value, error) {
		s, err := strArgN(a, "bytes_from_base64", 0)
		if err != nil {
			return vm.Value{}, err
		}
		b, derr := decodeBase64(base64.StdEncoding, s)
		if derr != nil {
			return vm.Value{}, vm.Runtimef("bytes_from_base64: %s", derr)
		}
		return vm.Of(lib.NewBytes(b)), nil
	})
	codec("bytes_len", "bytes_len(b) -> int", "number of bytes", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_len", 0)
		if err != nil {
			return vm.Value{}, err
		}
		return lib.IntOf(len(b)), nil
	})
	codec("bytes_concat", "bytes_concat(a, b) -> bytes", "a followed by b", func(a vm.Args) (vm.Value, error) {
		x, err := bytesArgN(a, "bytes_concat", 0)
		if err != nil {
			return vm.Value{}, err
		}
		y, err := bytesArgN(a, "bytes_concat", 1)
		if err != nil {
			return vm.Value{}, err
		}
		out := make([]byte, 0, len(x)+len(y))
		return vm.Of(lib.NewBytes(append(append(out, x...), y...))), nil
	})
	codec("bytes_slice", "bytes_slice(b, start, end) -> bytes", "b[start:end], clamped; all three arguments are required", func(a vm.Args) (vm.Value, error) {
		b, err := bytesArgN(a, "bytes_slice", 0)
		if err != nil {
			return vm.Value{}, err
		}
		start, err := intArgN(a, "bytes_slice", 1)
		if err != nil {
			return vm.Value{}, err
		}
		end, err := intArgN(a, "bytes_slice", 2)
		if err != nil {
			return vm.Value{}, err
		}
		n := int64(len(b))
		start = max(0, min(start, n))
		end = max(start, min(end, n))
		return vm.Of(lib.NewBytes(append([]byte(nil), b[start:end]...))), nil
	})
	codec("bytes_eq", "bytes_eq(a, b) -> bool", "constant-time equality", func(a vm.Args) (vm.Value, error) {
		x, err := bytesArgN(a, "bytes_eq", 0)
		if err != nil {
			return vm.Value{}, err
		}
		y, err := bytesArgN(a, "bytes_eq", 1)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.BoolOf(subtle.ConstantTimeCompare(x, y) == 1), nil
	})
}

func hmacSHA256(fn string, a vm.Args) ([]byte, error) {
	// RFC 2104 defines HMAC for any key length, the empty key included
	// (a published test vector); only a key that is no string or bytes,
	// such as an unset env var's nil, is refused (docs/builtins-areas.md).
	key, err := lib.Message(fn, "key", a.At(0))
	if err != nil {
		return nil, err
	}
	msg, err := lib.Message(fn, "msg", a.At(1))
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil), nil
}

func bytesArgN(a vm.Args, name string, i int) ([]byte, error) {
	if !a.Has(i) {
		return nil, vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	b, ok := a.At(i).Object().(*lib.Bytes)
	if !ok {
		return nil, vm.Runtimef("%s: expected bytes at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return b.Data(), nil
}

func strArgN(a vm.Args, name string, i int) (string, error) {
	if !a.Has(i) {
		return "", vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	s, ok := a.Str(i)
	if !ok {
		return "", vm.Runtimef("%s: expected string at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return s, nil
}

func intArgN(a vm.Args, name string, i int) (int64, error) {
	if !a.Has(i) {
		return 0, vm.Runtimef("%s: missing argument %d", name, i+1)
	}
	n, ok := a.Int(i)
	if !ok {
		return 0, vm.Runtimef("%s: expected int at argument %d, got %s", name, i+1, a.At(i).Type())
	}
	return n, nil
}

// rustUTF8Error words the first UTF-8 error in b as Rust's Utf8Error
// does (upstream decodes with String::from_utf8): "invalid utf-8 sequence
// of N bytes from index I", N being how many bytes Rust's validator
// rejects at I, or "incomplete utf-8 byte sequence from index I" when the
// input ends inside a character.
func rustUTF8Error(b []byte) string {
	i := firstInvalidUTF8(b)
	n, incomplete := lib.InvalidUTF8(b[i:])
	if incomplete {
		return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
	}
	return fmt.Sprintf("invalid utf-8 sequence of %d bytes from index %d", n, i)
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// decodeBase64 decodes with enc and words failures like Rust's base64
// crate ("Invalid symbol 33, offset 4."). base64url takes no padding
// (docs/spec/builtins.md §4.5), so RawURLEncoding refuses a trailing "="
// and the failure reads "Invalid padding", as the crate's no-pad engine says.
//
// Like the crate, it refuses a line break anywhere and a last symbol whose bits past the final
// byte are not zero ("aGl=" is not "hi"): "Invalid last symbol 108,
// offset 2.".
func decodeBase64(enc *base64.Encoding, s string) ([]byte, error) {
	b, err := enc.DecodeString(s)
	if err == nil && strings.ContainsAny(s, "\r\n") {
		err = errors.New("line break") // Go skips them; the crate does not
	}
	if err == nil {
		if _, serr := enc.Strict().DecodeString(s); serr != nil {
			last := len(strings.TrimRight(s, "=")) - 1
			return nil, fmt.Errorf("Invalid last symbol %d, offset %d.", s[last], last)
		}
		return b, nil
	}
	alphabet := "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	if enc == base64.RawURLEncoding {
		alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	}
	body := strings.TrimRight(s, "=")
	for i := 0; i < len(body); i++ {
		if strings.IndexByte(alphabet, body[i]) < 0 {
			return nil, fmt.Errorf("Invalid symbol %d, offset %d.", body[i], i)
		}
	}
	if len(body)%4 == 1 {
		return nil, fmt.Errorf("Invalid input length: %d", len(body))
	}
	return nil, errors.New("Invalid padding")
}

// rustByteCharDebug writes byte b as the hex crate names a bad input
// byte: Rust's Debug form of the char with that code (`'z'`, `'\\n'`,
// `'Ã'` for the first byte of "é").
func rustByteCharDebug(b byte) string {
	switch b {
	case '\t':
		return `'\t'`
	case '\n':
		return `'\n'`
	case '\r':
		return `'\r'`
	case '\'':
		return `'\''`
	case '\\':
		return `'\\'`
	case 0:
		return `'\0'`
	}
	if b < 0x20 || (b >= 0x7f && b < 0xa0) || b == 0xad {
		return fmt.Sprintf(`'\u{%x}'`, b)
	}
	return "'" + string(rune(b)) + "'"
}

// decodeHex decodes hex of either case, with the hex crate's wording.
// As the crate does, it checks the length (in bytes) before the digits.
func decodeHex(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, errors.New("Odd number of digits")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(lib.ASCIIDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			return nil, fmt.Errorf("Invalid character %s at position %d", rustByteCharDebug(c), i)
		}
	}
	return hex.DecodeString(s)
}

func percentEncode(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lib.ASCIIDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c == '.' || c == '~' {
			sb.WriteByte(c)
			continue
		}
		WritePercent(&sb, c)
	}
	return sb.String()
}

// WritePercent writes the byte c percent-encoded: %XX, upper-case hex
// digits (also url_build's and the form encoder's, stdlib/formats).
func WritePercent(sb *strings.Builder, c byte) {
	const hexUpper = "0123456789ABCDEF"
	sb.WriteByte('%')
	sb.WriteByte(hexUpper[c>>4])
	sb.WriteByte(hexUpper[c&15])
}

// PercentDecode decodes %XX (malformed escapes are kept) and, when
// plusSpace, `+` as a space; the result is decoded lossily.
func PercentDecode(s string, plusSpace bool) string {
	var out []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '+' && plusSpace:
			out = append(out, ' ')
		case c == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]):
			b, _ := hex.DecodeString(s[i+1 : i+3])
			out = append(out, b[0])
			i += 2
		default:
			out = append(out, c)
		}
	}
	return lib.LossyUTF8(out)
}

func isHexByte(c byte) bool {
	return lib.ASCIIDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
