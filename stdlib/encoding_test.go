package stdlib_test

import (
	"testing"

	"github.com/harnlang/harn/stdlib"
	"github.com/harnlang/harn/vm"
)

func TestEncodings(t *testing.T) {
	b := func(x string) vm.Value { return vm.Of(stdlib.NewBytes([]byte(x))) }
	runT2(t, []t2case{
		{"base64_encode", []vm.Value{sv("hello?")}, "aGVsbG8/"},
		{"base64_encode", []vm.Value{b("\xff")}, "/w=="},
		{"base64_decode", []vm.Value{sv("aGVsbG8/")}, "hello?"},
		{"base64_decode", []vm.Value{sv("aGk")}, "ERR: Runtime error: base64 decode error: Invalid padding"},
		{"base64_decode", []vm.Value{sv("a!==")}, "ERR: Runtime error: base64 decode error: Invalid symbol 33, offset 1."},
		{"base64_decode", []vm.Value{sv("aGl=")}, "ERR: Runtime error: base64 decode error: Invalid last symbol 108, offset 2."},
		{"base64_decode", []vm.Value{sv("aG\nk=")}, "ERR: Runtime error: base64 decode error: Invalid symbol 10, offset 2."},
		{"base64url_decode", []vm.Value{sv("aGl")}, "ERR: Runtime error: base64url decode error: Invalid last symbol 108, offset 2."},
		{"base64url_encode", []vm.Value{sv("hello?")}, "aGVsbG8_"},
		{"base64url_decode", []vm.Value{sv("aGVsbG8_")}, "hello?"},
		{"base64url_decode", []vm.Value{sv("a+")}, "ERR: Runtime error: base64url decode error: Invalid symbol 43, offset 1."},
		{"base32_encode", []vm.Value{sv("foobar")}, "MZXW6YTBOI======"},
		{"base32_decode", []vm.Value{sv("MZXW6YTBOI======")}, "foobar"},
		{"base32_decode", []vm.Value{sv("1")}, "ERR: Runtime error: base32 decode error: invalid base32 input at offset 0"},
		{"base32_decode", []vm.Value{sv("MZXW6===X")}, "ERR: Runtime error: base32 decode error: invalid base32 input at offset 8"},
		{"hex_encode", []vm.Value{sv("Hi")}, "4869"},
		{"hex_decode", []vm.Value{sv("4A69")}, "Ji"},
		{"hex_decode", []vm.Value{sv("4g")}, "ERR: Runtime error: hex decode error: Invalid character 'g' at position 1"},
		{"hex_decode", []vm.Value{sv("zzz")}, "ERR: Runtime error: hex decode error: Odd number of digits"},
		{"hex_decode", []vm.Value{sv("é")}, "ERR: Runtime error: hex decode error: Invalid character 'Ã' at position 0"},
		{"hex_decode", []vm.Value{sv("a\n")}, "ERR: Runtime error: hex decode error: Invalid character '\\n' at position 1"},
		{"hex_decode", []vm.Value{sv("486")}, "ERR: Runtime error: hex decode error: Odd number of digits"},
		{"url_encode", []vm.Value{sv("a b/é~")}, "a%20b%2F%C3%A9~"},
		{"url_decode", []vm.Value{sv("a%20b+c%2f%zz%C3%A9")}, "a b c/%zzé"},
		{"sha256", []vm.Value{sv("abc")}, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
		{"sha224", []vm.Value{sv("abc")}, "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"},
		{"md5", []vm.Value{sv("abc")}, "900150983cd24fb0d6963f7d28e17f72"},
		{"sha512_256", []vm.Value{sv("abc")}, "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"},
		{"sha3_256", []vm.Value{sv("abc")}, "3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532"},
		{"blake3", []vm.Value{sv("abc")}, "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"},
		{"hmac_sha256", []vm.Value{sv("key"), sv("The quick brown fox jumps over the lazy dog")}, "f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"},
		{"hmac_sha256_base64", []vm.Value{sv("key"), sv("The quick brown fox jumps over the lazy dog")}, "97yD9DBThCSxMpjmqm+xQ+9NWaFJRhdZl0edvC0aPNg="},
		{"constant_time_eq", []vm.Value{sv("a"), sv("a")}, "true"},
		{"constant_time_eq", []vm.Value{sv("a"), sv("ab")}, "false"},
		{"bytes_from_string", []vm.Value{sv("hi")}, `b"6869"`},
		{"bytes_from_string", []vm.Value{iv(1)}, "ERR: Runtime error: bytes_from_string: expected string at argument 1, got int"},
		{"bytes_from_string", nil, "ERR: Runtime error: bytes_from_string: missing argument 1"},
		{"bytes_to_string", []vm.Value{b("hi")}, "hi"},
		{"bytes_to_string", []vm.Value{b("h\xff")}, "ERR: Runtime error: bytes_to_string: invalid utf-8 sequence of 1 bytes from index 1"},
		{"bytes_to_string", []vm.Value{sv("x")}, "ERR: Runtime error: bytes_to_string: expected bytes at argument 1, got string"},
		{"bytes_to_string_lossy", []vm.Value{b("h\xff")}, "h\uFFFD"},
		{"bytes_to_hex", []vm.Value{b("\x01\xab")}, "01ab"},
		{"bytes_from_hex", []vm.Value{sv("01AB")}, `b"01ab"`},
		{"bytes_from_hex", []vm.Value{sv("0")}, "ERR: Runtime error: bytes_from_hex: Odd number of digits"},
		{"bytes_to_base64", []vm.Value{b("hi")}, "aGk="},
		{"bytes_from_base64", []vm.Value{sv("aGk=")}, `b"6869"`},
		{"bytes_len", []vm.Value{b("abc")}, "3"},
		{"bytes_concat", []vm.Value{b("a"), b("b")}, `b"6162"`},
		{"bytes_concat", []vm.Value{b("a")}, "ERR: Runtime error: bytes_concat: missing argument 2"},
		{"bytes_slice", []vm.Value{b("abcdef"), iv(1), iv(3)}, `b"6263"`},
		{"bytes_slice", []vm.Value{b("abcdef"), iv(-5), iv(99)}, `b"616263646566"`},
		{"bytes_slice", []vm.Value{b("abc"), sv("x")}, "ERR: Runtime error: bytes_slice: expected int at argument 2, got string"},
		{"bytes_slice", []vm.Value{b("abc"), iv(1)}, "ERR: Runtime error: bytes_slice: missing argument 3"},
		{"bytes_eq", []vm.Value{b("a"), b("a")}, "true"},
		{"bytes_eq", []vm.Value{b("a"), b("b")}, "false"},
	})
}

func TestCompressionAndArchives(t *testing.T) {
	e := newT2(t)
	for _, codec := range []string{"gzip", "zstd", "brotli"} {
		enc, err := e.call(t, codec+"_encode", sv("hello hello hello"))
		if err != nil {
			t.Fatalf("%s_encode: %v", codec, err)
		}
		dec, err := e.call(t, codec+"_decode", enc)
		if err != nil || vm.ToDisplay(dec) != `b"68656c6c6f2068656c6c6f2068656c6c6f"` {
			t.Errorf("%s round trip: %v %v", codec, dec, err)
		}
	}
	if got := e.show(t, "gzip_decode", sv("nope")); got != "ERR: Runtime error: gzip_decode: not gzip data (bad header)" {
		t.Errorf("gzip_decode error: %s", got)
	}
	entries := lv(dv("path", sv("a.txt"), "content", sv("A")), dv("path", sv("d/b.bin"), "content", stdlib.NewBytes([]byte{1}), "mode", iv(0o755)))
	for _, kind := range []string{"tar", "zip"} {
		arc, err := e.call(t, kind+"_create", entries)
		if err != nil {
			t.Fatalf("%s_create: %v", kind, err)
		}
		if got := e.show(t, kind+"_extract", arc); got != `[{content: b"41", mode: 420, path: a.txt}, {content: b"01", mode: 493, path: d/b.bin}]` {
			t.Errorf("%s_extract: %s", kind, got)
		}
	}
	if got := e.show(t, "tar_create", iv(1)); got != "ERR: Runtime error: tar_create: expected a list of {path, content} entries, got int" {
		t.Errorf("tar_create error: %s", got)
	}
}
