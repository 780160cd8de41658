package mcpserver

import (
	"testing"

	"github.com/harnlang/harn/internal/jsonv"
)

// An optional field given as null is the field not given, as serde reads
// an Option (docs/orchestrator.md, "Tools, resources and prompts";
// docs/spec/orchestrator.md §5 lists the fields and leaves null open):
// harn.trust.query {"agent": null} is no agent filter. A required field
// is never null.
func TestNullOptionalFieldIsAbsent(t *testing.T) {
	for _, tc := range []struct{ tool, args, err string }{
		{"harn.trust.query", `{"agent":null}`, ""},
		{"harn.trust.query", `{"agent":null,"action":null,"since":null,"until":null,"tier":null,"outcome":null,"limit":null,"grouped_by_trace":null}`, ""},
		{"harn.trigger.replay", `{"event_id":"e","as_of":null,"scope":null}`, ""},
		{"harn.trigger.fire", `{"trigger_id":null,"payload":{}}`, "invalid type for field `trigger_id`: expected a string, got null"},
		{"harn.trigger.fire", `{"trigger_id":"x","payload":null}`, "invalid type for field `payload`: expected an object, got null"},
		{"harn.trust.query", `{"agent":7}`, "invalid type for field `agent`: expected a string, got number"},
		{"harn.trust.query", `{"nope":null}`, "unknown field `nope`, expected one of `agent`, `action`, `since`, `until`, `tier`, `outcome`, `limit`, `grouped_by_trace`"},
	} {
		args, err := jsonv.Parse([]byte(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := findTool(tc.tool).check(args)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.tool, tc.args, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%s %s: got %v, want %s", tc.tool, tc.args, err, tc.err)
		case tc.err == "":
			for k, v := range plain {
				if v == nil {
					t.Errorf("%s %s: null %s kept as given", tc.tool, tc.args, k)
				}
			}
		}
	}
}
