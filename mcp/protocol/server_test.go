package protocol

import (
	"context"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestReleasedLifecycle(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	jsonEq(t, "ping before initialize", c.call(1, "ping", nil)["result"], `{}`)
	jsonEq(t, "list before initialize", c.call(2, "tools/list", nil)["error"], `{"code":-32002,"message":"server not initialized"}`)
	jsonEq(t, "bad initialize", c.call(3, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}})["error"],
		`{"code":-32602,"message":"invalid MCP initialize params: clientInfo must be an object with a name and a version"}`)
	res := c.call(4, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "2"}})
	jsonEq(t, "initialize", res["result"], `{"protocolVersion":"2025-06-18","capabilities":{"tools":{},"resources":{},"prompts":{},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"serverInfo":{"name":"fake","version":"1.0.0"},"instructions":"A fake server."}`)
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	// Released results carry no envelope, even with _meta.
	list := c.call(5, "tools/list", map[string]any{"_meta": map[string]any{"progressToken": "p"}})["result"].(map[string]any)
	if _, ok := list["resultType"]; ok || len(list["tools"].([]any)) != len(fakeTools) {
		t.Errorf("released tools/list %s", js(list))
	}
	jsonEq(t, "identity", c.call(6, "tools/call", map[string]any{"name": "whoami"})["result"], `{"content":[{"type":"text","text":"c/2 "}],"isError":false}`)
	// A second initialize is refused; the session keeps what the first
	// negotiated.
	jsonEq(t, "second initialize", c.call(7, "initialize", map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "other", "version": "9"}})["error"],
		`{"code":-32600,"message":"server already initialized"}`)
	jsonEq(t, "identity after a second initialize", c.call(8, "tools/call", map[string]any{"name": "whoami"})["result"], `{"content":[{"type":"text","text":"c/2 "}],"isError":false}`)
	// An unknown version is answered with the latest released one.
	c2 := startPipe(t, newFake(), Options{})
	res = c2.call(1, "initialize", map[string]any{"protocolVersion": "2026-07-28", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "2"}})
	if res["result"].(map[string]any)["protocolVersion"] != LatestReleased {
		t.Errorf("negotiated %s", js(res))
	}
}

