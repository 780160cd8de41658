package sdkgen

import (
	"encoding/json"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/tool"
)

// largeCatalog is a 1,000-tool catalog: the 50 tools of the
// registry50 fixture twenty times over, renamed, sharing its components.
func largeCatalog(tb testing.TB) []byte {
	tb.Helper()
	data, err := os.ReadFile("testdata/catalogs/registry50.json")
	if err != nil {
		tb.Fatal(err)
	}
	var cat map[string]any
	if err := json.Unmarshal(data, &cat); err != nil {
		tb.Fatal(err)
	}
	base := cat["tools"].([]any)
	var tools []any
	for i := 0; len(tools) < 1000; i++ {
		for _, t := range base {
			var c map[string]any
			b, _ := json.Marshal(t)
			json.Unmarshal(b, &c)
			name := fmt.Sprintf("%s_%d", c["name"], i)
			c["name"] = name
			c["cli"].(map[string]any)["command"] = []any{name}
			tools = append(tools, c)
		}
	}
	cat["tools"] = tools
	out, _ := json.Marshal(cat)
	return out
}

// BenchmarkGenerate1000 measures `harn tool sdk` for all three languages
// on a 1,000-tool catalog, from the serialized catalog: read, prepare,
// build the model, render TypeScript, Go (gofmt included) and Python.
func BenchmarkGenerate1000(b *testing.B) {
	data := largeCatalog(b)
	start := cpuTime()
	n := 0
	for b.Loop() {
		n++
		cat, err := tool.ParseCatalog(data)
		if err != nil {
			b.Fatal(err)
		}
		p, err := Prepare(cat)
		if err != nil {
			b.Fatal(err)
		}
		m, err := Build(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, lang := range Languages {
			if _, err := Render(m, lang, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	}
	// CPU seconds per run: the wall time of a shared machine says more
	// about its load than about the generator.
	b.ReportMetric((cpuTime()-start).Seconds()/float64(n), "cpu-s/op")
}

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestLargeCatalog: the 1,000-tool catalog generates in every language
// with one method per tool.
func TestLargeCatalog(t *testing.T) {
	cat, err := tool.ParseCatalog(largeCatalog(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(cat)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tools) != 1000 {
		t.Fatalf("%d tools", len(m.Tools))
	}
	for _, lang := range Languages {
		if _, err := Render(m, lang, Options{}); err != nil {
			t.Fatal(err)
		}
	}
}
