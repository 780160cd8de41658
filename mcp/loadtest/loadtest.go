// Package loadtest measures an MCP Streamable HTTP server the way issue
// 11's speed figure states it: session-free `tools/call` requests from
// many concurrent clients over loopback, reported as throughput and
// latency percentiles (p50, p90, p99, max).
//
// It drives either an http.Handler, served on a loopback listener of its
// own (RunHandler), or a server that is already listening (RunURL), for
// example a `harn mcp serve --transport http` process. Each client is a
// goroutine that sends its next request as soon as the previous answer
// has been read, over a keep-alive connection of its own, so latency
// includes the HTTP round trip, the server's routing-header and auth
// checks, the dispatch and the JSON encoding — everything but a real
// network.
package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Options describe the load.
type Options struct {
	// Clients is the number of concurrent clients (default 64).
	Clients int
	// Requests is the number of measured requests, shared among the
	// clients (default 100 per client).
	Requests int
	// Warmup requests per client are sent first and not measured
	// (default 5): connections open and caches fill.
	Warmup int
	// Path is the endpoint path for RunHandler (default /mcp).
	Path string
	// Tool and Arguments are the tools/call target; Arguments is a JSON
	// object (default {}).
	Tool      string
	Arguments json.RawMessage
	// Header is added to every request (credentials, for example).
	Header http.Header
	// Timeout bounds each request (default 30s).
	Timeout time.Duration
}

// Result is what a run measured.
type Result struct {
	Requests int           // measured requests
	Errors   int           // transport errors, non-200 answers, JSON-RPC errors and isError results
	Elapsed  time.Duration // wall time of the measured phase
	P50, P90 time.Duration
	P99, Max time.Duration
	// FirstError describes the first failed request, if any.
	FirstError string
}

// PerSecond is the measured throughput.
func (r Result) PerSecond() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

func (r Result) String() string {
	return fmt.Sprintf("%d requests, %d errors, %.0f/s, p50 %s, p90 %s, p99 %s, max %s",
		r.Requests, r.Errors, r.PerSecond(), r.P50, r.P90, r.P99, r.Max)
}

// RunHandler serves h on a loopback port for the duration of the run.
func RunHandler(ctx context.Context, h http.Handler, o Options) (Result, error) {
	srv := httptest.NewServer(h)
	defer srv.Close()
	path := o.Path
	if path == "" {
		path = "/mcp"
	}
	return RunURL(ctx, srv.URL+path, o)
}

// RunURL sends the load to the MCP endpoint at url.
func RunURL(ctx context.Context, url string, o Options) (Result, error) {
	if o.Tool == "" {
		return Result{}, errors.New("loadtest: Options.Tool is required")
	}
	if o.Clients <= 0 {
		o.Clients = 64
	}
	if o.Requests <= 0 {
		o.Requests = 100 * o.Clients
	}
	if o.Warmup < 0 {
		o.Warmup = 0
	} else if o.Warmup == 0 {
		o.Warmup = 5
	}
	if o.Timeout <= 0 {
		o.Timeout = 30 * time.Second
	}
	args := o.Arguments
	if len(args) == 0 {
		args = json.RawMessage(`{}`)
	}
	transport := &http.Transport{
		MaxIdleConns:        o.Clients,
		MaxIdleConnsPerHost: o.Clients,
		MaxConnsPerHost:     o.Clients,
		IdleConnTimeout:     time.Minute,
	}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: o.Timeout}

	var (
		next       atomic.Int64 // measured requests handed out
		errs       atomic.Int64
		firstErr   sync.Once
		firstError string
		latencies  = make([]time.Duration, o.Requests)
		ready      sync.WaitGroup
		done       sync.WaitGroup
		start      = make(chan struct{})
	)
	fail := func(msg string) {
		errs.Add(1)
		firstErr.Do(func() { firstError = msg })
	}
	// The body differs per request only in its id: marshal the rest once,
	// so the clients spend their CPU on HTTP, not on building requests.
	params, err := json.Marshal(map[string]any{
		"name": o.Tool, "arguments": args,
		"_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "harn-loadtest", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		},
	})
	if err != nil {
		return Result{}, fmt.Errorf("loadtest: arguments: %v", err)
	}
	var id atomic.Int64
	one := func() (time.Duration, error) {
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id.Add(1), params)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", o.Tool)
		for k, vs := range o.Header {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
		begin := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		answer, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(begin)
		if err != nil {
			return took, err
		}
		if resp.StatusCode != http.StatusOK {
			return took, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, answer)
		}
		return took, checkAnswer(answer)
	}
	for range o.Clients {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			for range o.Warmup {
				if _, err := one(); err != nil {
					fail("warm-up: " + err.Error())
				}
			}
			ready.Done()
			<-start
			for {
				i := next.Add(1) - 1
				if i >= int64(o.Requests) || ctx.Err() != nil {
					return
				}
				took, err := one()
				latencies[i] = took
				if err != nil {
					fail(err.Error())
				}
			}
		}()
	}
	ready.Wait()
	begin := time.Now()
	close(start)
	done.Wait()
	elapsed := time.Since(begin)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		i := int(p*float64(len(latencies))+0.999999) - 1
		return latencies[max(0, min(i, len(latencies)-1))]
	}
	return Result{
		Requests:   o.Requests,
		Errors:     int(errs.Load()),
		Elapsed:    elapsed,
		P50:        pct(0.50),
		P90:        pct(0.90),
		P99:        pct(0.99),
		Max:        latencies[len(latencies)-1],
		FirstError: firstError,
	}, nil
}

// checkAnswer accepts a JSON-RPC success whose CallToolResult is not an
// error, as application/json or as the last SSE message event.
func checkAnswer(answer []byte) error {
	if i := bytes.LastIndex(answer, []byte("\ndata: ")); bytes.HasPrefix(answer, []byte("id:")) && i >= 0 {
		answer = bytes.TrimSpace(answer[i+len("\ndata: "):])
	}
	var m struct {
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &m); err != nil {
		return fmt.Errorf("answer is not JSON-RPC: %.200s", answer)
	}
	switch {
	case m.Error != nil:
		return fmt.Errorf("JSON-RPC error %d: %s", m.Error.Code, m.Error.Message)
	case m.Result == nil:
		return fmt.Errorf("answer has no result: %.200s", answer)
	case m.Result.IsError:
		return fmt.Errorf("tool failed: %.200s", answer)
	}
	return nil
}