func TestFramingErrors(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	c.SendLine("{not json")
	c.SendLine("   ")
	c.SendLine(`{"jsonrpc":"2.0","id":true,"method":"ping"}`)
	c.SendLine(`{"jsonrpc":"1.0","id":7,"method":"ping"}`)
	c.SendLine(`{"jsonrpc":"2.0","id":8,"method":"ping","params":[1]}`)
	c.SendLine(`{"jsonrpc":"2.0","id":99,"result":{}}`) // a stray response: ignored
	jsonEq(t, "bad params", c.Answer(8)["error"], `{"code":-32602,"message":"Invalid params: params must be an object"}`)
	msgs := c.Messages()
	if len(msgs) != 4 {
		t.Fatalf("messages %s", js(msgs))
	}
	jsonEq(t, "parse", msgs[0], `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	jsonEq(t, "bad id", msgs[1]["error"], `{"code":-32600,"message":"Invalid Request: id must be a string or a number"}`)
	jsonEq(t, "bad version", msgs[2], `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`)
}

// A batch or a message that is not an object is -32600 with id null,
// saying which; the server keeps serving.
func TestInvalidRequestShapes(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	c.SendLine(`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	c.SendLine(`[]`)
	c.SendLine(`"ping"`)
	c.SendLine(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	c.Answer(2)
	msgs := c.Messages()
	if len(msgs) != 4 {
		t.Fatalf("messages %s", js(msgs))
	}
	batch := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: batches are not supported; send one JSON-RPC message at a time"}}`
	jsonEq(t, "batch", msgs[0], batch)
	jsonEq(t, "empty batch", msgs[1], batch)
	jsonEq(t, "string", msgs[2], `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a JSON-RPC message must be an object"}}`)
}

// prompts/get names a missing or non-string params.name rather than
// looking up a prompt called "".
func TestPromptsGetNeedsName(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	jsonEq(t, "missing", c.call(1, "prompts/get", modern(nil, nil))["error"], `{"code":-32602,"message":"Invalid params: prompts/get requires params.name, the prompt name"}`)
	jsonEq(t, "number", c.call(2, "prompts/get", modern(map[string]any{"name": 3}, nil))["error"], `{"code":-32602,"message":"Invalid params: prompts/get params.name must be a string, not 3"}`)
	jsonEq(t, "named", c.call(3, "prompts/get", modern(map[string]any{"name": "greet"}, nil))["result"], `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"resultType":"complete"}`)
}

func TestModernProfile(t *testing.T) {
	c := startPipe(t, &fake{extra: 3}, Options{PageSize: 3})
	disc := c.call(1, "server/discover", modern(nil, nil))["result"]
	jsonEq(t, "discover", disc, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{},"prompts":{},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1.0.0"}},"instructions":"A fake server."}`)
	// Paging: 8 tools, 3 per page.
	page := c.call(2, "tools/list", modern(nil, nil))["result"].(map[string]any)
	if len(page["tools"].([]any)) != 3 || page["nextCursor"] != "Mw==" || page["resultType"] != "complete" || page["ttlMs"] != float64(5000) || page["cacheScope"] != "private" {
		t.Errorf("page 1 %s", js(page))
	}
	page = c.call(3, "tools/list", modern(map[string]any{"cursor": "Ng=="}, nil))["result"].(map[string]any)
	if len(page["tools"].([]any)) != 2 || page["nextCursor"] != nil {
		t.Errorf("last page %s", js(page))
	}
	// Offsets past the end, one too large for an int among them, are
	// empty pages, not bad cursors.
	for i, off := range []string{"100", "99999999999999999999999"} {
		cursor := base64.StdEncoding.EncodeToString([]byte(off))
		res := c.call(4+i*100, "tools/list", modern(map[string]any{"cursor": cursor}, nil))
		if page, _ := res["result"].(map[string]any); page == nil || len(page["tools"].([]any)) != 0 || page["nextCursor"] != nil {
			t.Errorf("past the end (%s) %s", off, js(res))
		}
	}
	for i, bad := range []any{"%%%", 3, "YQ=="} {
		jsonEq(t, "bad cursor", c.call(10+i, "resources/list", modern(map[string]any{"cursor": bad}, nil))["error"], `{"code":-32602,"message":"invalid resources/list cursor"}`)
	}
	read := c.call(20, "resources/read", modern(map[string]any{"uri": "fake://static"}, nil))["result"]
	jsonEq(t, "read envelope", read, `{"contents":[{"uri":"fake://static","text":"hello"}],"resultType":"complete","ttlMs":1000,"cacheScope":"private"}`)
	read = c.call(21, "resources/read", modern(map[string]any{"uri": "fake://item/1"}, nil))["result"]
	jsonEq(t, "handler read", read, `{"contents":[{"uri":"fake://item/1","text":"item one"}],"resultType":"complete","ttlMs":1000,"cacheScope":"private"}`)
	jsonEq(t, "missing", c.call(22, "resources/read", modern(map[string]any{"uri": "fake://nope"}, nil))["error"], `{"code":-32002,"message":"Resource not found: fake://nope"}`)
	// Metadata errors.
	jsonEq(t, "no version", c.call(30, "tools/list", map[string]any{"_meta": map[string]any{}})["error"],
		`{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"}`)
	jsonEq(t, "old version", c.call(31, "tools/list", map[string]any{"_meta": map[string]any{MetaProtocolVersion: "2025-06-18"}})["error"],
		`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2025-06-18"}}`)
	jsonEq(t, "bad info", c.call(32, "tools/list", map[string]any{"_meta": map[string]any{MetaProtocolVersion: Version20260728, MetaClientCaps: map[string]any{}}})["error"],
		`{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/clientInfo"}`)
	jsonEq(t, "unknown method", c.call(33, "nope/nope", modern(nil, nil))["error"], `{"code":-32601,"message":"Method not found: nope/nope"}`)
	e := c.call(34, "subscriptions/listen", modern(nil, nil))["error"].(map[string]any)
	if e["code"] != float64(-32601) || e["message"] != "Unsupported MCP client-bound method: subscriptions/listen" || e["data"].(map[string]any)["type"] != "mcp.unsupportedFeature" {
		t.Errorf("subscriptions/listen %s", js(e))
	}
	jsonEq(t, "non-string tool name", c.call(35, "tools/call", modern(map[string]any{"name": 5}, nil))["error"], `{"code":-32602,"message":"Invalid params: tools/call params.name must be a string, not 5"}`)
	jsonEq(t, "invalid args", c.call(36, "tools/call", modern(map[string]any{"name": "echo"}, tasksCaps))["error"], `{"code":-32602,"message":"echo: \"text\" is required"}`)
	jsonEq(t, "echo", c.call(37, "tools/call", modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil))["result"],
		`{"content":[{"type":"text","text":"hi"}],"isError":false,"resultType":"complete"}`)
}

func TestCompletion(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	res := c.call(1, "completion/complete", modern(map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}, "argument": map[string]any{"name": "who", "value": "AL"}}, nil))
	jsonEq(t, "ranked", res["result"], `{"completion":{"values":["alpha","Alphabet","gamma-alpha"],"total":3,"hasMore":false},"resultType":"complete"}`)
	for i, tc := range []struct {
		params map[string]any
		want   string
	}{
		{map[string]any{"argument": map[string]any{"name": "who"}}, `completion ref.type is required`},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "greet"}}, `completion argument.name is required`},
		{map[string]any{"ref": map[string]any{"type": "ref/tool"}, "argument": map[string]any{"name": "x"}}, `Unsupported completion ref.type: ref/tool`},
		{map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "other"}, "argument": map[string]any{"name": "x"}}, `Unknown prompt: other`},
	} {
		e := c.call(10+i, "completion/complete", modern(tc.params, nil))["error"].(map[string]any)
		if e["message"] != tc.want || e["code"] != float64(-32602) {
			t.Errorf("case %d: %s", i, js(e))
		}
	}
	if got := RankCompletions(nil, "x"); len(got) != 0 {
		t.Errorf("no candidates %v", got)
	}
}

