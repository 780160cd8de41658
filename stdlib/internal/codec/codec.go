// Package codec words the failures of the decompressors and archive
// readers for scripts, in Harn's words rather than the Go libraries'
// (`unexpected EOF`, `gzip: invalid header`, `brotli: PADDING_2`), the
// same for gzip_decode, zstd_decode, brotli_decode, tar_extract,
// zip_extract (stdlib/fs) and compressed HTTP response bodies
// (stdlib/net); docs/builtins-areas.md lists the texts. Only the full
// build links it.
package codec

import (
	"archive/tar"
	"archive/zip"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// Problem describes err, a decoder's failure on data of the given format
// (gzip, zstd, brotli, tar, zip): `not gzip data (bad header)`, `the gzip
// data is truncated`, `the gzip data is corrupt (checksum mismatch)`,
// `the gzip data is corrupt at byte N`, `no gzip data (the input is
// empty)`.
func Problem(format string, err error) string {
	var corrupt flate.CorruptInputError
	detail := ""
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Sprintf("no %s data (the input is empty)", format)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("the %s data is truncated", format)
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, zstd.ErrMagicMismatch), errors.Is(err, tar.ErrHeader), errors.Is(err, zip.ErrFormat):
		return fmt.Sprintf("not %s data (bad header)", format)
	case errors.Is(err, zip.ErrAlgorithm):
		return fmt.Sprintf("the %s data uses an unsupported compression method", format)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, zstd.ErrCRCMismatch), errors.Is(err, zip.ErrChecksum):
		detail = " (checksum mismatch)"
	case errors.As(err, &corrupt):
		detail = fmt.Sprintf(" at byte %d", int64(corrupt))
	}
	return fmt.Sprintf("the %s data is corrupt%s", format, detail)
}

// IsDecoding reports whether err is a gzip (deflate) decoder's failure, as
// a compressed HTTP response body gives when it is not what its
// Content-Encoding says.
func IsDecoding(err error) bool {
	var corrupt flate.CorruptInputError
	return errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt)
}
