// Package schema owns Harn's schema dialect (docs/spec/builtins.md §4.7):
// json_validate and the schema_* builtins, and the conversions to and
// from JSON Schema and OpenAPI schemas. Dicts that declare $schema are
// validated by stdlib/jsonschema.
package schema
