// Package artifacts owns the artifact builtins of docs/spec/builtins.md §5
// (Artifacts): typed records {_type: "artifact", id, kind, title, data,
// tags, parent, created_at, provenance} that agents pass around (files,
// selections, diffs, reviews, test and command results, verification
// bundles), with derivation, selection and rendering into prompt context
// within a token budget. The spec names them only; the shapes are this
// implementation's choices (docs/artifacts.md).
package artifacts