func TestProgressComesBeforeTheAnswer(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	c.call(1, "tools/call", modern(map[string]any{"name": "progress", "_meta": map[string]any{"progressToken": "tok"}}, nil))
	var seq []string
	for _, m := range c.Messages() {
		if m["method"] == "notifications/progress" {
			p := m["params"].(map[string]any)
			seq = append(seq, js(p))
		} else {
			seq = append(seq, "answer")
		}
	}
	want := []string{
		`{"message":"step 1","progress":1,"progressToken":"tok","total":3}`,
		`{"message":"step 2","progress":2,"progressToken":"tok","total":3}`,
		`{"message":"step 3","progress":3,"progressToken":"tok","total":3}`,
		"answer",
	}
	if strings.Join(seq, "\n") != strings.Join(want, "\n") {
		t.Errorf("sequence:\n%s", strings.Join(seq, "\n"))
	}
}

// A 2026-07-28 request names its log level in _meta; one that names
// none, or a level that is not one of the eight, gets no log messages
// (an unknown level used to rank as debug: every message went out).
func TestModernLogLevel(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	for i, tc := range []struct {
		level any
		sent  string
	}{
		{"info", "info error "},
		{"debug", "debug info error "},
		{"error", "error "},
		{nil, ""},
		{"verbose", ""},
		{"INFO", ""},
		{3, ""},
	} {
		meta := map[string]any{}
		if tc.level != nil {
			meta[MetaLogLevel] = tc.level
		}
		from := len(c.Messages())
		res := c.call(i+1, "tools/call", modern(map[string]any{"name": "log", "_meta": meta}, nil))
		jsonEq(t, fmt.Sprint(tc.level), res["result"], `{"content":[{"type":"text","text":"`+tc.sent+`"}],"isError":false,"resultType":"complete"}`)
		var logged []string
		for _, m := range c.Messages()[from:] {
			if m["method"] == "notifications/message" {
				logged = append(logged, m["params"].(map[string]any)["level"].(string)+" ")
			}
		}
		if got := strings.Join(logged, ""); got != tc.sent {
			t.Errorf("level %v: logged %q, want %q", tc.level, got, tc.sent)
		}
	}
}

func TestCancellation(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		c := startPipe(t, f, Options{Parallel: parallel})
		c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
		<-f.started
		c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 1}})
		<-f.stopped
		// The cancelled call is never answered; the next one is.
		jsonEq(t, "after cancel", c.call(2, "ping", modern(nil, nil))["result"], `{"resultType":"complete"}`)
		c.call(3, "tools/call", modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, nil))
		for _, m := range c.Messages() {
			if m["id"] == float64(1) {
				t.Errorf("parallel=%v: cancelled call answered: %s", parallel, js(m))
			}
		}
	}
}

