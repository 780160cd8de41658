package secretscan

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The JSON of findings and audits is written here, field by field,
// rather than by encoding/json's reflection: harn.secret_scan encodes
// both on every call. The output is byte for byte what encoding/json
// writes (TestJSONMatchesEncodingJSON): json.Marshal, which escapes
// <, > and &, for the audit record, and an encoder with SetEscapeHTML
// off, as the MCP server encodes answers, for the findings.

// AppendJSON appends the findings as a JSON array, as an encoding/json
// encoder with SetEscapeHTML(false) writes them.
func AppendJSON(dst []byte, findings []Finding) []byte {
	dst = slices.Grow(dst, 2+len(findings)*findingSize)
	dst = append(dst, '[')
	for i, f := range findings {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendField(dst, `{"detector":`, f.Detector, false)
		dst = appendField(dst, `,"source":`, f.Source, false)
		dst = appendField(dst, `,"title":`, f.Title, false)
		dst = appendInt(dst, `,"line":`, f.Line)
		dst = appendInt(dst, `,"column_start":`, f.ColumnStart)
		dst = appendInt(dst, `,"column_end":`, f.ColumnEnd)
		dst = appendInt(dst, `,"start_offset":`, f.StartOffset)
		dst = appendInt(dst, `,"end_offset":`, f.EndOffset)
		dst = appendField(dst, `,"redacted":`, f.Redacted, false)
		dst = appendField(dst, `,"fingerprint":`, f.Fingerprint, false)
		dst = append(dst, '}')
	}
	return append(dst, ']')
}

// findingSize is room for a finding's JSON, about 220 bytes for most
// (the keys and punctuation alone are 137): one allocation per
// document.
const findingSize = 256

// AppendJSON appends the audit record as json.Marshal writes it.
func (a Audit) AppendJSON(dst []byte) []byte {
	dst = slices.Grow(dst, 160+len(a.Findings)*findingSize)
	dst = appendField(dst, `{"caller":`, a.Caller, true)
	dst = appendInt(dst, `,"content_len":`, a.ContentLen)
	dst = appendInt(dst, `,"finding_count":`, a.FindingCount)
	dst = append(dst, `,"clean":`...)
	dst = strconv.AppendBool(dst, a.Clean)
	dst = append(dst, `,"findings":`...)
	if a.Findings == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, f := range a.Findings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendField(dst, `{"detector":`, f.Detector, true)
			dst = appendField(dst, `,"source":`, f.Source, true)
			dst = appendField(dst, `,"title":`, f.Title, true)
			dst = appendInt(dst, `,"line":`, f.Line)
			dst = appendInt(dst, `,"column_start":`, f.ColumnStart)
			dst = appendInt(dst, `,"column_end":`, f.ColumnEnd)
			dst = appendInt(dst, `,"start_offset":`, f.StartOffset)
			dst = appendInt(dst, `,"end_offset":`, f.EndOffset)
			dst = appendField(dst, `,"fingerprint":`, f.Fingerprint, true)
			dst = appendField(dst, `,"redacted":`, f.Redacted, true)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	dst = appendField(dst, `,"observed_at":`, a.ObservedAt, true)
	return append(dst, '}')
}

func appendInt(dst []byte, key string, n int) []byte {
	return strconv.AppendInt(append(dst, key...), int64(n), 10)
}

// appendField appends key and s as a JSON string. A string that
// encoding/json writes between its quotes unchanged (every string a scan
// produces: fixed names, hex, ASCII credential characters, the
// redaction's ellipsis) is copied; any other goes through encoding/json,
// escaping <, > and & when html is set, as it would.
func appendField(dst []byte, key, s string, html bool) []byte {
	dst = append(dst, key...)
	if plain(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s) // a string always encodes
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// plain reports whether encoding/json writes s as it is, whether or not
// it escapes HTML: valid UTF-8 without control characters, quotes,
// backslashes, <, >, &, U+2028 or U+2029.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}
