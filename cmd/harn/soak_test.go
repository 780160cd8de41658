package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The soak test (make soak; HARN_SOAK=1, never part of `go test ./...`)
// runs `harn serve mcp` and `harn mcp serve` as real processes, each over
// stdio and over HTTP on loopback, and sends them 100,000 mixed valid
// and hostile messages (HARN_SOAK_MESSAGES) from 8 concurrent clients.
// Every request must be answered exactly once with the expected answer,
// no handler may run on invalid input, and the servers' memory and
// goroutines, sampled each second, must level off after a warm-up: a
// leak check with generous bounds, not a timing assertion. The figures
// are logged.

// soakStatsEnv names the file a server started by the soak test writes
// its goroutine count and heap size to, twice a second (see TestMain).
const soakStatsEnv = "HARN_SOAK_STATS"

// writeSoakStats samples this process for the soak test until it exits.
func writeSoakStats(path string) {
	for {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		tmp := path + ".tmp"
		os.WriteFile(tmp, []byte(fmt.Sprintf("%d %d\n", runtime.NumGoroutine(), ms.HeapInuse)), 0o644)
		os.Rename(tmp, path)
		time.Sleep(500 * time.Millisecond)
	}
}

const soakScript = `import { tool_registry_from } from "std/tools"

fn strict(args) {
  println("HANDLER RAN")
  return {n: args.n}
}

fn work(x) {
  var parts = []
  for i in range(300) { parts = parts.push("item ${i}") }
  return parts.join(",").len()
}

fn main(harness: Harness) {
  harness.tools.mcp_tools(tool_registry_from([
    {name: "strict", description: "Checked input.", parameters: {n: {schema: {type: "integer", minimum: 0}, required: true}}, handler: strict},
    {name: "work", description: "Allocates and drops.", handler: work},
    {name: "fails", description: "Throws.", handler: {x -> throw "boom"}},
    {name: "huge", description: "Asks for too much memory.", handler: {x -> "ab".repeat(4611686018427387904)}},
  ], {info: {name: "soak", version: "1.0.0"}}))
}
`

// soakMsg is one message and the answer it must get.
type soakMsg struct {
	line   string
	method string // routing headers on HTTP ("" leaves them out)
	name   string
	// want: "result", "isError" (a result with isError true), "none" (no
	// answer), or a JSON-RPC error code such as "-32602".
	want   string
	nullID bool // the answer's id is null (the request's id is unreadable)
	valid  bool // a valid call of the strict tool: its handler runs
}

const soakMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"soak","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// soakMessage picks the n-th message of a client: about half valid, half
// hostile. orch selects the orchestrator's tools; meta adds the 2026-07-28
// request metadata that HTTP needs.
func soakMessage(rng *rand.Rand, id string, orch, http bool) soakMsg {
	q := strconv.Quote(id)
	params := func(s string) string {
		if http {
			if s == "" {
				return soakMeta
			}
			return s + "," + soakMeta
		}
		return s
	}
	req := func(method, p string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s}}`, q, method, params(p))
	}
	call := func(tool, args string) soakMsg {
		p := fmt.Sprintf(`"name":%q`, tool)
		if args != "" {
			p += `,"arguments":` + args
		}
		return soakMsg{line: req("tools/call", p), method: "tools/call", name: tool}
	}
	with := func(m soakMsg, want string) soakMsg { m.want = want; return m }
	switch k := rng.Intn(16); {
	case k == 0:
		return soakMsg{line: req("ping", ""), method: "ping", want: "result"}
	case k == 1:
		return soakMsg{line: req("tools/list", ""), method: "tools/list", want: "result"}
	case k <= 5 && orch:
		tool := []string{"harn.trigger.list", "harn.orchestrator.queue", "harn.orchestrator.inspect"}[rng.Intn(3)]
		return with(call(tool, `{}`), "result")
	case k <= 3:
		m := with(call("strict", fmt.Sprintf(`{"n":%d}`, rng.Intn(1000))), "result")
		m.valid = true
		return m
	case k <= 5:
		return with(call("work", ""), "result")
	case k == 6 && orch: // invalid arguments: the tool refuses them
		return with(call("harn.trigger.fire", []string{`{}`, `{"trigger_id":7}`, `[]`}[rng.Intn(3)]), "isError")
	case k == 6: // invalid arguments: refused before the handler
		args := []string{`{}`, `{"n":-5}`, `{"n":1.5}`, `{"n":"x"}`, `{"n":1e400}`, `{"n":9223372036854775808}`, `[]`}[rng.Intn(7)]
		return with(call("strict", args), "-32602")
	case k == 7 && orch:
		return with(call("nope", `{}`), "isError")
	case k == 7: // a throwing handler, a handler asking for too much memory
		return with(call([]string{"fails", "huge"}[rng.Intn(2)], ""), "isError")
	case k == 8: // malformed JSON
		good := req("ping", "")
		return soakMsg{line: good[:1+rng.Intn(len(good)-2)], want: "-32700", nullID: true}
	case k == 9: // unknown methods
		m := fmt.Sprintf("x/%d", rng.Intn(1000))
		return soakMsg{line: req(m, ""), method: m, want: "-32601"}
	case k == 10: // params of the wrong type
		return soakMsg{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping","params":7}`, q), method: "ping", want: "-32602"}
	case k == 11: // wrong jsonrpc version
		return soakMsg{line: fmt.Sprintf(`{"jsonrpc":"1.0","id":%s,"method":"ping"}`, q), method: "ping", want: "-32600"}
	case k == 12: // nested too deep to parse, its id readable
		deep := strings.Repeat("[", 10050) + strings.Repeat("]", 10050)
		return soakMsg{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"ping","params":{"x":%s}}`, q, deep), method: "ping", want: "-32700"}
	case k == 13: // a long string where an integer belongs
		s := strings.Repeat("x", 1+rng.Intn(32<<10))
		if orch {
			return with(call("harn.trigger.fire", fmt.Sprintf(`{"trigger_id":%d,"payload":%q}`, len(s), s)), "isError")
		}
		return with(call("strict", fmt.Sprintf(`{"n":%q}`, s)), "-32602")
	case k == 14: // notifications, some with bad params: never answered
		method, p := "notifications/cancelled", fmt.Sprintf(`{"requestId":%s}`, q)
		switch rng.Intn(3) {
		case 0:
			p = "7"
		case 1:
			method, p = "notifications/unknown", `{"x":1}`
		}
		return soakMsg{line: fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"params":%s}`, method, p), method: method, want: "none"}
	default: // an id with NUL and a lone surrogate
		return soakMsg{line: fmt.Sprintf(`{"jsonrpc":"2.0","id":"%s\u0000\ud800","method":"ping","params":{%s}}`, id, params("")), method: "ping", want: "result"}
	}
}