func TestTasks(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		c := startPipe(t, f, Options{Parallel: parallel})
		created := c.call(1, "tools/call", modern(map[string]any{"name": "block"}, tasksCaps))["result"].(map[string]any)
		id, _ := created["taskId"].(string)
		if created["resultType"] != "task" || created["status"] != "working" || len(id) != 36 || id[14] != '7' {
			t.Fatalf("created %s", js(created))
		}
		<-f.started
		got := c.call(2, "tasks/get", modern(map[string]any{"taskId": id}, tasksCaps))["result"].(map[string]any)
		if got["status"] != "working" || got["resultType"] != "complete" {
			t.Errorf("working %s", js(got))
		}
		jsonEq(t, "no opt-in", c.call(3, "tasks/get", modern(map[string]any{"taskId": id}, nil))["error"].(map[string]any)["code"], `-32021`)
		// Another client identity never sees the task.
		other := modern(map[string]any{"taskId": id}, tasksCaps)
		other["_meta"].(map[string]any)[MetaClientInfo] = map[string]any{"name": "other", "version": "1"}
		jsonEq(t, "other owner", c.call(4, "tasks/get", other)["error"], `{"code":-32602,"message":"Failed to retrieve task: task not found"}`)
		jsonEq(t, "cancel", c.call(5, "tasks/cancel", modern(map[string]any{"taskId": id}, tasksCaps))["result"], `{"resultType":"complete"}`)
		if name := <-f.stopped; name != "block" {
			t.Errorf("stopped %s", name)
		}
		got = c.call(6, "tasks/get", modern(map[string]any{"taskId": id}, tasksCaps))["result"].(map[string]any)
		if got["status"] != "cancelled" || got["statusMessage"] != msgCancelled || got["result"] != nil {
			t.Errorf("cancelled %s", js(got))
		}
		list := c.call(50, "tasks/list", modern(nil, tasksCaps))["result"].(map[string]any)
		if ts := list["tasks"].([]any); len(ts) != 1 || ts[0].(map[string]any)["taskId"] != id || list["resultType"] != "complete" {
			t.Errorf("tasks/list %s", js(list))
		}
		if ts := c.call(51, "tasks/list", other)["result"].(map[string]any)["tasks"].([]any); len(ts) != 0 {
			t.Errorf("another owner's tasks/list %s", js(ts))
		}
		jsonEq(t, "tasks/list without opt-in", c.call(52, "tasks/list", modern(nil, nil))["error"].(map[string]any)["code"], `-32021`)
		jsonEq(t, "cancel twice", c.call(7, "tasks/cancel", modern(map[string]any{"taskId": id}, tasksCaps))["error"],
			`{"code":-32602,"message":"Cannot cancel task: already in terminal status 'cancelled'"}`)
		// A task that needs client input fails.
		created = c.call(8, "tools/call", modern(map[string]any{"name": "ask"}, map[string]any{"extensions": tasksCaps["extensions"], "elicitation": map[string]any{}}))["result"].(map[string]any)
		id = created["taskId"].(string)
		status := ""
		for i := 0; i < 3000 && status != "failed"; i++ {
			if status = taskStatus(c, id); status != "failed" {
				time.Sleep(10 * time.Millisecond)
			}
		}
		if status != "failed" {
			t.Errorf("parallel=%v: ask task %s", parallel, status)
		}
	}
}

var statusID = 1000

// taskStatus polls a task once.
func taskStatus(c *pipe, id string) string {
	statusID++
	res := c.call(statusID, "tasks/get", modern(map[string]any{"taskId": id}, tasksCaps))["result"].(map[string]any)
	if res["status"] == "failed" {
		jsonEq(c.t, "failed task", res["error"], `{"code":-32603,"message":"Tool execution failed: Tool requested client input, which a task cannot carry"}`)
	}
	return res["status"].(string)
}

func TestInputRoundTrip(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	caps := map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}
	res := c.call(1, "tools/call", modern(map[string]any{"name": "ask"}, caps))["result"]
	jsonEq(t, "input required", res, `{"resultType":"input_required","inputRequests":{"harn-input-0":{"method":"elicitation/create","params":{"mode":"form","message":"Which?","requestedSchema":{"type":"object"}}}},"requestState":"{}"}`)
	res = c.call(2, "tools/call", modern(map[string]any{"name": "ask", "requestState": "{}", "inputResponses": map[string]any{"harn-input-0": map[string]any{"action": "decline"}}}, caps))["result"]
	jsonEq(t, "answered", res, `{"content":[{"type":"text","text":"answer {\"action\":\"decline\"}"}],"isError":false,"resultType":"complete"}`)
	jsonEq(t, "bad state", c.call(3, "tools/call", modern(map[string]any{"name": "ask", "requestState": 1}, caps))["error"], `{"code":-32602,"message":"MCP requestState must be a string"}`)
	// Without the capability the handler is told so.
	res = c.call(4, "tools/call", modern(map[string]any{"name": "ask"}, nil))["result"]
	jsonEq(t, "unsupported", res, `{"content":[{"type":"text","text":"error: the MCP client did not advertise support for the input method"}],"isError":false,"resultType":"complete"}`)

	// Released profile: a real server-to-client request.
	r := startPipe(t, newFake(), Options{})
	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	r.Send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "ask"}})
	req := r.WaitFor("elicitation request", func(m map[string]any) bool { return m["method"] == "elicitation/create" })
	jsonEq(t, "server request params", req["params"], `{"message":"Which?","requestedSchema":{"type":"object"}}`)
	r.Send(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"action": "accept", "content": map[string]any{}}})
	jsonEq(t, "released answer", r.Answer(2)["result"], `{"content":[{"type":"text","text":"answer {\"action\":\"accept\",\"content\":{}}"}],"isError":false}`)
	r.Send(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": "ask"}})
	req = r.WaitFor("second request", func(m map[string]any) bool { return m["method"] == "elicitation/create" && m["id"] != req["id"] })
	r.Send(map[string]any{"jsonrpc": "2.0", "id": req["id"], "error": map[string]any{"code": -1, "message": "nope"}})
	jsonEq(t, "client error", r.Answer(3)["result"], `{"content":[{"type":"text","text":"client error: nope"}],"isError":false}`)
}

