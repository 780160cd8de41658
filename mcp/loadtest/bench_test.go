package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harnlang/harn/eventlog/eventlogtest/pgtest"
	"github.com/harnlang/harn/internal/jsonv"
	"github.com/harnlang/harn/mcp/auth"
	"github.com/harnlang/harn/mcp/protocol"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"
)

// Issue 11's figure: HTTP tools/call p99 with 64 concurrent clients on
// loopback. Each benchmark runs b.N measured requests (at least 640)
// and reports the percentiles as metrics: `go test -run '^$' -bench .
// ./mcp/loadtest` (`make bench-orchestrator` and `make bench` run it after
// building bin/harn). Besides the percentiles each reports CPU time per
// call, which other load on the machine does not inflate as much.
//
// The subprocess benchmarks run bin/harn, or the binary HARN_BIN names
// (so two builds can be compared in one run), and report the server's
// CPU per call and, separately, the load generator's (client-cpu-us/call:
// it shares the cores with the server, so what it costs is taken from
// the server's latency). With HARN_LOADTEST_PROFILE_DIR set, each server
// writes a CPU profile there (HARN_CPUPROFILE), named after the
// benchmark, when it is stopped with SIGTERM at the end. With
// HARN_LOADTEST_CLIENT=net/http the load goes through net/http's client
// (Options.NetHTTP), the generator this package had first, to compare
// what the client side costs.

const clients = 64

func report(b *testing.B, res Result) {
	b.Helper()
	if res.Errors > 0 {
		b.Fatalf("%d of %d requests failed; first: %s", res.Errors, res.Requests, res.FirstError)
	}
	b.ReportMetric(float64(res.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(res.P99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(res.Max.Microseconds())/1000, "max-ms")
	b.ReportMetric(res.PerSecond(), "calls/s")
	b.ReportMetric(float64(res.Passed99), "p99-passed")
	b.ReportMetric(0, "ns/op") // one op is not one request: hide the default
	b.Logf("%s", res)
}

// A cpuClock reads the CPU time (user and system) a process used so
// far. Latency on a shared machine mostly measures the other load; CPU
// time per call measures the work a call costs, whatever else runs.
type cpuClock struct {
	metric string
	read   func() time.Duration
}

// selfCPU is this process's CPU: server and load generator, for the
// in-process benchmarks.
var selfCPU = cpuClock{"cpu-us/call", ProcessCPU}

// procCPU is the CPU of another process (a harn server), from
// /proc/PID/stat (Linux; elsewhere the metric is not reported).
func procCPU(pid int) cpuClock {
	return cpuClock{"server-cpu-us/call", func() time.Duration {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return -1
		}
		// Fields after the parenthesised command: state is field 3,
		// utime and stime are 14 and 15, in clock ticks (USER_HZ, 100).
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 13 {
			return -1
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(ut+st) * 10 * time.Millisecond
	}}
}

// clientCPU is the load generator's CPU, for the subprocess benchmarks:
// this process does nothing else while they run.
var clientCPU = cpuClock{"client-cpu-us/call", selfCPU.read}

func load(b *testing.B, run func(Options) (Result, error), o Options, clocks ...cpuClock) {
	b.Helper()
	o.Clients = clients
	o.Requests = max(b.N, 10*clients)
	o.NetHTTP = os.Getenv("HARN_LOADTEST_CLIENT") == "net/http"
	const warmup = 5
	o.Warmup = warmup
	before := make([]time.Duration, len(clocks))
	for i, c := range clocks {
		before[i] = c.read()
	}
	b.ResetTimer()
	res, err := run(o)
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	for i, c := range clocks {
		if after := c.read(); before[i] >= 0 && after >= 0 {
			calls := o.Requests + warmup*o.Clients
			b.ReportMetric(float64((after-before[i]).Microseconds())/float64(calls), c.metric)
		}
	}
	report(b, res)
}

// BenchmarkProtocol64 measures the protocol layer both MCP servers sit
// on (mcp/protocol's HTTP transport, a one-tool provider answering
// inline) under each auth mode: the floor under every server figure,
// and what each auth mode adds to a request.
func BenchmarkProtocol64(b *testing.B) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	pub, _ := jwk.Import(&key.PublicKey)
	pub.Set(jwk.KeyIDKey, "k1")
	pub.Set(jwk.AlgorithmKey, jwa.ES256())
	set := jwk.NewSet()
	set.AddKey(pub)
	setJSON, _ := json.Marshal(set)
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(setJSON) }))
	defer jwks.Close()
	tok, _ := jwt.NewBuilder().Issuer("https://auth.example.com").Audience([]string{"https://mcp.example.com/mcp"}).
		Subject("bench").Expiration(time.Now().Add(time.Hour)).Claim("scope", "mcp:control").Build()
	hdr := jws.NewHeaders()
	hdr.Set(jws.KeyIDKey, "k1")
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.ES256(), key, jws.WithProtectedHeaders(hdr)))
	if err != nil {
		b.Fatal(err)
	}
	modes := []struct {
		name   string
		env    map[string]string
		header http.Header
	}{
		{"none", nil, nil},
		{"api-key", map[string]string{auth.EnvAPIKeys: "a,b,c,bench-key"}, http.Header{"X-Api-Key": {"bench-key"}}},
		{"jwt-es256", map[string]string{
			auth.EnvAuthorizationServers: "https://auth.example.com",
			auth.EnvJWKSURL:              jwks.URL,
			auth.EnvResource:             "https://mcp.example.com/mcp",
			auth.EnvIssuer:               "https://auth.example.com",
			auth.EnvScopes:               "mcp:control",
		}, http.Header{"Authorization": {"Bearer " + string(signed)}}},
	}
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			cfg, err := auth.FromEnv(func(k string) string { return m.env[k] })
			if err != nil {
				b.Fatal(err)
			}
			defer cfg.Close()
			srv := protocol.NewServer(echoProvider{}, protocol.Options{Parallel: true})
			h := srv.HTTPHandler(protocol.HTTPOptions{Path: "/mcp", Auth: cfg})
			load(b, func(o Options) (Result, error) { return RunHandler(context.Background(), h, o) },
				Options{Tool: "echo", Arguments: json.RawMessage(`{"n":1}`), Header: m.header}, selfCPU)
		})
	}
}

