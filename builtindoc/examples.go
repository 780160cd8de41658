package builtindoc

import (
	"embed"
	"fmt"
	"path"
	"strings"
)

// The examples live in examples/*.harn, one file per area, because they
// are programs with their printed output and read best as Harn source.
// The format, for whoever adds a builtin:
//
//	// == TITLE            starts the example of TITLE (as `harn doc` names
//	                       it: split, string.split, std/math.clamp)
//	println(split("a,b", ","))
//	// => ["a", "b"]       one line of what it prints (`// =>` alone: an
//	                       empty line)
//
// Lines before the first `// ==` are the file's own comment. An example
// of a std/* function may leave out its import: the entry's module is
// imported for it. `go test ./builtindoc -run TestBuiltinExamples -update`
// runs every example and rewrites the `// =>` lines with what it printed.

//go:embed examples/*.harn
var exampleFiles embed.FS

// Example is the example of one entry.
type Example struct {
	File   string // examples/AREA.harn
	Line   int    // of the `// ==` line
	Code   string // the program, without its output lines
	Output string // what it prints; "" when it prints nothing
}

const (
	exampleMark = "// == "
	outputMark  = "// =>"
)

// exampleFile names the file an area's examples belong in.
func exampleFile(area string) string {
	return "examples/" + strings.ReplaceAll(area, "/", "_") + ".harn"
}

// parseExamples reads one examples file into its examples, in file order.
func parseExamples(file, text string) ([]string, map[string]*Example, error) {
	var titles []string
	out := map[string]*Example{}
	var cur *Example
	var code, output []string
	flush := func() {
		if cur == nil {
			return
		}
		cur.Code = strings.TrimRight(strings.Join(code, "\n"), "\n ") + "\n"
		if len(output) > 0 {
			cur.Output = strings.Join(output, "\n") + "\n"
		}
	}
	for i, line := range strings.Split(text, "\n") {
		if title, ok := strings.CutPrefix(line, exampleMark); ok {
			flush()
			title = strings.TrimSpace(title)
			if out[title] != nil {
				return nil, nil, fmt.Errorf("%s:%d: a second example of %s", file, i+1, title)
			}
			cur = &Example{File: file, Line: i + 1}
			out[title] = cur
			titles = append(titles, title)
			code, output = nil, nil
			continue
		}
		if cur == nil {
			continue
		}
		if rest, ok := strings.CutPrefix(line, outputMark); ok {
			output = append(output, strings.TrimPrefix(rest, " "))
			continue
		}
		if len(code) == 0 && strings.TrimSpace(line) == "" {
			continue
		}
		code = append(code, line)
	}
	flush()
	return titles, out, nil
}

// loadExamples reads every examples file.
func loadExamples() (map[string]*Example, error) {
	names, err := exampleFiles.ReadDir("examples")
	if err != nil {
		return nil, err
	}
	all := map[string]*Example{}
	for _, n := range names {
		file := path.Join("examples", n.Name())
		data, err := exampleFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		_, exs, err := parseExamples(file, string(data))
		if err != nil {
			return nil, err
		}
		for title, ex := range exs {
			if prev := all[title]; prev != nil {
				return nil, fmt.Errorf("%s:%d: a second example of %s (first in %s)", file, ex.Line, title, prev.File)
			}
			all[title] = ex
		}
	}
	return all, nil
}

// formatExamples writes an examples file back with new outputs (by
// title), keeping the header, the order and the code as they were.
func formatExamples(file, text string, outputs map[string]string) (string, error) {
	titles, exs, err := parseExamples(file, text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if header, _, _ := strings.Cut(text, "\n"+exampleMark); !strings.HasPrefix(text, exampleMark) {
		b.WriteString(strings.TrimRight(header, "\n") + "\n\n")
	}
	for i, title := range titles {
		if i > 0 {
			b.WriteString("\n")
		}
		ex := exs[title]
		b.WriteString(exampleMark + title + "\n" + ex.Code)
		out, ok := outputs[title]
		if !ok {
			out = ex.Output
		}
		if out != "" {
			for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
				if l == "" {
					b.WriteString(outputMark + "\n")
				} else {
					b.WriteString(outputMark + " " + l + "\n")
				}
			}
		}
	}
	return b.String(), nil
}
