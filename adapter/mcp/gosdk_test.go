package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The official Go SDK client (v1.8.0) against the server, in both eras:
// a released session (initialize, 2025-11-25) and a 2026-07-28 session
// (server/discover, per-request metadata, input_required retries).

func sdkSession(t *testing.T, script, version string) *sdk.ClientSession {
	t.Helper()
	sf := loadSurface(t, script, io.Discard)
	srv := NewServer(sf, Options{Stderr: io.Discard})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() { srv.Serve(inR, outW); outW.Close() }()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk-test", Version: "1.0.0"}, &sdk.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"env": "staging"}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestGoSDKClient(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := sdkSession(t, testdata("kitchen.harn"), version)
			if got := cs.InitializeResult().ServerInfo.Name; got != "kitchen" {
				t.Errorf("server name %q", got)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tl := range tools.Tools {
				names = append(names, tl.Name)
			}
			if strings.Contains(strings.Join(names, ","), "cli_only") || len(names) != 16 {
				t.Errorf("tools %v", names)
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "count", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("count: %v %+v", err, res)
			}
			sc, _ := json.Marshal(res.StructuredContent)
			want := `{"result":3}`
			if version == "2026-07-28" {
				want = `3`
			}
			if string(sc) != want {
				t.Errorf("structuredContent %s, want %s", sc, want)
			}
			_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "strict", Arguments: map[string]any{"n": -1}})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != -32602 {
				t.Errorf("invalid call: %v", err)
			}
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "lookup", Arguments: map[string]any{"id": 9}})
			if err != nil || !res.IsError {
				t.Fatalf("declared error: %v %+v", err, res)
			}
			// Elicitation: a real request for the released session, an
			// input_required round trip the SDK retries for 2026.
			res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "deploy", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if tc, ok := res.Content[0].(*sdk.TextContent); !ok || tc.Text != "deployed to staging" {
				t.Errorf("deploy: %+v", res.Content[0])
			}
		})
	}
}