// soakCheck compares one answer with what the message wanted; id is the
// id sent (nil when none is expected).
func soakCheck(m soakMsg, sentID string, answer []byte) error {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Errorf("unreadable answer %.200s", answer)
	}
	var wantID string
	if m.nullID {
		wantID = "null"
	} else if strings.Contains(m.line, `\u0000\ud800`) {
		wantID = strconv.Quote(sentID)[:len(sentID)+1] + `\u0000\ud800"`
	} else {
		wantID = strconv.Quote(sentID)
	}
	if string(r.ID) != wantID {
		return fmt.Errorf("answer id %s, want %s: %.200s", r.ID, wantID, answer)
	}
	got := ""
	switch {
	case r.Error != nil:
		got = strconv.Itoa(r.Error.Code)
	case r.Result != nil && r.Result.IsError:
		got = "isError"
	case r.Result != nil:
		got = "result"
	}
	if got != m.want {
		return fmt.Errorf("got %s, want %s for %.120s: %.300s", got, m.want, m.line, answer)
	}
	return nil
}

// soakTally counts the messages sent by the answer they want.
type soakTally struct {
	mu sync.Mutex
	n  map[string]int
}

func newSoakTally() *soakTally { return &soakTally{n: map[string]int{}} }

func (t *soakTally) add(want string) {
	t.mu.Lock()
	t.n[want]++
	t.mu.Unlock()
}

func (t *soakTally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.n)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, t.n[k]))
	}
	return strings.Join(parts, ", ")
}

// soakServer is one server process under test.
type soakServer struct {
	name  string
	proc  *harnProc
	stats string // its HARN_SOAK_STATS file
	url   string // HTTP endpoint, "" for stdio
	orch  bool
	valid atomic.Int64 // valid strict calls sent

	samples []soakSample
}

type soakSample struct {
	sent       int64
	rss, heap  int64
	goroutines int
}

func (s *soakServer) sample(sent int64) soakSample {
	smp := soakSample{sent: sent}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.proc.cmd.Process.Pid)); err == nil {
		if _, rest, ok := strings.Cut(string(b), "VmRSS:"); ok {
			f := strings.Fields(rest)
			kb, _ := strconv.ParseInt(f[0], 10, 64)
			smp.rss = kb << 10
		}
	}
	if b, err := os.ReadFile(s.stats); err == nil {
		fmt.Sscan(string(b), &smp.goroutines, &smp.heap)
	}
	return smp
}

