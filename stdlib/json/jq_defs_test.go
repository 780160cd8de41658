package json

import (
	"strconv"
	"strings"
	"testing"
)

// TestPreludeKeys: each jqPrelude entry is one def of the name and arity
// its key says, and parses.
func TestPreludeKeys(t *testing.T) {
	for key, src := range jqPrelude {
		p := &jqParser{src: src, rt: &jqRuntime{}}
		p.next()
		d, err := p.defHead()
		if err != nil {
			t.Errorf("%s: %v", key, err)
			continue
		}
		if got := d.name + "/" + strconv.Itoa(len(d.params)); got != key {
			t.Errorf("%s is keyed %s", got, key)
		}
		if p.tok.kind != jqEOF || !strings.HasPrefix(src, "def "+d.name) {
			t.Errorf("%s: not one def: %q", key, src)
		}
	}
}
