// Package gosdk drives the MCP servers of testdata/mcp-targets.json with the
// official Go SDK as a client (github.com/modelcontextprotocol/go-sdk),
// over stdio and over session-free Streamable HTTP, in the 2026-07-28
// profile (and the released one on stdio). It runs the harn binary named
// by HARN_BIN (`make mcp-gosdk` builds it and sets it); without HARN_BIN
// the tests skip and say so. The go tool leaves directories named testdata
// out of ./..., so `go test ./...` never reaches this package: mcp-gosdk
// names it.
package gosdk

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// target is one entry of testdata/mcp-targets.json.
type target struct {
	Title string   `json:"title"`
	Stdio []string `json:"stdio"`
	HTTP  []string `json:"http"`
	Probe []string `json:"probe"`
	Ready string   `json:"ready"`
}

// expectation is what a target serves, for the checks that name tools.
type expectation struct {
	server       string
	tool         string
	args         map[string]any
	progressTool string
	progressArgs map[string]any
	// unknownTool is how a call of an unknown tool fails: a JSON-RPC
	// error message, or the text of an isError result.
	unknownToolError, unknownToolResult string
}

var expectations = map[string]expectation{
	"serve": {server: "harn-conformance", tool: "test_simple_text", progressTool: "test_tool_with_progress",
		unknownToolError: "Unknown tool: no_such_tool"}, // docs/spec/mcp-projection.md §6
	"orchestrator": {server: "harn-orchestrator", tool: "harn.trigger.list", progressTool: "harn.trigger.fire",
		progressArgs:      map[string]any{"trigger_id": "manual-ok", "payload": map[string]any{}},
		unknownToolResult: "unknown tool 'no_such_tool'"}, // docs/spec/orchestrator.md §5
}

const testdataDir = ".."

func loadTargets(t *testing.T) (string, map[string]target) {
	t.Helper()
	bin := os.Getenv("HARN_BIN")
	if bin == "" {
		t.Skip("HARN_BIN is not set; `make mcp-gosdk` builds harn and runs these tests")
	}
	if !filepath.IsAbs(bin) {
		bin = filepath.Join("..", "..", bin) // relative to the repository root
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(testdataDir, "mcp-targets.json"))
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	out := map[string]target{}
	wanted := os.Getenv("MCP_TARGETS")
	for name, msg := range all {
		if strings.HasPrefix(name, "_") || (wanted != "" && !strings.Contains(","+wanted+",", ","+name+",")) {
			continue
		}
		var tg target
		if err := json.Unmarshal(msg, &tg); err != nil {
			t.Fatal(err)
		}
		out[name] = tg
	}
	return bin, out
}

func fill(args []string, vars map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range vars {
			a = strings.ReplaceAll(a, "{"+k+"}", v)
		}
		out[i] = a
	}
	return out
}

// available runs the target's probe.
func available(bin string, tg target) bool {
	cmd := exec.Command(bin, tg.Probe...)
	cmd.Dir = testdataDir
	return cmd.Run() == nil
}

// startHTTP starts the target's HTTP server on a free port and returns
// its endpoint; the process is killed when the test ends.
func startHTTP(t *testing.T, bin string, tg target) string {
	t.Helper()
	cmd := exec.Command(bin, fill(tg.HTTP, map[string]string{"port": "0", "state": t.TempDir()})...)
	cmd.Dir = testdataDir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	ready := regexp.MustCompile(tg.Ready)
	found := make(chan string, 1)
	var mu sync.Mutex
	var log strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		close(found)
	}()
	select {
	case url, ok := <-found:
		if ok {
			return url
		}
	case <-time.After(60 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	t.Fatalf("server did not announce its endpoint; stderr:\n%s", log.String())
	return ""
}

func TestGoSDKClient(t *testing.T) {
	bin, targets := loadTargets(t)
	for name, tg := range targets {
		want := expectations[name]
		t.Run(name, func(t *testing.T) {
			if !available(bin, tg) {
				t.Skipf("%s is not built yet (`harn %s` failed)", tg.Title, strings.Join(tg.Probe, " "))
			}
			for _, c := range []struct{ transport, version string }{
				{"stdio", "2026-07-28"}, {"stdio", "2025-11-25"}, {"http", "2026-07-28"},
			} {
				t.Run(c.transport+"/"+c.version, func(t *testing.T) {
					var transport sdk.Transport
					if c.transport == "stdio" {
						cmd := exec.Command(bin, fill(tg.Stdio, map[string]string{"state": t.TempDir()})...)
						cmd.Dir = testdataDir
						transport = &sdk.CommandTransport{Command: cmd}
					} else {
						transport = &sdk.StreamableClientTransport{Endpoint: startHTTP(t, bin, tg), DisableStandaloneSSE: true, MaxRetries: -1}
					}
					exercise(t, transport, c.version, want)
				})
			}
		})
	}
}

func exercise(t *testing.T, transport sdk.Transport, version string, want expectation) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var pmu sync.Mutex
	var progress []float64
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-test", Version: "1.8.0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			pmu.Lock()
			progress = append(progress, req.Params.Progress)
			pmu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != want.server {
		t.Errorf("server name %q, want %q", got, want.server)
	}
	var names []string
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tl.Name)
	}
	if !strings.Contains(","+strings.Join(names, ",")+",", ","+want.tool+",") {
		t.Errorf("tools %v lack %s", names, want.tool)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: want.tool, Arguments: orEmpty(want.args)})
	if err != nil || res.IsError {
		t.Errorf("call %s: %v %+v", want.tool, err, res)
	}
	params := &sdk.CallToolParams{Name: want.progressTool, Arguments: orEmpty(want.progressArgs)}
	params.SetProgressToken("go-sdk-progress")
	if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
		t.Errorf("call %s: %v %+v", want.progressTool, err, res)
	}
	// The SDK hands notifications to the handler asynchronously.
	var got []float64
	for i := 0; i < 1000 && len(got) == 0; i++ {
		pmu.Lock()
		got = append(got[:0], progress...)
		pmu.Unlock()
		if len(got) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if len(got) == 0 {
		t.Errorf("no progress notifications from %s", want.progressTool)
	}
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}})
	switch {
	case want.unknownToolError != "":
		if err == nil || !strings.Contains(err.Error(), want.unknownToolError) {
			t.Errorf("unknown tool: %v", err)
		}
	case err != nil || !res.IsError || len(res.Content) == 0:
		t.Errorf("unknown tool: %v %+v", err, res)
	default:
		if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != want.unknownToolResult {
			t.Errorf("unknown tool result %+v", res.Content[0])
		}
	}
	if _, err := cs.ListPrompts(ctx, nil); err != nil {
		t.Errorf("prompts/list: %v", err)
	}
	if _, err := cs.ListResources(ctx, nil); err != nil {
		t.Errorf("resources/list: %v", err)
	}
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