// echoProvider serves one tool, echo, that answers its arguments' n.
type echoProvider struct{}

func (echoProvider) ServerInfo() *jsonv.Object {
	o := jsonv.NewObject(2)
	o.Set("name", "echo")
	o.Set("version", "1")
	return o
}
func (echoProvider) Instructions() string { return "" }
func (echoProvider) Capabilities() *jsonv.Object {
	o := jsonv.NewObject(1)
	o.Set("tools", jsonv.NewObject(0))
	return o
}
func (echoProvider) Tools(*protocol.Request) ([]*jsonv.Object, *protocol.Error) { return nil, nil }
func (echoProvider) Tool(_ *protocol.Request, name string) (protocol.Tool, bool) {
	return echoTool{}, name == "echo"
}
func (echoProvider) Resources(*protocol.Request) ([]any, *protocol.Error)         { return nil, nil }
func (echoProvider) ResourceTemplates(*protocol.Request) ([]any, *protocol.Error) { return nil, nil }
func (echoProvider) ReadResource(*protocol.Request, string) any {
	return protocol.Errorf(-32002, "no resources")
}
func (echoProvider) Prompts(*protocol.Request) ([]any, *protocol.Error) { return nil, nil }
func (echoProvider) GetPrompt(*protocol.Request) any {
	return protocol.Errorf(-32602, "no prompts")
}
func (echoProvider) Complete(*protocol.Request, protocol.CompletionRef, string, string) ([]string, *protocol.Error) {
	return nil, nil
}

type echoTool struct{}

func (echoTool) TaskSupport() string          { return "forbidden" }
func (echoTool) Validate(any) *protocol.Error { return nil }
func (echoTool) Call(_ *protocol.Call, args any) any {
	n := any(nil)
	if o, ok := args.(*jsonv.Object); ok {
		n, _ = o.Get("n")
	}
	text := jsonv.NewObject(2)
	text.Set("type", "text")
	text.Set("text", string(jsonv.Marshal(n)))
	res := jsonv.NewObject(1)
	res.Set("content", []any{text})
	return res
}

// BenchmarkHarnServeMCP64 loads `harn serve mcp --transport http` (the
// registry projection) serving one trivial tool.
func BenchmarkHarnServeMCP64(b *testing.B) {
	url, pid := startHarn(b, nil, "serve", "mcp", "--transport", "http", "--bind", "127.0.0.1:0", "testdata/echo.harn")
	load(b, func(o Options) (Result, error) { return RunURL(context.Background(), url, o) },
		Options{Tool: "echo", Arguments: json.RawMessage(`{"n":1}`)}, procCPU(pid), clientCPU)
}

