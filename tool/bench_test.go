package tool

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system time, so benchmarks can report
// the work done even when a shared machine makes wall time noisy.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bigRegistry is 1,000 tools sharing 20 components, each with a
// four-property input schema, CLI metadata and a component output.
func bigRegistry(tb testing.TB) (defs, options string) {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 1000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Tool number %d.","namespace":"group%d",
		  "inputSchema":{"type":"object","properties":{"id":{"type":"integer","minimum":0},"mode":{"type":"string","enum":["fast","safe"]},"tags":{"type":"array","items":{"type":"string"}},"item":{"$ref":"#/components/schemas/Item%d"}},"required":["id"],"additionalProperties":false},
		  "returns":{"$ref":"#/components/schemas/Item%d"},
		  "annotations":{"readOnlyHint":true},
		  "cli":{"arguments":{"id":{"position":0},"tags":{"repeatable":true,"short":"t"},"mode":{"completions":["fast"]}}}}`, i, i, i%50, i%20, (i+1)%20)
	}
	b.WriteString("]")
	var c strings.Builder
	c.WriteString(`{"info":{"name":"big"},"components":{"schemas":{`)
	for j := 0; j < 20; j++ {
		if j > 0 {
			c.WriteString(",")
		}
		fmt.Fprintf(&c, `"Item%d":{"type":"object","properties":{"id":{"type":"integer"},"label":{"type":"string"},"next":{"$ref":"#/components/schemas/Item%d"}},"required":["id"]}`, j, (j+1)%20)
	}
	c.WriteString(`}}}`)
	return b.String(), c.String()
}

func BenchmarkPrepare1000(b *testing.B) {
	defs, options := bigRegistry(b)
	reg := mustNormalize(b, defs, options)
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := Prepare(reg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func BenchmarkNormalize1000(b *testing.B) {
	defs, options := bigRegistry(b)
	v := registry(b, defs, options)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Normalize(v, nil); err != nil {
			b.Fatal(err)
		}
	}
}
