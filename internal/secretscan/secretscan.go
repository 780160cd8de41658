// Package secretscan finds high-signal leaked credentials in text
// (docs/spec/orchestrator.md §5.2): the `harn.secret_scan` tool's detectors,
// positions, redaction and fingerprints, and the redacted record the
// orchestrator appends to the `audit.secret_scan` topic.
//
// It sits outside the pipeline so that both the orchestrator's tool
// (orchestrator/mcpserver) and the `secret_scan` builtin (stdlib/secrets)
// use the one rule set: the library is upstream of the orchestrator.
//
// A finding never carries the matched text itself: only its position,
// a redacted form (a few characters at each end) and a fingerprint
// (a truncated SHA-256) that lets two scans be correlated without
// storing the secret.
package secretscan

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Finding is one detected credential. Offsets are bytes into the
// scanned content (end exclusive); line and columns are 1-based and
// count characters.
type Finding struct {
	Detector    string `json:"detector"`
	Source      string `json:"source"`
	Title       string `json:"title"`
	Line        int    `json:"line"`
	ColumnStart int    `json:"column_start"`
	ColumnEnd   int    `json:"column_end"`
	StartOffset int    `json:"start_offset"`
	EndOffset   int    `json:"end_offset"`
	Redacted    string `json:"redacted"`
	Fingerprint string `json:"fingerprint"`
}

// detector is one rule. group selects the capture group that is the
// finding (0: the whole match); minEntropy, when set, keeps only
// findings at least that random (bits per character). anyOf lists
// literals of which every match contains at least one: content without
// them is not searched (a leading \b keeps RE2 from skipping ahead to a
// literal prefix by itself, so the regexps alone scan slowly).
type detector struct {
	id, source, title string
	re                func() *regexp.Regexp
	// anchored, when set, is re without its leading \b and anchored at
	// the start of the text: every match of re starts, at a word
	// boundary, with one of anyOf, so a scan tries anchored only where
	// one of them occurs (see tokenMatches) instead of running re over
	// the whole text.
	anchored   func() *regexp.Regexp
	group      int
	minEntropy float64
	anyOf      []string
	// starts, for the assignment rule, are the lower-case words one of
	// which begins each of its matches: in ASCII text, it is tried
	// (anchored) only where one of them begins what looks like an
	// assignment (see assignmentMatches).
	starts []string
	// folded: anyOf is matched against the content lower-cased (and
	// with the one non-ASCII fold of an ASCII letter in the keywords
	// that lower-casing leaves alone, U+017F ſ, mapped to s), for
	// case-insensitive rules.
	folded bool
}

// highEntropyID is the generic rule whose findings give way to a
// specific detector's finding on the same span.
const highEntropyID = "high-entropy-credential-assignment"

const privateKeyID = "private-key-block"

// lazyRegexp compiles pattern on first use: compiling every detector
// took 0.7 MB of allocations at the start of each harn process, scanning
// or not.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// tokenRule is a detector whose matches all start, at a word boundary,
// with one of literals (each beginning with an ASCII letter): body is
// its regexp after that \b.
func tokenRule(id, source, title, body string, literals ...string) detector {
	return detector{id: id, source: source, title: title, re: lazyRegexp(`\b` + body),
		anchored: lazyRegexp(`^(?:` + body + `)`), anyOf: literals}
}

