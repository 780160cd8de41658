package jsonv

// AppendIndent appends compact, JSON text without insignificant white
// space (what encoding/json and Marshal write), laid out as
// MarshalIndent lays out a value, which is also what encoding/json's
// Indent writes with no prefix and a two-space indent. It only tracks
// strings and nesting, rather than checking the grammar as Indent does
// byte by byte: compact must be valid JSON.
func AppendIndent(dst, compact []byte) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		switch c {
		case '"':
			// Copy the string whole: after a backslash, the next byte
			// is escaped (a quote or a backslash among them).
			j := i + 1
			for j < len(compact) && compact[j] != '"' {
				if compact[j] == '\\' {
					j++
				}
				j++
			}
			dst = append(dst, compact[i:min(j+1, len(compact))]...)
			i = j
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				dst = append(dst, compact[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