// BenchmarkHarnMcpServe64 loads the orchestrator, `harn mcp serve
// --transport http`, calling harn.trust.query and harn.secret_scan
// (each call appends an observability.action_graph event, the scan also
// an audit.secret_scan one), on the default SQLite event log, on the
// in-memory one, which separates the log's cost from the server's, and
// on PostgreSQL (see postgresURL).
func BenchmarkHarnMcpServe64(b *testing.B) {
	for _, backend := range []string{"sqlite", "memory", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			env := []string{"HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND=" + backend}
			if backend == "postgres" {
				env = []string{"HARN_EVENT_LOG_URL=" + postgresURL(b), "HARN_EVENT_LOG_BACKEND="}
			}
			url, pid := startHarn(b, env,
				"mcp", "serve", "--transport", "http", "--bind", "127.0.0.1:0",
				"--config", "testdata/harn.toml", "--state-dir", b.TempDir())
			for _, c := range benchCalls {
				b.Run(c.tool, func(b *testing.B) {
					load(b, func(o Options) (Result, error) { return RunURL(context.Background(), url, o) },
						Options{Tool: c.tool, Arguments: json.RawMessage(c.args)}, procCPU(pid), clientCPU)
				})
			}
		})
	}
}

// postgresURL is the database HARN_BENCH_POSTGRES_URL names, or else a
// throwaway server of package pgtest, each benchmark on an empty schema
// of its own; without PostgreSQL the benchmark skips.
func postgresURL(b *testing.B) string {
	if url := os.Getenv("HARN_BENCH_POSTGRES_URL"); url != "" {
		return url
	}
	return pgtest.Schema(b)
}

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// benchCalls are the orchestrator tools the benchmarks call: a read
// (harn.trust.query) and a call that also appends an audit record
// (harn.secret_scan; written behind the answer, with the action-graph
// record).
var benchCalls = []struct{ tool, args string }{
	{"harn.trust.query", `{}`},
	{"harn.secret_scan", `{"content":"token = \"ghp_1234567890abcdefghijklmnopqrstuvwxyzAB\""}`},
}

var listening = regexp.MustCompile(`http://[^\s]+`)

// startHarn runs bin/harn (built by `make build`; the benchmark skips
// without it), or $HARN_BIN, with args and env added to the environment,
// and returns the endpoint URL it announces on stderr, with its pid. The
// process is stopped when the benchmark ends.
func startHarn(b *testing.B, env []string, args ...string) (string, int) {
	b.Helper()
	bin := os.Getenv("HARN_BIN")
	if bin == "" {
		bin = "../../bin/harn"
	}
	bin, err := filepath.Abs(bin)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		b.Skipf("%s not found: run `make build` first", bin)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HARN_ORCHESTRATOR_API_KEYS=", "HARN_MCP_OAUTH_AUTHORIZATION_SERVERS=", "HARN_CPUPROFILE=")
	if dir := os.Getenv("HARN_LOADTEST_PROFILE_DIR"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(b.Name())
		cmd.Env = append(cmd.Env, "HARN_CPUPROFILE="+filepath.Join(dir, name+".pprof"))
	}
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		// SIGTERM first, so a server that stops cleanly writes its
		// profile; a kill after a grace period.
		cmd.Process.Signal(syscall.SIGTERM)
		stopped := make(chan struct{})
		go func() { cmd.Wait(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-stopped
		}
	})
	found := make(chan string, 1)
	var said strings.Builder
	go func() {
		// The server writes a line per tool call: once it is listening,
		// the rest is drained unread, so the load generator's CPU goes
		// to the requests.
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString('\n')
			if said.Len() < 4096 {
				said.WriteString(line)
			}
			if u := listening.FindString(line); u != "" {
				found <- u
				io.Copy(io.Discard, r)
				return
			}
			if err != nil {
				close(found)
				return
			}
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			b.Skipf("harn %s exited without listening:\n%s", strings.Join(args, " "), said.String())
		}
		return u, cmd.Process.Pid
	case <-time.After(30 * time.Second):
		b.Skipf("harn %s did not announce a listener within 30s", strings.Join(args, " "))
	}
	return "", 0
}