// detectors are the rules of §5.2. Go's `\b` is an ASCII word boundary.
var detectors = []detector{
	tokenRule("aws-access-key-id", "gitleaks", "AWS access key id",
		`(?:AKIA|ASIA|AGPA|AIDA|ANPA|AROA|AIPA)[A-Z0-9]{16}\b`,
		"AKIA", "ASIA", "AGPA", "AIDA", "ANPA", "AROA", "AIPA"),
	tokenRule("github-token", "gitleaks", "GitHub token",
		`gh(?:p|o|u|s|r)_[A-Za-z0-9]{36,255}\b`,
		"ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
	tokenRule("github-fine-grained-token", "gitleaks", "GitHub fine-grained personal access token",
		`github_pat_[A-Za-z0-9_]{20,255}\b`, "github_pat_"),
	tokenRule("gitlab-token", "detect-secrets", "GitLab personal access token",
		`glpat-[A-Za-z0-9_-]{20,255}\b`, "glpat-"),
	tokenRule("npm-token", "detect-secrets", "npm access token",
		`npm_[A-Za-z0-9]{36}\b`, "npm_"),
	tokenRule("openai-api-key", "detect-secrets", "OpenAI API key",
		`sk-[A-Za-z0-9_-]{20,255}\b`, "sk-"),
	tokenRule("slack-token", "trufflehog", "Slack token",
		`xox(?:a|b|p|r|s)-[A-Za-z0-9-]{10,255}\b`,
		"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"),
	tokenRule("stripe-secret-key", "trufflehog", "Stripe secret or restricted key",
		`(?:rk|sk)_(?:live|test)_[0-9A-Za-z]{16,255}\b`,
		"rk_live_", "rk_test_", "sk_live_", "sk_test_"),
	{id: privateKeyID, source: "detect-secrets", title: "Private key block",
		re:    lazyRegexp(`(?m)^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----$`),
		anyOf: []string{"PRIVATE KEY-----"}},
	{id: highEntropyID, source: "trufflehog", title: "High-entropy secret assignment",
		re:       lazyRegexp(`(?im)` + assignment),
		anchored: lazyRegexp(`^(?im:` + assignment + `)`),
		group:    1, minEntropy: 3.5,
		anyOf: []string{"secret", "token", "key", "passw", "pwd"}, folded: true,
		starts: []string{"secret", "token", "api", "access", "passw", "pwd", "client", "private"}},
}

// assignment is the high-entropy rule's pattern, matched without case.
const assignment = `(?:secret|token|api[_-]?key|access[_-]?key|password|passwd|pwd|client[_-]?secret|private[_-]?key)[^\n:=]{0,32}(?::|=)\s*["']([A-Za-z0-9+/=_\.-]{20,})["']`

// Scan returns the findings in content sorted by start offset, end
// offset and detector; never nil.
func Scan(content string) []Finding { return scan(content, true) }

// scan is Scan; prefilter false searches with every regexp regardless
// of anyOf (the reference the fuzz test compares against).
func scan(content string, prefilter bool) []Finding {
	type span struct{ start, end int }
	type match struct {
		d          *detector
		start, end int
	}
	var found []match
	specific := map[span]bool{}
	folded := ""
	for i := range detectors {
		d := &detectors[i]
		hay := content
		if d.folded {
			if folded == "" {
				folded = strings.ReplaceAll(strings.ToLower(content), "ſ", "s")
			}
			hay = folded
		}
		var matches [][]int
		switch {
		case prefilter && d.anchored != nil && d.starts == nil:
			matches = d.tokenMatches(content)
		case prefilter && !containsAny(hay, d.anyOf):
			continue
		case prefilter && d.starts != nil && isASCII(content):
			matches = d.assignmentMatches(content, folded)
		default:
			matches = d.re().FindAllStringSubmatchIndex(content, -1)
		}
		for _, m := range matches {
			start, end := m[2*d.group], m[2*d.group+1]
			if start < 0 {
				continue
			}
			if d.id == highEntropyID && specific[span{start, end}] {
				continue // a specific detector's finding already covers it
			}
			text := content[start:end]
			if d.minEntropy > 0 && entropy(text) < d.minEntropy {
				continue
			}
			if d.id != highEntropyID {
				specific[span{start, end}] = true
			}
			found = append(found, match{d, start, end})
		}
	}
	// A finding is built (hashed, redacted, located) only once it is
	// known to be kept.
	out := []Finding{}
	for _, m := range found {
		if m.d.id == highEntropyID && specific[span{m.start, m.end}] {
			continue
		}
		out = append(out, newFinding(*m.d, content, m.start, m.end))
	}
	slices.SortFunc(out, func(a, b Finding) int {
		if a.StartOffset != b.StartOffset {
			return a.StartOffset - b.StartOffset
		}
		if a.EndOffset != b.EndOffset {
			return a.EndOffset - b.EndOffset
		}
		return strings.Compare(a.Detector, b.Detector)
	})
	return slices.CompactFunc(out, func(a, b Finding) bool {
		return a.Detector == b.Detector && a.StartOffset == b.StartOffset && a.EndOffset == b.EndOffset
	})
}

// assignmentMatches is d.re().FindAllStringSubmatchIndex(content, -1)
// for the assignment rule in ASCII text, whose lower-cased form folded
// has the same offsets. A match begins with one of d.starts, and what
// follows it is fixed by the pattern: the first ':', '=' or newline
// after the keyword is a ':' or '=' within 46 bytes (13 of keyword, 32
// of anything else, then it), then spaces, a quote, at least 20 of the
// value's characters and a quote. Only where that holds is d.anchored
// tried, on just that span: the pattern can match there in one way only,
// so the span holds the whole match. Elsewhere nothing is searched, where
// the regexp alone costs about 200 ns a byte on text with its keywords.
func (d *detector) assignmentMatches(content, folded string) [][]int {
	var out [][]int
	var room [8]int
	next := room[:len(d.starts)]
	for i, w := range d.starts {
		next[i] = strings.Index(folded, w)
	}
	for from := 0; ; {
		at := nextOccurrence(folded, d.starts, next, from)
		if at < 0 {
			return out
		}
		if end := assignmentEnd(content, at); end > 0 {
			if m := d.anchored().FindStringSubmatchIndex(content[at:end]); m != nil {
				for k := range m {
					if m[k] >= 0 {
						m[k] += at
					}
				}
				out = append(out, m)
				from = m[1]
				continue
			}
		}
		from = at + 1
	}
}

// assignmentEnd is the end of the span a match of the assignment rule
// starting at at would take in ASCII content, or 0 when none can start
// there (see assignmentMatches).
func assignmentEnd(content string, at int) int {
	i := at
	for ; i < len(content) && i < at+46; i++ {
		if c := content[i]; c == ':' || c == '=' || c == '\n' {
			break
		}
	}
	if i == len(content) || i == at+46 || content[i] == '\n' {
		return 0
	}
	for i++; i < len(content) && strings.IndexByte(" \t\n\f\r", content[i]) >= 0; i++ {
	}
	if i == len(content) || content[i] != '"' && content[i] != '\'' {
		return 0
	}
	start := i + 1
	for i = start; i < len(content) && valueByte(content[i]); i++ {
	}
	if i-start < 20 || i == len(content) || content[i] != '"' && content[i] != '\'' {
		return 0
	}
	return i + 1
}

// valueByte reports whether b is one of the assignment rule's value
// characters in ASCII text.
func valueByte(b byte) bool {
	return isWordByte(b) || strings.IndexByte("+/=.-", b) >= 0
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// nextOccurrence returns the first offset at or after from where one of
// literals occurs in s, or -1. next holds each literal's occurrence found
// so far (-1: none left), advanced as from passes it.
func nextOccurrence(s string, literals []string, next []int, from int) int {
	at := -1
	for i, lit := range literals {
		if next[i] >= 0 && next[i] < from {
			if j := strings.Index(s[from:], lit); j >= 0 {
				next[i] = from + j
			} else {
				next[i] = -1
			}
		}
		if next[i] >= 0 && (at < 0 || next[i] < at) {
			at = next[i]
		}
	}
	return at
}

// tokenMatches is d.re().FindAllStringSubmatchIndex(content, -1) for a
// tokenRule, found by trying d.anchored at each occurrence of d's
// literals, in order, where a word boundary precedes it: a match of re
// can start nowhere else, and the one re finds first from a position is
// the one anchored finds at the first occurrence where any matches.
// Unlike re, it costs next to nothing on text without the literals.
func (d *detector) tokenMatches(content string) [][]int {
	var out [][]int
	var room [8]int             // no rule has more literals
	next := room[:len(d.anyOf)] // each literal's next occurrence at or after from (-1: none)
	for i, lit := range d.anyOf {
		next[i] = strings.Index(content, lit)
	}
	for from := 0; ; {
		at := nextOccurrence(content, d.anyOf, next, from)
		if at < 0 {
			return out
		}
		if at == 0 || !isWordByte(content[at-1]) {
			if m := d.anchored().FindStringIndex(content[at:]); m != nil {
				out = append(out, []int{at, at + m[1]})
				from = at + m[1]
				continue
			}
		}
		from = at + 1
	}
}

// isWordByte reports whether b is an ASCII word character, as `\b`
// sees them (a byte of a multi-byte character is not one).
func isWordByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

func containsAny(s string, literals []string) bool {
	if literals == nil {
		return true
	}
	for _, l := range literals {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

func newFinding(d detector, content string, start, end int) Finding {
	text := content[start:end]
	line, col := position(content, start)
	_, colEnd := position(content, end)
	sum := sha256.Sum256([]byte(text))
	return Finding{
		Detector:    d.id,
		Source:      d.source,
		Title:       d.title,
		Line:        line,
		ColumnStart: col,
		ColumnEnd:   colEnd,
		StartOffset: start,
		EndOffset:   end,
		Redacted:    redact(d.id, text),
		Fingerprint: hex.EncodeToString(sum[:])[:16],
	}
}

// position returns the 1-based line and character column of byte offset
// off.
func position(content string, off int) (line, col int) {
	before := content[:off]
	lineStart := strings.LastIndexByte(before, '\n') + 1
	return strings.Count(before, "\n") + 1, utf8.RuneCountInString(before[lineStart:]) + 1
}

// redact keeps just enough of a match to recognise it: a private key's
// header line, else the first and last four characters; short matches
// become all asterisks.
func redact(detector, text string) string {
	if detector == privateKeyID {
		first, _, _ := strings.Cut(text, "\n")
		return first + " …"
	}
	runes := []rune(text)
	if len(runes) <= 8 {
		return strings.Repeat("*", len(runes))
	}
	return string(runes[:4]) + "…" + string(runes[len(runes)-4:])
}

// entropy is the Shannon entropy of s in bits per character. ASCII
// text (every value the assignment rule captures) is counted in an
// array: a map per call was a quarter of a scan's time.
func entropy(s string) float64 {
	var ascii [utf8.RuneSelf]int
	var counts map[rune]int
	n := 0
	for _, r := range s {
		if r < utf8.RuneSelf {
			ascii[r]++
		} else {
			if counts == nil {
				counts = map[rune]int{}
			}
			counts[r]++
		}
		n++
	}
	if n == 0 {
		return 0
	}
	h := 0.0
	add := func(c int) {
		p := float64(c) / float64(n)
		h -= p * math.Log2(p)
	}
	for _, c := range ascii {
		if c > 0 {
			add(c)
		}
	}
	for _, c := range counts {
		add(c)
	}
	return h
}