// A released-profile call cancelled while it waits for the client's
// answer to its elicitation/create request cancels that request too:
// the client is sent notifications/cancelled for it, and the call
// itself gets no answer.
func TestCancelledCallCancelsItsClientRequest(t *testing.T) {
	r := startPipe(t, newFake(), Options{})
	r.call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"elicitation": map[string]any{}}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	r.Send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "ask"}})
	req := r.WaitFor("elicitation request", func(m map[string]any) bool { return m["method"] == "elicitation/create" })
	r.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 2}})
	cancel := r.WaitFor("cancellation", func(m map[string]any) bool { return m["method"] == "notifications/cancelled" })
	jsonEq(t, "cancellation", cancel["params"], `{"requestId":`+js(req["id"])+`,"reason":"the request that asked for it was cancelled"}`)
	r.call(3, "ping", nil)
	for _, m := range r.Messages() {
		if m["id"] == float64(2) {
			t.Errorf("the cancelled call was answered: %s", js(m))
		}
	}
}

func TestQuiesceAndListChanged(t *testing.T) {
	f := newFake()
	srv := NewServer(f, Options{})
	c := startPipeServer(t, srv)
	c.call(1, "server/discover", modern(nil, nil)) // 2026 requests make the connection ready
	c.Send(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
	<-f.started
	swapped := make(chan struct{})
	go srv.Quiesce(func() { close(swapped) })
	select {
	case <-swapped:
		t.Fatal("Quiesce ran while a handler was running")
	default:
	}
	close(f.release)
	<-swapped
	c.Answer(2)
	srv.NotifyListChanged("tools", "prompts")
	c.WaitFor("prompts list_changed", func(m map[string]any) bool { return m["method"] == "notifications/prompts/list_changed" })
	var order []string
	for _, m := range c.Messages() {
		if s, _ := m["method"].(string); strings.HasSuffix(s, "list_changed") {
			order = append(order, s)
		}
	}
	if strings.Join(order, ",") != "notifications/tools/list_changed,notifications/prompts/list_changed" {
		t.Errorf("notifications %v", order)
	}
}

// A Go panic inside one handler answers that request with an internal
// error; the server goes on serving (issue 17).
func TestHandlerPanicKeepsServing(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	c.call(1, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "2"}})
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	e, _ := c.call(2, "tools/call", map[string]any{"name": "crash"})["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32603) || !strings.Contains(e["message"].(string), "internal error") {
		t.Fatalf("crash answered %s", js(e))
	}
	jsonEq(t, "after the crash", c.call(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"text": "still here"}})["result"],
		`{"content":[{"type":"text","text":"still here"}],"isError":false}`)
}

