package protocol

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK client against the protocol layer and the fake
// provider, in process: stdio in both eras and session-free HTTP, with
// paging, progress and input_required retries.
func TestGoSDKClientAgainstTheProtocolLayer(t *testing.T) {
	for _, c := range []struct{ transport, version string }{
		{"stdio", "2026-07-28"}, {"stdio", "2025-11-25"}, {"http", "2026-07-28"},
	} {
		t.Run(c.transport+"/"+c.version, func(t *testing.T) {
			srv := NewServer(&fake{extra: 5}, Options{PageSize: 3, Parallel: true})
			var transport sdk.Transport
			if c.transport == "stdio" {
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				go func() { srv.Serve(inR, outW); outW.Close() }()
				transport = &sdk.IOTransport{Reader: outR, Writer: inW}
			} else {
				hs := httptest.NewServer(srv.HTTPHandler(HTTPOptions{}))
				defer hs.Close()
				transport = &sdk.StreamableClientTransport{Endpoint: hs.URL + "/mcp", DisableStandaloneSSE: true, MaxRetries: -1}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var mu sync.Mutex
			var progress []float64
			client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk", Version: "1.8.0"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
					mu.Lock()
					progress = append(progress, req.Params.Progress)
					mu.Unlock()
				},
				ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					return &sdk.ElicitResult{Action: "decline"}, nil
				},
			})
			cs, err := client.Connect(ctx, transport, &sdk.ClientSessionOptions{ProtocolVersion: c.version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if name := cs.InitializeResult().ServerInfo.Name; name != "fake" {
				t.Errorf("server %q", name)
			}
			var names []string
			for tl, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatal(err)
				}
				names = append(names, tl.Name)
			}
			if len(names) != len(fakeTools)+5 {
				t.Errorf("paged tools %v", names)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil || res.IsError || res.Content[0].(*sdk.TextContent).Text != "hi" {
				t.Errorf("echo: %v %+v", err, res)
			}
			p := &sdk.CallToolParams{Name: "progress", Arguments: map[string]any{}}
			p.SetProgressToken("tok")
			if _, err := cs.CallTool(ctx, p); err != nil {
				t.Fatal(err)
			}
			// The SDK hands notifications to the handler asynchronously.
			var got []float64
			for i := 0; i < 1000; i++ {
				mu.Lock()
				got = append(got[:0], progress...)
				mu.Unlock()
				if len(got) == 3 {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if len(got) != 3 {
				t.Errorf("progress %v", got)
			}
			// Client input: a server-to-client request (released) or an
			// input_required round the SDK retries (2026-07-28).
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "ask", Arguments: map[string]any{}})
			if err != nil || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"action":"decline"`) {
				t.Errorf("ask: %v %+v", err, res)
			}
			if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Unknown tool: nope") {
				t.Errorf("unknown tool: %v", err)
			}
			// The error answers of docs/spec/mcp-projection.md §9 and §14 as
			// the SDK reports them.
			for what, call := range map[string]func() error{
				"invalid tools/list cursor": func() error {
					_, err := cs.ListTools(ctx, &sdk.ListToolsParams{Cursor: "not-base64!"})
					return err
				},
				"Resource not found: fake://missing": func() error {
					_, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "fake://missing"})
					return err
				},
				"completion ref.name is required for ref/prompt": func() error {
					_, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt"}, Argument: sdk.CompleteParamsArgument{Name: "who"}})
					return err
				},
				"completion ref.uri is required for ref/resource": func() error {
					_, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/resource"}, Argument: sdk.CompleteParamsArgument{Name: "id"}})
					return err
				},
				"Unknown prompt: nope": func() error {
					_, err := cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "nope"}, Argument: sdk.CompleteParamsArgument{Name: "who"}})
					return err
				},
			} {
				if err := call(); err == nil || !strings.Contains(err.Error(), what) {
					t.Errorf("want an error with %q, got %v", what, err)
				}
			}
			// A released session may set a level only on a server that
			// advertises logging (the fake does not); a 2026-07-28 client
			// names its level in _meta instead.
			if c.version != "2026-07-28" {
				if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err == nil || !strings.Contains(err.Error(), "Method not found: logging/setLevel") {
					t.Errorf("logging/setLevel: %v", err)
				}
			}
		})
	}
}
