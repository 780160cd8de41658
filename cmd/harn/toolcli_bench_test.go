package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// registry50 is a 50-tool registry with CLI metadata, an output schema
// and a trivial handler per tool: the registry of the `harn tool run`
// speed target (process start to exit under 15 ms, median).
func registry50() string {
	var b strings.Builder
	b.WriteString("import { tool_registry_from } from \"std/tools\"\n\nfn tools() {\n  return tool_registry_from([\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&b, `    {
      name: "tool_%d",
      description: "Tool number %d.",
      parameters: {
        id: {schema: {type: "integer", minimum: 0}, required: true},
        mode: {schema: {type: "string", enum: ["fast", "safe"]}, required: false},
        tags: {schema: {type: "array", items: {type: "string"}}, required: false},
        verbose: {schema: {type: "boolean"}, required: false},
      },
      returns: {"$ref": "#/components/schemas/Item"},
      cli: {
        command: ["group%d", "tool-%d"],
        arguments: {
          id: {position: 0, help: "Item id"},
          tags: {repeatable: true, short: "t", long: "tag"},
          mode: {completions: ["safe"]},
          verbose: {short: "v", boolean_style: "set_true"},
        },
      },
      handler: {args -> {id: args.id, label: "tool %d"}},
    },
`, i, i, i%5, i, i)
	}
	b.WriteString(`  ], {
    info: {name: "bench", version: "1.0.0", description: "Fifty tools"},
    components: {schemas: {Item: {type: "object", properties: {id: {type: "integer"}, label: {type: "string"}}, required: ["id", "label"]}}},
  })
}

fn main(harness: Harness) {
  harness.tools.mcp_tools(tools())
}
`)
	return b.String()
}

// BenchmarkToolRunProcess50 times `harn tool run` on the 50-tool
// registry from process start to exit, with a freshly built harn binary,
// next to `harn run` of an empty script (the floor every harn process
// pays). It reports the medians:
//
//	go test ./cmd/harn -run '^$' -bench ToolRunProcess50 -benchtime 100x
func BenchmarkToolRunProcess50(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "harn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "bench50.harn")
	empty := filepath.Join(dir, "empty.harn")
	os.WriteFile(script, []byte(registry50()), 0o644)
	os.WriteFile(empty, nil, 0o644)
	toolRun := []string{"tool", "run", script, "group3", "tool-13", "7", "--tag", "a", "-v"}
	if out, err := exec.Command(bin, toolRun...).Output(); err != nil || string(out) != `{"id":7,"label":"tool 13"}`+"\n" {
		b.Fatalf("harn tool run: %v %q", err, out)
	}
	timeOne := func(args ...string) time.Duration {
		cmd := exec.Command(bin, args...)
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("harn %s: %v", strings.Join(args, " "), err)
		}
		return time.Since(start)
	}
	var runs, empties []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runs = append(runs, timeOne(toolRun...))
		empties = append(empties, timeOne("run", empty))
	}
	b.StopTimer()
	b.ReportMetric(ms(median(runs)), "ms-tool-run-median")
	b.ReportMetric(ms(median(empties)), "ms-run-empty-median")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
