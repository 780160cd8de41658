package protocol

import (
	"sort"
	"strings"

	"github.com/harnlang/harn/internal/jsonv"
)

// maxCompletions caps completion/complete values.
const maxCompletions = 100

// complete answers completion/complete: it checks the request's shape,
// asks the provider for candidates and ranks them
// (docs/spec/mcp-projection.md §14).
func (c *conn) complete(req *Request) any {
	rv, _ := req.params.Get("ref")
	refObj, _ := rv.(*jsonv.Object)
	str := func(o *jsonv.Object, k string) string {
		if o == nil {
			return ""
		}
		v, _ := o.Get(k)
		s, _ := v.(string)
		return s
	}
	ref := CompletionRef{Type: str(refObj, "type"), Name: str(refObj, "name"), URI: str(refObj, "uri")}
	if ref.Type == "" {
		return InvalidParams("completion ref.type is required")
	}
	av, _ := req.params.Get("argument")
	arg, _ := av.(*jsonv.Object)
	argName, value := str(arg, "name"), str(arg, "value")
	if argName == "" {
		return InvalidParams("completion argument.name is required")
	}
	switch {
	case ref.Type != "ref/prompt" && ref.Type != "ref/resource":
		return InvalidParams("Unsupported completion ref.type: " + ref.Type)
	case ref.Type == "ref/prompt" && ref.Name == "":
		return InvalidParams("completion ref.name is required for ref/prompt")
	case ref.Type == "ref/resource" && ref.URI == "":
		return InvalidParams("completion ref.uri is required for ref/resource")
	}
	candidates, rerr := c.srv.p.Complete(req, ref, argName, value)
	if rerr != nil {
		return rerr
	}
	values := RankCompletions(candidates, value)
	total := len(values)
	if len(values) > maxCompletions {
		values = values[:maxCompletions]
	}
	items := make([]any, len(values))
	for i, v := range values {
		items[i] = v
	}
	comp := jsonv.NewObject(3)
	comp.Set("values", items)
	comp.Set("total", jsonv.Int(int64(total)))
	comp.Set("hasMore", total > maxCompletions)
	res := jsonv.NewObject(1)
	res.Set("completion", comp)
	return res
}

// RankCompletions trims, de-duplicates and filters candidates by a
// case-insensitive substring of value; prefix matches come first, then
// the rest, each sorted by lower-case text.
func RankCompletions(candidates []string, value string) []string {
	needle := strings.ToLower(value)
	seen := map[string]bool{}
	var out []string
	for _, c := range candidates {
		c = strings.TrimSpace(c)
		if c == "" || seen[c] || !strings.Contains(strings.ToLower(c), needle) {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := strings.ToLower(out[i]), strings.ToLower(out[j])
		pa, pb := strings.HasPrefix(a, needle), strings.HasPrefix(b, needle)
		if pa != pb {
			return pa
		}
		return a < b
	})
	return out
}