// A tools/call the server refuses before any tool runs is answered with
// a message naming params.name and told to a provider that records
// every call (docs/spec/orchestrator.md §12).
func TestRefusedToolCallIsRecorded(t *testing.T) {
	f := newFake()
	f.refused = make(chan string, 16)
	c := startPipe(t, f, Options{})
	jsonEq(t, "before initialize", c.call(0, "tools/call", map[string]any{"name": "echo"})["error"], `{"code":-32002,"message":"server not initialized"}`)
	jsonEq(t, "bad metadata", c.call("m", "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{}})["error"],
		`{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"}`)
	jsonEq(t, "missing name", c.call(1, "tools/call", modern(map[string]any{"arguments": map[string]any{}}, nil))["error"],
		`{"code":-32602,"message":"Invalid params: tools/call requires params.name, the tool name"}`)
	jsonEq(t, "null name", c.call(2, "tools/call", modern(map[string]any{"name": nil}, nil))["error"],
		`{"code":-32602,"message":"Invalid params: tools/call params.name must be a string, not null"}`)
	jsonEq(t, "unknown tool", c.call(3, "tools/call", modern(map[string]any{"name": "nope"}, nil))["error"], `{"code":-32602,"message":"Unknown tool: nope"}`)
	jsonEq(t, "invalid args", c.call(4, "tools/call", modern(map[string]any{"name": "echo"}, nil))["error"], `{"code":-32602,"message":"echo: \"text\" is required"}`)
	// A well-formed clientInfo names the client even when the rest of
	// the metadata is refused (docs/spec/orchestrator.md §12).
	info := map[string]any{"name": "curl", "version": "1"}
	jsonEq(t, "unsupported version", c.call(6, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{MetaProtocolVersion: "2099", MetaClientInfo: info}})["error"],
		`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099"}}`)
	jsonEq(t, "no capabilities", c.call(7, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{MetaProtocolVersion: Version20260728, MetaClientInfo: info}})["error"],
		`{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/clientCapabilities"}`)
	jsonEq(t, "no version", c.call(8, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{MetaClientInfo: info}})["error"],
		`{"code":-32602,"message":"request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities"}`)
	jsonEq(t, "clientInfo without a version", c.call(9, "tools/call", map[string]any{"name": "echo", "_meta": map[string]any{MetaProtocolVersion: "2099", MetaClientInfo: map[string]any{"name": "curl"}}})["error"],
		`{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2099"}}`)
	c.call(5, "tools/call", modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "hi"}}, nil))
	want := []string{
		"unknown echo -32002 server not initialized",
		"unknown echo -32602 request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities",
		"tester/1  -32602 Invalid params: tools/call requires params.name, the tool name",
		"tester/1  -32602 Invalid params: tools/call params.name must be a string, not null",
		"tester/1 nope -32602 Unknown tool: nope",
		`tester/1 echo -32602 echo: "text" is required`,
		"curl/1 echo -32022 Unsupported protocol version",
		"curl/1 echo -32602 request _meta is missing or has malformed required fields: io.modelcontextprotocol/clientCapabilities",
		"curl/1 echo -32602 request _meta is missing or has malformed required fields: io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientInfo, io.modelcontextprotocol/clientCapabilities",
		"unknown echo -32022 Unsupported protocol version",
	}
	for _, w := range want {
		if got := <-f.refused; got != w {
			t.Errorf("refused call %q, want %q", got, w)
		}
	}
	select {
	case got := <-f.refused:
		t.Errorf("a call that ran was reported refused: %q", got)
	default:
	}
}

// logging/setLevel is a method of the logging capability: a server that
// does not advertise it does not know the method.
func TestSetLevelNeedsLoggingCapability(t *testing.T) {
	c := startPipe(t, newFake(), Options{})
	jsonEq(t, "without logging", c.call(1, "logging/setLevel", modern(map[string]any{"level": "debug"}, nil))["error"],
		`{"code":-32601,"message":"Method not found: logging/setLevel"}`)
	f := newFake()
	f.logging = true
	c = startPipe(t, f, Options{})
	jsonEq(t, "with logging", c.call(1, "logging/setLevel", modern(map[string]any{"level": "debug"}, nil))["result"], `{"resultType":"complete"}`)
	jsonEq(t, "bad level", c.call(2, "logging/setLevel", modern(map[string]any{"level": "loud"}, nil))["error"],
		`{"code":-32602,"message":"logging/setLevel: level must be one of debug, info, notice, warning, error, critical, alert, emergency"}`)
}

