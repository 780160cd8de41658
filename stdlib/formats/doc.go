// Package formats owns the data formats other than JSON: YAML, TOML, CSV,
// URLs and query strings, multipart bodies and JUnit XML.
package formats
