// Package fs owns the file system as scripts see it: files and
// directories relative to the execution root, the path_* helpers,
// compression (gzip, zstd, brotli) and tar/zip archives, and the wording
// of OS errors every area reports.
package fs