// notifications/initialized before initialize readies nothing: list
// changes start only after the handshake (docs/spec/mcp-projection.md §3.1).
func TestInitializedBeforeInitialize(t *testing.T) {
	srv := NewServer(newFake(), Options{})
	c := startPipeServer(t, srv)
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	c.call(1, "ping", nil) // the notification has been read
	srv.NotifyListChanged("tools")
	c.call(2, "initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "c", "version": "1"}})
	srv.NotifyListChanged("tools")
	c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	c.call(3, "ping", nil)
	srv.NotifyListChanged("prompts")
	c.call(4, "ping", nil)
	var got []string
	for _, m := range c.Messages() {
		if m["id"] == nil {
			got = append(got, m["method"].(string))
		}
	}
	if strings.Join(got, " ") != "notifications/prompts/list_changed" {
		t.Errorf("notifications %q, want only the one sent after the handshake", got)
	}
}

// A tools/call cancelled while it waits for the executor never reaches
// the provider and gets no answer, but a CallRecorder is still told of
// it (docs/spec/orchestrator.md §12), in either execution mode.
func TestCallCancelledBeforeStartIsRecorded(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		f.refused = make(chan string, 4)
		srv := NewServer(f, Options{Parallel: parallel})
		c := startPipeServer(t, srv)
		// While Quiesce runs no job starts: the call is queued, then
		// cancelled, before its job can run (the ping's answer says the
		// reader has taken the cancellation).
		srv.Quiesce(func() {
			c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, nil)})
			c.Send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 1}})
			c.call(2, "ping", modern(nil, nil))
		})
		select {
		case got := <-f.refused:
			if want := "tester/1 echo -32800 cancelled by the client before it started"; got != want {
				t.Errorf("parallel=%v: recorded %q, want %q", parallel, got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("parallel=%v: the cancelled call was not recorded", parallel)
		}
		c.call(3, "ping", modern(nil, nil))
		for _, m := range c.Messages() {
			if m["id"] == float64(1) {
				t.Errorf("parallel=%v: cancelled call answered: %s", parallel, js(m))
			}
		}
	}
}

// A line that is not valid UTF-8 is not JSON text (RFC 8259 §8.1):
// -32700, never a request whose id or params lost bytes to U+FFFD. The
// id is echoed only when its own text is valid.
func TestInvalidUTF8IsAParseError(t *testing.T) {
	for _, tc := range []struct{ in, id string }{
		{"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}", `null`},
		{"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":\"\xc3\"}}", `5`},
	} {
		want := `{"jsonrpc":"2.0","id":` + tc.id + `,"error":{"code":-32700,"message":"Parse error"}}` + "\n"
		if got := serveLines(tc.in); got != want {
			t.Errorf("%q: got %s, want %s", tc.in, got, want)
		}
	}
}

// Drain lets a call in progress finish and answers it with its own
// result; a call received while draining is refused; a call still
// running when the drain's deadline passes is cancelled and answered
// with a JSON-RPC error instead of being dropped.
func TestDrain(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		srv := NewServer(f, Options{Parallel: parallel})
		c := startPipeServer(t, srv)
		c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
		<-f.started
		drained := make(chan error, 1)
		go func() { drained <- srv.Drain(context.Background()) }()
		for !srv.draining.Load() {
			runtime.Gosched()
		}
		jsonEq(t, "call while draining", c.call(2, "tools/call", modern(map[string]any{"name": "echo", "arguments": map[string]any{"text": "x"}}, nil))["error"],
			`{"code":-32603,"message":"server is shutting down"}`)
		select {
		case err := <-drained:
			t.Fatalf("parallel=%v: drained (%v) with a call in progress", parallel, err)
		default:
		}
		if srv.Stopped().Err() != nil {
			t.Errorf("parallel=%v: Stopped ended before the drain's bound", parallel)
		}
		close(f.release)
		jsonEq(t, "drained call", c.Answer(1)["result"], `{"content":[{"type":"text","text":"released"}],"isError":false,"resultType":"complete"}`)
		if err := <-drained; err != nil {
			t.Fatalf("parallel=%v: drain: %v", parallel, err)
		}

		f = newFake()
		srv = NewServer(f, Options{Parallel: parallel})
		c = startPipeServer(t, srv)
		c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
		<-f.started
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the drain's bound has passed
		if err := srv.Drain(ctx); err == nil {
			t.Fatalf("parallel=%v: drain past its bound reported no error", parallel)
		}
		if cause := context.Cause(srv.Stopped()); cause != ErrShuttingDown {
			t.Errorf("parallel=%v: Stopped's cause after the bound: %v", parallel, cause)
		}
		// The answer is written when Drain returns, before the handler
		// has seen its context end.
		jsonEq(t, "cut short", c.Answer(1)["error"], `{"code":-32603,"message":"server is shutting down"}`)
		<-f.stopped
		for _, m := range c.Messages() {
			if m["id"] == float64(1) && m["result"] != nil {
				t.Errorf("parallel=%v: call answered twice: %s", parallel, js(m))
			}
		}
	}
}

