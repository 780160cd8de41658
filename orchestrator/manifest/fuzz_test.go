package manifest

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the manifest parser: it must accept
// the manifest or refuse it with a *Error whose every problem names the
// file, never panic (`harn mcp serve` reads the manifest before it serves
// anything, so a panic here is a crash on a typo).
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		good,
		"",
		"[package\nname = 1",
		"[[triggers]]\n[[triggers]]\nid = 1\nkind = []\n",
		"[[triggers]]\nid = \"x\"\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"@every 0s\"\n",
		"[[triggers]]\nid = \"x\"\nkind = \"webhook\"\nhandler = \"f\"\nwebhook = { path = \"\", replay_window = \"-1s\" }\n",
		"[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"m::\"\nretry = { max = 1e400, base = \"99999999999h\" }\n",
		"[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"f\"\nthrottle = { period = \"0s\", max = -1 }\nconcurrency = { max = 0 }\n",
		"triggers = 3\nexports = []\npackage = \"x\"\n",
		"[exports]\nh = 3\n[[triggers]]\nid = \"x\"\nkind = \"manual\"\nhandler = \"h::f\"\nsources = [{}, 1, { match = 2 }]\n",
		"[[triggers]]\nid = \"x\"\nkind = \"cron\"\nhandler = \"f\"\nschedule = \"CRON_TZ=\"\n",
		"\xef\xbb\xbf[package]\r\nname = \"bom\"\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := Parse("harn.toml", src)
		if err == nil {
			if m == nil {
				t.Fatal("no manifest and no error")
			}
			return
		}
		var me *Error
		if !errors.As(err, &me) || len(me.Problems) == 0 {
			t.Fatalf("error %v (%T) is not a *Error with problems", err, err)
		}
		for _, p := range me.Problems {
			if !strings.HasPrefix(p.Error(), "harn.toml") {
				t.Fatalf("problem %q does not name the file", p.Error())
			}
		}
	})
}
