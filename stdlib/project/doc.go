// Package project owns the project and workspace utilities coding-agent
// scripts use (docs/spec/builtins.md §5, "Checkpoints/metadata" and
// "Project introspection"; the shapes are this implementation's choice,
// docs/project.md): scan_directory and the project_*_native walkers,
// fingerprints and content hashes, and the per-project metadata store
// (metadata_*, invalidate_facts) kept as JSON under the state root.
package project