func TestSoak(t *testing.T) {
	if os.Getenv("HARN_SOAK") == "" {
		t.Skip("the soak test runs with make soak (HARN_SOAK=1)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("samples memory from /proc")
	}
	total := 100000
	if s := os.Getenv("HARN_SOAK_MESSAGES"); s != "" {
		total, _ = strconv.Atoi(s)
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "soak.harn")
	os.WriteFile(script, []byte(soakScript), 0o644)
	orchEnv := []string{"HARN_ORCHESTRATOR_API_KEYS=", "HARN_EVENT_LOG_URL=", "HARN_EVENT_LOG_BACKEND="}

	var servers []*soakServer
	start := func(name string, orch, http bool, args ...string) *soakServer {
		s := &soakServer{name: name, orch: orch, stats: filepath.Join(dir, name+".stats")}
		env := []string{soakStatsEnv + "=" + s.stats}
		if orch {
			env = append(env, orchEnv...)
			args = append(args, "--state-dir", filepath.Join(dir, name+"-state"))
		}
		if http {
			args = append(args, "--transport", "http", "--bind", "127.0.0.1:0")
		}
		s.proc = startHarn(t, env, args...)
		switch {
		case http && orch:
			s.url = s.proc.waitLine(t, regexp.MustCompile(`MCP HTTP listener ready on (http://\S+)$`))[1]
		case http:
			s.url = s.proc.waitLine(t, regexp.MustCompile(`serve mcp: listening on (http://\S+)$`))[1]
		case orch:
			s.proc.waitLine(t, regexp.MustCompile(`MCP stdio server ready$`))
		}
		servers = append(servers, s)
		return s
	}
	serveHTTP := start("serve-mcp-http", false, true, "serve", "mcp", "--surface", "script", script)
	serveStdio := start("serve-mcp-stdio", false, false, "serve", "mcp", "--surface", "script", script)
	orchHTTP := start("mcp-serve-http", true, true, "mcp", "serve", "--config", fixtureManifest)
	orchStdio := start("mcp-serve-stdio", true, false, "mcp", "serve", "--config", fixtureManifest)

	// 8 clients: 3 over HTTP and 1 over stdio for each server command.
	clients := []*soakServer{serveHTTP, serveHTTP, serveHTTP, serveStdio, orchHTTP, orchHTTP, orchHTTP, orchStdio}
	var sent atomic.Int64
	var failures atomic.Int64
	tally := newSoakTally()
	fail := func(format string, args ...any) {
		if failures.Add(1) <= 20 {
			t.Errorf(format, args...)
		}
	}
	httpClient := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}

	// Sample every server once a second while the clients run.
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				for _, s := range servers {
					s.samples = append(s.samples, s.sample(sent.Load()))
				}
			}
		}
	}()

	began := time.Now()
	var wg sync.WaitGroup
	for c, s := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(c + 1)))
			n := total / len(clients)
			if s.url == "" {
				soakStdio(s, rng, c, n, &sent, tally, fail)
			} else {
				soakHTTP(httpClient, s, rng, c, n, &sent, tally, fail)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(began)
	httpClient.CloseIdleConnections()
	time.Sleep(2 * time.Second) // let finished connections wind down
	close(stop)
	<-sampled
	for _, s := range servers {
		s.samples = append(s.samples, s.sample(sent.Load()))
	}

	t.Logf("soak: %d messages from %d clients in %s (%.0f/s, on a loaded machine)", sent.Load(), len(clients), elapsed.Round(time.Millisecond), float64(sent.Load())/elapsed.Seconds())
	t.Logf("soak: expected answers %s", tally)
	for _, s := range servers {
		s.report(t, int64(total))
	}
	// Only the valid strict calls ran the handler.
	for _, s := range []*soakServer{serveHTTP, serveStdio} {
		if s.proc.cmd.ProcessState != nil {
			t.Errorf("%s exited: %s", s.name, s.proc.errText())
		}
		if ran := int64(strings.Count(s.proc.errText(), "HANDLER RAN")); ran != s.valid.Load() {
			t.Errorf("%s: the strict handler ran %d times for %d valid calls", s.name, ran, s.valid.Load())
		}
	}
}

