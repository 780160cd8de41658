package checkpoints

import "testing"

func TestPipeline(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"/p/deploy.harn", "deploy"},
		{"deploy.harn", "deploy"},
		{"/p/a b+c.harn", "a_b_c"},
		{"/p/v1.2.harn", "v1.2"},
		{"/p/noext", "noext"},
		{"/p/ünï.harn", "_n_"},
		{"", DefaultPipeline},
		{"<-e>", DefaultPipeline},
		{"<repl>", DefaultPipeline},
		{"/p/.harn", DefaultPipeline},
	} {
		if got := Pipeline(c.file); got != c.want {
			t.Errorf("Pipeline(%q) = %q, want %q", c.file, got, c.want)
		}
	}
}
