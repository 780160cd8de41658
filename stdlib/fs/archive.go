//go:build !harnlite

package fs

// Compression and archives (docs/spec/builtins.md §4.5): gzip, zstd and brotli
// codecs over bytes, and tar/zip archives built from and extracted to
// [{path, content, mode}] lists.

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	iofs "io/fs"
	"path"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/harnlang/harn/stdlib/encoding"
	"github.com/harnlang/harn/stdlib/internal/codec"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
	"github.com/klauspost/compress/zstd"
)

// maxDecoded bounds decompressed output so a hostile input cannot exhaust
// memory (docs/limits.md); more is an error, never a silent cut.
const maxDecoded = 1 << 30

// gzipMagic is the first two bytes of every gzip member (RFC 1952 §2.3.1).
var gzipMagic = []byte{0x1f, 0x8b}

// errTooLarge is output past maxDecoded.
var errTooLarge = errors.New("output too large")

// codecError is a decoder's failure as scripts see it: `gzip_decode: not
// gzip data (bad header)` (the wording is codec.Problem's), or past the
// size limit `…: the decompressed data exceeds the 1 GiB limit`. format
// names the data: gzip, zstd, brotli, tar, zip.
func codecError(name, format string, err error) error {
	if errors.Is(err, errTooLarge) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
		return vm.Runtimef("%s: the decompressed data exceeds the %d GiB limit", name, maxDecoded>>30)
	}
	return vm.Runtimef("%s: %s", name, codec.Problem(format, err))
}

// readCapped reads r to the end, or fails past maxDecoded.
func readCapped(r io.Reader) ([]byte, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxDecoded+1))
	if err == nil && len(out) > maxDecoded {
		err = errTooLarge
	}
	return out, err
}