// report logs a server's figures and fails on growth past a generous
// bound: memory after the warm-up (the first fifth of the messages) may
// grow by 64 MiB or half again, whichever is more; goroutines once the
// clients are gone by 32.
func (s *soakServer) report(t *testing.T, total int64) {
	if len(s.samples) < 2 {
		t.Errorf("%s: only %d samples", s.name, len(s.samples))
		return
	}
	i := slices.IndexFunc(s.samples, func(x soakSample) bool { return x.sent >= total/5 })
	if i < 0 || i == len(s.samples)-1 {
		i = 0
	}
	warm, last := s.samples[i], s.samples[len(s.samples)-1]
	peak := warm
	for _, x := range s.samples[i:] {
		peak.rss = max(peak.rss, x.rss)
		peak.heap = max(peak.heap, x.heap)
		peak.goroutines = max(peak.goroutines, x.goroutines)
	}
	mib := func(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
	t.Logf("%-16s %3d samples; RSS after warm-up %s, peak %s, end %s; heap in use %s, peak %s, end %s; goroutines %d, peak %d, end %d",
		s.name, len(s.samples), mib(warm.rss), mib(peak.rss), mib(last.rss), mib(warm.heap), mib(peak.heap), mib(last.heap),
		warm.goroutines, peak.goroutines, last.goroutines)
	var series []string
	for j := 0; j < 10; j++ {
		x := s.samples[j*(len(s.samples)-1)/9]
		series = append(series, fmt.Sprintf("%.0f/%.0f", float64(x.rss)/(1<<20), float64(x.heap)/(1<<20)))
	}
	t.Logf("%-16s RSS/heap MiB over the run: %s", s.name, strings.Join(series, " "))
	if bound := warm.rss + max(64<<20, warm.rss/2); last.rss > bound {
		t.Errorf("%s: RSS grew from %s after warm-up to %s (bound %s)", s.name, mib(warm.rss), mib(last.rss), mib(bound))
	}
	if last.goroutines > warm.goroutines+32 {
		t.Errorf("%s: %d goroutines after warm-up, %d at the end", s.name, warm.goroutines, last.goroutines)
	}
}

// soakStdio drives a stdio server one message at a time: initialize,
// then n messages; a request's answer must be the next line, so a stray
// answer (to a notification, or a second one) shows up as a mismatch.
func soakStdio(s *soakServer, rng *rand.Rand, c, n int, sent *atomic.Int64, tally *soakTally, fail func(string, ...any)) {
	w := bufio.NewWriter(s.proc.stdin)
	read := func() []byte {
		for {
			line, err := s.proc.stdout.ReadBytes('\n')
			if err != nil {
				fail("%s: %v; stderr:\n%.2000s", s.name, err, s.proc.errText())
				return nil
			}
			if !bytes.Contains(line, []byte(`"method":`)) { // skip server notifications
				return line
			}
		}
	}
	send := func(line string) bool {
		w.WriteString(line)
		w.WriteByte('\n')
		return w.Flush() == nil
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d-%d", c, i)
		m := soakMessage(rng, id, s.orch, false)
		if m.valid {
			s.valid.Add(1)
		}
		sent.Add(1)
		tally.add(m.want)
		if !send(m.line) {
			fail("%s: write failed; stderr:\n%.2000s", s.name, s.proc.errText())
			return
		}
		if m.want == "none" {
			continue
		}
		answer := read()
		if answer == nil {
			return
		}
		if err := soakCheck(m, id, answer); err != nil {
			fail("%s: %v", s.name, err)
		}
	}
	// A barrier: a stray answer to the last notifications would come first.
	send(`{"jsonrpc":"2.0","id":"end","method":"ping"}`)
	if answer := read(); answer != nil && !bytes.Contains(answer, []byte(`"id":"end"`)) {
		fail("%s: stray answer %.200s", s.name, answer)
	}
}

// soakHTTP drives an HTTP server: one POST per message, with the routing
// headers, and now and then a request that breaks the transport's rules.
func soakHTTP(client *http.Client, s *soakServer, rng *rand.Rand, c, n int, sent *atomic.Int64, tally *soakTally, fail func(string, ...any)) {
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d-%d", c, i)
		m := soakMessage(rng, id, s.orch, true)
		headers := true
		if rng.Intn(20) == 0 && (m.want == "result" || m.want == "isError") {
			// No routing headers: refused before dispatch.
			headers, m.want, m.valid = false, "-32020", false
		}
		if m.valid {
			s.valid.Add(1)
		}
		sent.Add(1)
		tally.add(m.want)
		req, _ := http.NewRequest("POST", s.url, strings.NewReader(m.line))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if headers {
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			if m.method != "" {
				req.Header.Set("Mcp-Method", m.method)
			}
			if m.name != "" {
				req.Header.Set("Mcp-Name", m.name)
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			fail("%s: %v; stderr:\n%.2000s", s.name, err, s.proc.errText())
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if m.want == "none" {
			if resp.StatusCode != http.StatusAccepted || len(body) != 0 {
				fail("%s: a notification got %d %.200s", s.name, resp.StatusCode, body)
			}
			continue
		}
		if err := soakCheck(m, id, body); err != nil {
			fail("%s: HTTP %d: %v", s.name, resp.StatusCode, err)
		}
	}
}
