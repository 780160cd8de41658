// Package json owns JSON text: json_parse and json_stringify with their
// exact messages and formatting, JSON pointers, json_extract and the jq
// query language (jq, jq_first).
package json