func init() {
	// level is the optional level argument: nil or absent is the
	// default; anything but an int is an error, where it used to be
	// ignored for the default (docs/builtins-areas.md).
	level := func(name, what string, a vm.Args, def int64) (int, error) {
		if a.At(1).IsNil() {
			return int(def), nil
		}
		n, ok := a.Int(1)
		if !ok {
			return 0, vm.Typef("%s: %s must be an int, got %s", name, what, a.At(1).Type())
		}
		return int(max(min(n, 1<<20), -(1 << 20))), nil
	}
	lib.Def("gzip_encode", "gzip_encode(x, level = 6) -> bytes", "gzip-compress bytes or text; level is an int, clamped to 0–9", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		lv, err := level("gzip_encode", "level", a, 6)
		if err != nil {
			return vm.Value{}, err
		}
		var buf bytes.Buffer
		// Levels outside 0–9 are clamped, as zstd and brotli clamp theirs
		// (and as the deflate encoder upstream does), not an error.
		w, err := gzip.NewWriterLevel(&buf, min(max(lv, gzip.NoCompression), gzip.BestCompression))
		if err != nil {
			return vm.Value{}, vm.Runtimef("gzip_encode: %s", err)
		}
		w.Write(encoding.RawBytes(a.At(0)))
		w.Close()
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("gzip_decode", "gzip_decode(b) -> bytes", "gunzip to bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		data := encoding.RawBytes(a.At(0))
		if !bytes.HasPrefix(gzipMagic, data[:min(len(data), len(gzipMagic))]) {
			// Wrong first bytes: not gzip at all, however short.
			return vm.Value{}, codecError("gzip_decode", "gzip", gzip.ErrHeader)
		}
		r, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return vm.Value{}, codecError("gzip_decode", "gzip", err)
		}
		return readAllCapped("gzip_decode", "gzip", r)
	})
	lib.Def("zstd_encode", "zstd_encode(x, level = 3) -> bytes", "zstd-compress bytes or text; level is an int, clamped to zstd's range", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		lv, err := level("zstd_encode", "level", a, 3)
		if err != nil {
			return vm.Value{}, err
		}
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(lv)))
		if err != nil {
			return vm.Value{}, vm.Runtimef("zstd_encode: %s", err)
		}
		defer enc.Close()
		return vm.Of(lib.NewBytes(enc.EncodeAll(encoding.RawBytes(a.At(0)), nil))), nil
	})
	lib.Def("zstd_decode", "zstd_decode(b) -> bytes", "zstd-decompress to bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxDecoded))
		if err != nil {
			return vm.Value{}, vm.Runtimef("zstd_decode: %s", err)
		}
		defer dec.Close()
		out, err := dec.DecodeAll(encoding.RawBytes(a.At(0)), nil)
		if err != nil {
			return vm.Value{}, codecError("zstd_decode", "zstd", err)
		}
		return vm.Of(lib.NewBytes(out)), nil
	})
	lib.Def("brotli_encode", "brotli_encode(x, quality = 11) -> bytes", "brotli-compress bytes or text; quality is an int, clamped to 0–11", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		q, err := level("brotli_encode", "quality", a, 11)
		if err != nil {
			return vm.Value{}, err
		}
		var buf bytes.Buffer
		w := brotli.NewWriterLevel(&buf, min(max(q, 0), 11))
		w.Write(encoding.RawBytes(a.At(0)))
		w.Close()
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("brotli_decode", "brotli_decode(b) -> bytes", "brotli-decompress to bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return readAllCapped("brotli_decode", "brotli", brotli.NewReader(bytes.NewReader(encoding.RawBytes(a.At(0)))))
	})
	lib.Def("tar_create", "tar_create(entries)", "a tar archive from [{path, content, mode?}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		entries, err := archiveEntries("tar_create", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		var buf bytes.Buffer
		w := tar.NewWriter(&buf)
		for _, e := range entries {
			hdr := &tar.Header{Name: e.path, Mode: e.mode, Size: int64(len(e.content)), Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}
			if err := w.WriteHeader(hdr); err != nil {
				return vm.Value{}, vm.Runtimef("tar_create: %s", err)
			}
			w.Write(e.content)
		}
		if err := w.Close(); err != nil {
			return vm.Value{}, vm.Runtimef("tar_create: %s", err)
		}
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("tar_extract", "tar_extract(b)", "the [{path, content, mode}] regular files of a tar archive; an entry or link that would land outside the destination (absolute, or .. past the top) is refused", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r := tar.NewReader(bytes.NewReader(encoding.RawBytes(a.At(0))))
		var out []vm.Value
		for {
			hdr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return vm.Value{}, codecError("tar_extract", "tar", err)
			}
			if err := checkTarEntry(hdr); err != nil {
				return vm.Value{}, err
			}
			if hdr.Typeflag != tar.TypeReg {
				continue
			}
			data, err := readCapped(r)
			if err != nil {
				return vm.Value{}, codecError("tar_extract", "tar", err)
			}
			out = append(out, vm.Of(lib.DictOf("path", vm.Str(hdr.Name), "content", lib.NewBytes(data), "mode", vm.IntOf(hdr.Mode))))
		}
		return vm.Of(vm.NewList(out)), nil
	})
	lib.Def("zip_create", "zip_create(entries)", "a zip archive from [{path, content, mode?}]", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		entries, err := archiveEntries("zip_create", a.At(0))
		if err != nil {
			return vm.Value{}, err
		}
		var buf bytes.Buffer
		w := zip.NewWriter(&buf)
		for _, e := range entries {
			hdr := &zip.FileHeader{Name: e.path, Method: zip.Deflate}
			hdr.SetMode(lib.FileMode(e.mode))
			f, err := w.CreateHeader(hdr)
			if err != nil {
				return vm.Value{}, vm.Runtimef("zip_create: %s", err)
			}
			f.Write(e.content)
		}
		if err := w.Close(); err != nil {
			return vm.Value{}, vm.Runtimef("zip_create: %s", err)
		}
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("zip_extract", "zip_extract(b)", "the [{path, content, mode}] files of a zip archive; an entry or symlink that would land outside the destination (absolute, or .. past the top) is refused", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		data := encoding.RawBytes(a.At(0))
		r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
			return vm.Value{}, codecError("zip_extract", "zip", err)
		}
		var out []vm.Value
		for _, f := range r.File {
			if escapesRoot(f.Name) {
				return vm.Value{}, vm.Runtimef("zip_extract: entry %q would land outside the destination (an absolute path, or .. past the top)", f.Name)
			}
			if f.FileInfo().IsDir() {
				continue
			}
			content, err := readZipFile(f)
			if err != nil {
				return vm.Value{}, codecError("zip_extract", "zip", err)
			}
			if f.Mode()&iofs.ModeSymlink != 0 {
				// A symlink's content is its target; like a tar link, it is
				// left out, unless it points outside, which is refused.
				if linkEscapes(f.Name, string(content)) {
					return vm.Value{}, vm.Runtimef("zip_extract: symlink %q points outside the destination (%q)", f.Name, string(content))
				}
				continue
			}
			out = append(out, vm.Of(lib.DictOf("path", vm.Str(f.Name), "content", lib.NewBytes(content), "mode", vm.IntOf(int64(f.Mode().Perm())))))
		}
		return vm.Of(vm.NewList(out)), nil
	})
}

