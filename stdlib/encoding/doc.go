// Package encoding owns byte encodings and hashes (docs/spec/builtins.md §4.5):
// base64/base32/hex, percent encoding, the sha*/md5/blake3 digests, HMAC
// and the bytes_* helpers.
package encoding