// A call's Context ends when its handler returns, which also takes it out
// of the server's stop context: a long-running server would otherwise keep
// one entry there for every call it ever made.
func TestCallContextEndsWithTheCall(t *testing.T) {
	for _, parallel := range []bool{false, true} {
		f := newFake()
		f.ctxs = make(chan context.Context, 1)
		srv := NewServer(f, Options{Parallel: parallel})
		c := startPipeServer(t, srv)
		c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
		ctx := <-f.ctxs
		<-f.started
		if ctx.Err() != nil {
			t.Fatalf("parallel=%v: the context ended while the call ran", parallel)
		}
		close(f.release)
		jsonEq(t, "released", c.Answer(1)["result"], `{"content":[{"type":"text","text":"released"}],"isError":false,"resultType":"complete"}`)
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatalf("parallel=%v: the call's context outlived the call", parallel)
		}
		if cause := context.Cause(ctx); cause != context.Canceled {
			t.Errorf("parallel=%v: cause %v, want context.Canceled", parallel, cause)
		}
		if srv.Stopped().Err() != nil {
			t.Errorf("parallel=%v: ending a call stopped the server", parallel)
		}
	}
}

// A call Drain cuts short is answered with the shutting-down error even
// when its handler, seeing its context end, returns at once: Drain takes
// the answer before it cancels the calls (docs/mcp.md, Stopping).
func TestDrainAnswersBeforeCancelling(t *testing.T) {
	for i := 0; i < 1000; i++ {
		f := newFake() // its block handler returns as soon as it is cancelled
		srv := NewServer(f, Options{})
		c := startPipeServer(t, srv)
		c.Send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": modern(map[string]any{"name": "block"}, nil)})
		<-f.started
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		srv.Drain(ctx)
		<-f.stopped
		if e := c.Answer(1)["error"]; e == nil {
			t.Fatalf("run %d: a call cut short answered %s", i, js(c.Answer(1)))
		}
	}
}

// Drain waits for the work of a task, which outlives the call that
// created it (an HTTP request's, in either execution mode); past the
// drain's bound the task is failed with a status message saying the
// server shut down, and its work is cancelled (docs/mcp.md, Stopping).
func TestDrainWaitsForTasks(t *testing.T) {
	onlyTask := func(srv *Server) *task {
		srv.tasks.mu.Lock()
		defer srv.tasks.mu.Unlock()
		for _, tk := range srv.tasks.tasks {
			return tk
		}
		return nil
	}
	status := func(tk *task) string {
		tk.mu.Lock()
		defer tk.mu.Unlock()
		return tk.status + ": " + tk.message
	}
	for _, parallel := range []bool{false, true} {
		f := newFake()
		srv := NewServer(f, Options{Parallel: parallel})
		h := srv.HTTPHandler(HTTPOptions{})
		if r := rpc(h, 1, "tools/call", "block", map[string]any{"name": "block"}, nil).json(t)["result"].(map[string]any); r["resultType"] != "task" {
			t.Fatalf("parallel=%v: not a task: %s", parallel, js(r))
		}
		<-f.started
		drained := make(chan error, 1)
		go func() { drained <- srv.Drain(context.Background()) }()
		select {
		case err := <-drained:
			t.Fatalf("parallel=%v: drained (%v) with a task working", parallel, err)
		case <-time.After(100 * time.Millisecond):
		}
		close(f.release)
		if err := <-drained; err != nil {
			t.Fatalf("parallel=%v: drain: %v", parallel, err)
		}
		if got := status(onlyTask(srv)); got != "completed: "+msgCompleted {
			t.Errorf("parallel=%v: after the drain the task is %s", parallel, got)
		}

		f = newFake()
		srv = NewServer(f, Options{Parallel: parallel})
		h = srv.HTTPHandler(HTTPOptions{})
		rpc(h, 1, "tools/call", "block", map[string]any{"name": "block"}, nil)
		<-f.started
		ctx, cancel := context.WithCancel(context.Background())
		cancel() // the drain's bound has passed
		if err := srv.Drain(ctx); err == nil {
			t.Fatalf("parallel=%v: drain past its bound reported no error", parallel)
		}
		tk := onlyTask(srv)
		const failed = "failed: Tool execution failed: server is shutting down"
		if got := status(tk); got != failed {
			t.Errorf("parallel=%v: a task cut short is %s", parallel, got)
		}
		<-f.stopped // its work saw the server stop, and returned
		srv.mu.Lock()
		for len(srv.working) > 0 {
			srv.mu.Unlock()
			runtime.Gosched()
			srv.mu.Lock()
		}
		srv.mu.Unlock()
		if got := status(tk); got != failed {
			t.Errorf("parallel=%v: the work's own result replaced the shutdown: %s", parallel, got)
		}
	}
}
