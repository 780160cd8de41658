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
	"io"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/harnlang/harn/stdlib/encoding"
	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/vm"
	"github.com/klauspost/compress/zstd"
)

// maxDecoded bounds decompressed output so a hostile input cannot exhaust
// memory.
const maxDecoded = 1 << 30

func init() {
	level := func(a vm.Args, def int64) int { return int(a.IntOr(1, def)) }
	lib.Def("gzip_encode", "gzip_encode(x, level = 6) -> bytes", "gzip-compress bytes or text; level is clamped to 0–9", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var buf bytes.Buffer
		// Levels outside 0–9 are clamped, as zstd and brotli clamp theirs
		// (and as the deflate encoder upstream does), not an error.
		w, err := gzip.NewWriterLevel(&buf, min(max(level(a, 6), gzip.NoCompression), gzip.BestCompression))
		if err != nil {
			return vm.Value{}, vm.Runtimef("gzip_encode: %s", err)
		}
		w.Write(encoding.RawBytes(a.At(0)))
		w.Close()
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("gzip_decode", "gzip_decode(b) -> bytes", "gunzip to bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r, err := gzip.NewReader(bytes.NewReader(encoding.RawBytes(a.At(0))))
		if err != nil {
			return vm.Value{}, vm.Runtimef("gzip_decode: %s", err)
		}
		return readAllCapped("gzip_decode", r)
	})
	lib.Def("zstd_encode", "zstd_encode(x, level = 3) -> bytes", "zstd-compress bytes or text", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level(a, 3))))
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
			return vm.Value{}, vm.Runtimef("zstd_decode: %s", err)
		}
		return vm.Of(lib.NewBytes(out)), nil
	})
	lib.Def("brotli_encode", "brotli_encode(x, quality = 11) -> bytes", "brotli-compress bytes or text", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		var buf bytes.Buffer
		w := brotli.NewWriterLevel(&buf, level(a, 11))
		w.Write(encoding.RawBytes(a.At(0)))
		w.Close()
		return vm.Of(lib.NewBytes(buf.Bytes())), nil
	})
	lib.Def("brotli_decode", "brotli_decode(b) -> bytes", "brotli-decompress to bytes", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		return readAllCapped("brotli_decode", brotli.NewReader(bytes.NewReader(encoding.RawBytes(a.At(0)))))
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
	lib.Def("tar_extract", "tar_extract(b)", "the [{path, content, mode}] files of a tar archive", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		r := tar.NewReader(bytes.NewReader(encoding.RawBytes(a.At(0))))
		var out []vm.Value
		for {
			hdr, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return vm.Value{}, vm.Runtimef("tar_extract: %s", err)
			}
			if hdr.Typeflag != tar.TypeReg {
				continue
			}
			data, err := io.ReadAll(io.LimitReader(r, maxDecoded))
			if err != nil {
				return vm.Value{}, vm.Runtimef("tar_extract: %s", err)
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
	lib.Def("zip_extract", "zip_extract(b)", "the [{path, content, mode}] files of a zip archive", func(th *vm.Thread, a vm.Args) (vm.Value, error) {
		data := encoding.RawBytes(a.At(0))
		r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return vm.Value{}, vm.Runtimef("zip_extract: %s", err)
		}
		var out []vm.Value
		for _, f := range r.File {
			if f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return vm.Value{}, vm.Runtimef("zip_extract: %s", err)
			}
			content, err := io.ReadAll(io.LimitReader(rc, maxDecoded))
			rc.Close()
			if err != nil {
				return vm.Value{}, vm.Runtimef("zip_extract: %s", err)
			}
			out = append(out, vm.Of(lib.DictOf("path", vm.Str(f.Name), "content", lib.NewBytes(content), "mode", vm.IntOf(int64(f.Mode().Perm())))))
		}
		return vm.Of(vm.NewList(out)), nil
	})
}

func readAllCapped(name string, r io.Reader) (vm.Value, error) {
	out, err := io.ReadAll(io.LimitReader(r, maxDecoded))
	if err != nil {
		return vm.Value{}, vm.Runtimef("%s: %s", name, err)
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
