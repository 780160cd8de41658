package jsonschema

import (
	"fmt"
	"sync"
	"testing"
)

// TestConcurrentFirstCompile compiles schemas from several goroutines at
// once: the meta-schemas the library compiles on first use (see
// third_party/jsonschema/PATCH.md) must be built once and published
// safely (run with -race). An invalid schema must still be refused, which
// needs the meta-schema.
func TestConcurrentFirstCompile(t *testing.T) {
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := Compile(map[string]any{"type": "integer", "minimum": float64(i)})
			if err == nil {
				if v.Validate(float64(i)) != nil || v.Validate(float64(i-1)) == nil {
					err = fmt.Errorf("schema %d validates wrongly", i)
				}
			}
			if _, bad := Compile(map[string]any{"type": 12}); bad == nil {
				err = fmt.Errorf("goroutine %d: a schema with type 12 compiled", i)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