// readZipFile reads one zip entry, up to maxDecoded.
func readZipFile(f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return readCapped(rc)
}

// checkTarEntry refuses an entry that would land outside the directory a
// script extracts the archive to: a name that is absolute or climbs past
// the top with .., a symlink whose target does (read from the link's own
// directory), or a hard link to such a name (docs/builtins-areas.md).
// Python's tarfile "data" filter and GNU tar refuse the same.
func checkTarEntry(hdr *tar.Header) error {
	switch {
	case escapesRoot(hdr.Name):
		return vm.Runtimef("tar_extract: entry %q would land outside the destination (an absolute path, or .. past the top)", hdr.Name)
	case hdr.Typeflag == tar.TypeSymlink && linkEscapes(hdr.Name, hdr.Linkname):
		return vm.Runtimef("tar_extract: symlink %q points outside the destination (%q)", hdr.Name, hdr.Linkname)
	case hdr.Typeflag == tar.TypeLink && escapesRoot(hdr.Linkname):
		return vm.Runtimef("tar_extract: hard link %q points outside the destination (%q)", hdr.Name, hdr.Linkname)
	}
	return nil
}

// escapesRoot reports whether an archive name, joined to a destination
// directory, would leave it: absolute (`/x`, `C:/x`, `\\x`) or climbing
// past the top (`../x`, `a/../../x`). Backslashes count as separators.
func escapesRoot(name string) bool {
	name = strings.ReplaceAll(name, "\\", "/")
	if absoluteName(name) {
		return true
	}
	clean := path.Clean(name)
	return clean == ".." || strings.HasPrefix(clean, "../")
}

// absoluteName reports whether a slash-separated archive name is absolute.
func absoluteName(name string) bool {
	return strings.HasPrefix(name, "/") || (len(name) >= 2 && name[1] == ':')
}

// linkEscapes reports whether a link at name pointing at target resolves
// outside the destination.
func linkEscapes(name, target string) bool {
	target = strings.ReplaceAll(target, "\\", "/")
	if absoluteName(target) {
		return true
	}
	return escapesRoot(path.Join(path.Dir(strings.ReplaceAll(name, "\\", "/")), target))
}

func readAllCapped(name, format string, r io.Reader) (vm.Value, error) {
	out, err := readCapped(r)
	if err != nil {
		return vm.Value{}, codecError(name, format, err)
	}
	return vm.Of(lib.NewBytes(out)), nil
}

type archiveEntry struct {
	path    string
	content []byte
	mode    int64
}

// archiveEntries reads [{path, content, mode?}] (content: bytes or text,
// mode default 0644), in list order.
func archiveEntries(name string, v vm.Value) ([]archiveEntry, error) {
	l, ok := v.AsList()
	if !ok {
		return nil, vm.Runtimef("%s: expected a list of {path, content} entries, got %s", name, v.Type())
	}
	var out []archiveEntry
	for _, it := range l.Items() {
		d, ok := it.AsDict()
		if !ok {
			return nil, vm.Runtimef("%s: expected a list of {path, content} entries, got %s", name, it.Type())
		}
		p, _ := d.Get("path")
		if !p.IsValid() || p.IsNil() {
			return nil, vm.Runtimef("%s: entry is missing a path", name)
		}
		e := archiveEntry{path: vm.ToDisplay(p), mode: 0o644}
		if c, ok := d.Get("content"); ok && !c.IsNil() {
			e.content = encoding.RawBytes(c)
		}
		if m, ok := d.Get("mode"); ok {
			if n, ok := m.AsInt(); ok {
				e.mode = int64(n)
			}
		}
		out = append(out, e)
	}
	return out, nil
}
