package mcp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestHostileMessages sends 10,000 hostile messages and checks that
// every request gets exactly the right JSON-RPC error (or answer), that
// the server survives, and that no handler ever runs for an invalid
// call.
func TestHostileMessages(t *testing.T) {
	s := start(t, testdata("kitchen.harn"), Options{})
	rng := rand.New(rand.NewSource(7))
	want := map[string]float64{} // id -> expected error code (0: a result)
	nullErrors := map[float64]int{}
	noAnswer := 0
	huge := strings.Repeat("x", 1<<20)
	next := 0
	id := func() string { next++; return fmt.Sprintf("h%d", next) }
	send := func(line string) { s.send(line) }

	// Out of order: requests before initialize.
	for i := 0; i < 50; i++ {
		k := id()
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"strict","arguments":{"n":1}}}`, k))
		want[k] = -32002
	}
	s.initialize("2025-06-18")

	const total = 10000
	for n := 50; n < total; n++ {
		k := id()
		switch n % 14 {
		case 0: // malformed JSON
			good := fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"ping"}`, k)
			send(good[:1+rng.Intn(len(good)-2)])
			nullErrors[-32700]++
		case 1: // JSON that is not an object
			send([]string{`42`, `"str"`, `[1,2]`, `[]`, `null`, `true`}[rng.Intn(6)])
			nullErrors[-32600]++
		case 2: // wrong jsonrpc version
			send(fmt.Sprintf(`{"jsonrpc":"1.0","id":%q,"method":"ping"}`, k))
			want[k] = -32600
		case 3: // method of the wrong type
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":%d}`, k, rng.Intn(100)))
			want[k] = -32600
		case 4: // id of the wrong type
			send(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`)
			nullErrors[-32600]++
		case 5: // params of the wrong type
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":[1,2]}`, k))
			want[k] = -32602
		case 6: // a huge string where an integer belongs
			size := 1 + rng.Intn(64<<10)
			if n%140 == 6 {
				size = len(huge)
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"strict","arguments":{"n":%q}}}`, k, huge[:size]))
			want[k] = -32602
		case 7: // unknown methods
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"x/%d"}`, k, rng.Int()))
			want[k] = -32601
		case 8: // invalid arguments
			args := []string{`{}`, `{"n":-5}`, `{"n":1.5}`, `{"n":1,"extra":true}`, `[]`, `"n"`, `null`}[rng.Intn(7)]
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":"strict","arguments":%s}}`, k, args))
			if args == `null` || args == `{"n":1,"extra":true}` {
				// null means no arguments; extra properties are allowed by the schema,
				// but n is still validated: neither is valid here except extra.
				if args == `null` {
					want[k] = -32602
				} else {
					want[k] = 0
				}
				continue
			}
			want[k] = -32602
		case 9: // requests after a cancellation of their id
			send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%q}}`, k))
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/list","params":{"cursor":"bad"}}`, k))
			want[k] = -32602
		case 10: // unknown tools, tools outside the audience
			name := []string{"cli_only", "nope", ""}[rng.Intn(3)]
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tools/call","params":{"name":%q}}`, k, name))
			want[k] = -32602
		case 11: // stray responses and notifications: never answered
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"result":{}}`, k))
			send(`{"jsonrpc":"2.0","method":"notifications/unknown","params":{"x":1}}`)
			noAnswer += 2
		case 12: // bad 2026 metadata on an initialized connection is ignored; bad task ids fail
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"tasks/get","params":{"taskId":7}}`, k))
			want[k] = -32021
		case 13: // unsupported features and bad resource reads
			if rng.Intn(2) == 0 {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"sampling/createMessage","params":{}}`, k))
				want[k] = -32601
			} else {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%q,"method":"resources/read","params":{"uri":%d}}`, k, rng.Intn(9)))
				want[k] = -32602
			}
		}
	}
	// A barrier: the server is alive and has read everything.
	s.result("ping", nil)
	for k, code := range want {
		r := s.wait(k)
		e, isErr := r["error"].(map[string]any)
		switch {
		case code == 0 && isErr:
			t.Errorf("%s: unexpected error %s", k, js(r))
		case code != 0 && (!isErr || e["code"] != code):
			t.Errorf("%s: want %v, got %s", k, code, js(r))
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	got := map[float64]int{}
	for _, line := range s.lines {
		var m map[string]any
		json.Unmarshal([]byte(line), &m)
		if m["id"] == nil && m["method"] == nil {
			got[path(m, "error", "code").(float64)]++
		}
	}
	for code, n := range nullErrors {
		if got[code] != n {
			t.Errorf("null-id errors %v: got %d, want %d", code, got[code], n)
		}
	}
	if len(s.byID) != 0 {
		t.Errorf("%d unexpected answers: %s", len(s.byID), js(s.byID))
	}
	// Only the valid calls ran the handler (it prints "HANDLER RAN <n>").
	valid := 0
	for _, code := range want {
		if code == 0 {
			valid++
		}
	}
	if ran := strings.Count(s.stderr.String(), "HANDLER RAN "); ran != valid || ran != strings.Count(s.stderr.String(), "HANDLER RAN 1\n") {
		t.Errorf("handlers ran %d times for %d valid calls", ran, valid)
	}
	_ = noAnswer
}
