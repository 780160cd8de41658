package transcripts_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/harnlang/harn/interp"
)

func mustRun(t *testing.T, src string) string {
	t.Helper()
	var errb bytes.Buffer
	r := interp.RunProgram("test.harn", []byte(src), interp.Options{Stderr: &errb})
	if r.Err != nil {
		t.Fatalf("run failed: %s\n%s", r.Err.Error(), errb.String())
	}
	return strings.TrimSpace(string(r.Stdout))
}

// TestCompactInvariants compacts many conversations of tool-calling
// turns under many budgets and checks what compaction promises: system
// messages all kept and first, one summary message, no tool result
// without the assistant turn that asked for it, at least keep_last
// messages kept, the budget met whenever the kept messages fit it, and
// the same input always giving the same output.
func TestCompactInvariants(t *testing.T) {
	out := mustRun(t, `
fn build(turns, width) {
  var c = conversation("You are a careful assistant.")
  for i in 1 to turns {
    c = add_user(c, "request ${i} " + "u" * (width * (i % 3 + 1)))
    if i % 2 == 0 {
      c = add_assistant(c, "", [{id: "a${i}", name: "f", arguments: {}}, {id: "b${i}", name: "g", arguments: {}}])
      c = add_tool_result(c, "a${i}", "r" * (width * 2))
      c = add_tool_result(c, "b${i}", "s" * width)
    }
    c = add_assistant(c, "answer ${i} " + "a" * width)
  }
  return c
}

var checked = 0
for turns in [1, 2, 3, 5, 8, 13] {
  for width in [4, 40] {
    let c = build(turns, width)
    let total = estimate_tokens(c)
    for keep in [0, 1, 2, 5] {
      for budget in [nil, 30, 80, 200, total, total + 10] {
        let opts = if budget == nil { {keep_last: keep} } else { {keep_last: keep, max_tokens: budget} }
        let k = transcript_compact(c, opts)
        assert(k == transcript_compact(c, opts), "deterministic")
        let summaries = k.filter({ m -> m.compacted != nil })
        assert(len(summaries) <= 1, "one summary")
        assert(k[0].role == "system" && k[0].compacted == nil, "system first")
        if len(summaries) == 0 {
          assert(k == c, "unchanged when nothing is dropped")
          continue
        }
        assert(k[1].compacted != nil, "summary follows the system prompt")
        let kept = k.slice(2)
        assert(len(kept) >= keep, "keep_last")
        assert(len(kept) == 0 || kept[0].role != "tool", "no orphan tool result")
        assert(summaries[0].compacted + len(kept) + 1 == len(c), "counts add up")
        if budget != nil && estimate_tokens(c.slice(0, 1)) + estimate_tokens(kept) + 20 <= budget {
          assert(estimate_tokens(k) <= budget, "budget met: turns=${turns} width=${width} keep=${keep} budget=${budget}")
        }
        checked = checked + 1
      }
    }
  }
}
println(checked > 50)
`)
	if out != "true" {
		t.Fatalf("got %s", out)
	}
}

// TestExportImportRoundTrip: any transcript survives export and import,
// and an export of a list is a transcript with a fresh id.
func TestExportImportRoundTrip(t *testing.T) {
	out := mustRun(t, `
var t = transcript({id: "tr_q", metadata: {tags: ["a", "b"], n: 1.5}})
t = add_user(t, "quotes \" and \\ and\nnewlines and ünïcode")
t = add_assistant(t, "", [{id: "c1", name: "f", arguments: {nested: {list: [1, nil, true]}}}])
t = add_tool_result(t, "c1", {ok: false}, {is_error: true, name: "f"})
println(transcript_import(transcript_export(t)) == t)
let fromList = transcript_import(transcript_export([{role: "user", content: "hi"}]))
println(starts_with(fromList.id, "tr_") && len(fromList.messages) == 1)
`)
	if out != "true\ntrue" {
		t.Fatalf("got %s", out)
	}
}

// transcript_compact and microcompact refuse options that are not a dict
// with the one wording every builtin uses (lib.Options), and refuse an
// unknown option naming the ones they take.
func TestCompactionOptionsErrors(t *testing.T) {
	out := mustRun(t, `
let c = [{role: "user", content: "hi"}]
for f in [{ -> transcript_compact(c, "x") }, { -> microcompact(c, 3) }, { -> transcript_compact(c, {nope: 1}) }, { -> microcompact(c, {max_tokens: 1}) }] {
  try { f() } catch e { println(e) }
}
println(len(microcompact(c, nil)))
`)
	want := strings.Join([]string{
		"Type error: transcript_compact: options must be a dict, got string",
		"Type error: microcompact: options must be a dict, got int",
	}, "\n")
	if !strings.HasPrefix(out, want+"\n") {
		t.Fatalf("got\n%s\nwant it to start with\n%s", out, want)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 5 || !strings.Contains(lines[2], "nope") || !strings.Contains(lines[3], "max_tokens") || lines[4] != "1" {
		t.Fatalf("got\n%s", out)
	}
}
