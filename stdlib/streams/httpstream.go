package streams

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/harnlang/harn/stdlib/internal/lib"
	"github.com/harnlang/harn/stdlib/json"
	hnet "github.com/harnlang/harn/stdlib/net"
	"github.com/harnlang/harn/vm"
)

// Streamed HTTP responses (docs/streams.md, "Streaming HTTP bodies"):
// http_stream_open returns once the status and headers arrive, and
// http_stream_read hands out the body piece by piece as it arrives.
// Requests that an http_mock matches are answered by the mock, whose
// body is then read in pieces like a real one.

// HTTPStream is an open response body (type "http_stream").
type HTTPStream struct {
	mu      sync.Mutex
	url     string
	status  int
	headers *vm.Dict
	body    io.ReadCloser
	cancel  context.CancelFunc
	binary  bool
	carry   []byte // an incomplete UTF-8 sequence held back for the next read
	read    int
	eof     bool
	closed  bool
	failed  error
	mocked  bool
	reading bool
}

func (*HTTPStream) Type() string { return "http_stream" }
func (*HTTPStream) Truth() bool  { return true }
func (s *HTTPStream) Display(sb *strings.Builder) {
	display(sb, "http_stream", s.url)
}

// EqualTo: a stream equals only itself.
func (s *HTTPStream) EqualTo(o vm.Value) bool { t, ok := o.Object().(*HTTPStream); return ok && s == t }

func streamArg(name string, a vm.Args) (*HTTPStream, error) {
	s, ok := a.At(0).Object().(*HTTPStream)
	if !ok {
		return nil, vm.Typef("%s: expected an http_stream, got %s", name, a.At(0).Type())
	}
	return s, nil
}

const defaultReadSize = 64 * 1024

func init() {
	def("http_stream_open", "http_stream_open(url, options?)",
		"send a request and return its response body as a stream once the headers arrive; options: method, headers, body, timeout, binary",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "http_stream_open"
			url, err := urlArg(th, name, a, "http", "https")
			if err != nil {
				return vm.Value{}, err
			}
			d, err := optionsArg(name, a, 1)
			if err != nil {
				return vm.Value{}, err
			}
			if err := checkKeys(name, d, "method", "headers", "body", "timeout", "binary"); err != nil {
				return vm.Value{}, err
			}
			method := "GET"
			if v, ok := opt(d, "method"); ok {
				m, isStr := v.AsString()
				if !isStr || m.Go() == "" {
					return vm.Value{}, vm.Typef("%s: method must be a non-empty string, got %s", name, v.Type())
				}
				method = strings.ToUpper(m.Go())
			}
			hdrs, err := headersOpt(name, d)
			if err != nil {
				return vm.Value{}, err
			}
			headers := map[string]string{}
			for k, v := range hdrs {
				headers[strings.ToLower(k)] = v
			}
			var payload []byte
			if v, ok := opt(d, "body"); ok {
				switch x := v.Object().(type) {
				case *lib.Bytes:
					payload = x.Data()
				default:
					if v.Kind() == vm.KDict || v.Kind() == vm.KList {
						payload = []byte(json.Stringify(v))
						if _, set := headers["content-type"]; !set {
							headers["content-type"] = "application/json"
						}
					} else {
						payload = []byte(vm.ToDisplay(v))
					}
				}
			}
			connTimeout := 30 * time.Second
			if v, ok := opt(d, "timeout"); ok {
				if connTimeout, err = timeoutValue(name, "timeout", v); err != nil {
					return vm.Value{}, err
				}
			}
			s := &HTTPStream{url: url, cancel: func() {}}
			if v, ok := opt(d, "binary"); ok {
				s.binary = v.Truth()
			}
			if status, rh, raw, ok := hnet.MockedResponse(th, method, url, headers, payload); ok {
				s.status, s.headers, s.body, s.mocked = int(status), rh, io.NopCloser(bytes.NewReader(raw)), true
				return vm.Of(s), nil
			}
			ctx, cancel := context.WithCancel(context.Background())
			var resp *http.Response
			var rerr error
			done := make(chan struct{})
			timer := time.AfterFunc(connTimeout, cancel)
			go func() {
				defer close(done)
				req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(payload))
				if err != nil {
					rerr = err
					return
				}
				for k, v := range headers {
					req.Header.Set(k, v)
				}
				resp, rerr = streamClient.Do(req)
			}()
			if _, werr := th.Wait(done, -1); werr != nil {
				cancel()
				<-done
				if rerr == nil && resp != nil {
					resp.Body.Close()
				}
				return vm.Value{}, werr
			}
			if !timer.Stop() && rerr != nil {
				cancel()
				return vm.Value{}, timeoutError(fmt.Sprintf("%s: timed out connecting to %s after %s", name, url, vm.FormatDuration(connTimeout.Milliseconds())))
			}
			if rerr != nil {
				cancel()
				return vm.Value{}, vm.Throwf("%s: %s", name, rerr)
			}
			s.status, s.headers, s.body, s.cancel = resp.StatusCode, headerDict(resp.Header), resp.Body, cancel
			return vm.Of(s), nil
		})
	def("http_stream_read", "http_stream_read(stream, max_bytes?)",
		"the next piece of the body as it arrives (at most max_bytes, default 65536; a string, or bytes when opened with binary: true), or nil at the end",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			const name = "http_stream_read"
			s, err := streamArg(name, a)
			if err != nil {
				return vm.Value{}, err
			}
			max := int64(defaultReadSize)
			if a.Given(1) {
				n, ok := a.Int(1)
				if !ok {
					return vm.Value{}, vm.Typef("%s: max_bytes must be an int, got %s", name, a.At(1).Type())
				}
				if n < 1 {
					return vm.Value{}, vm.Throwf("%s: max_bytes must be at least 1, got %d", name, n)
				}
				max = min(n, 16<<20)
			}
			return s.next(th, name, int(max))
		})
	def("http_stream_info", "http_stream_info(stream)",
		"{url, status, ok, headers, bytes_read, eof, closed, mocked}",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := streamArg("http_stream_info", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			return vm.Of(lib.DictOf("url", vm.Str(s.url), "status", lib.IntOf(s.status), "ok", vm.BoolOf(s.status >= 200 && s.status <= 299),
				"headers", s.headers, "bytes_read", lib.IntOf(s.read), "eof", vm.BoolOf(s.eof), "closed", vm.BoolOf(s.closed),
				"mocked", vm.BoolOf(s.mocked))), nil
		})
	def("http_stream_close", "http_stream_close(stream)", "stop reading and release the connection (closing twice is allowed)",
		func(th *vm.Thread, a vm.Args) (vm.Value, error) {
			s, err := streamArg("http_stream_close", a)
			if err != nil {
				return vm.Value{}, err
			}
			s.close()
			return vm.Nil, nil
		})
}

func (s *HTTPStream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.cancel()
		s.body.Close()
	}
}

// next reads the next piece: one Read of the body on a goroutine while
// the thread waits. A cancelled or timed-out thread closes the stream
// (the pending Read cannot be taken back).
func (s *HTTPStream) next(th *vm.Thread, name string, max int) (vm.Value, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: the stream is closed", name)
		case s.failed != nil:
			err := s.failed
			s.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: %s", name, err)
		case s.reading:
			s.mu.Unlock()
			return vm.Value{}, vm.Throwf("%s: another task is reading the stream", name)
		case s.eof:
			carry := s.carry
			s.carry = nil
			s.mu.Unlock()
			if len(carry) > 0 {
				return vm.Str(lib.LossyUTF8(carry)), nil
			}
			return vm.Nil, nil
		}
		s.reading = true
		want := max
		if !s.binary {
			want = max - len(s.carry)
			if want < 1 {
				want = 1
			}
		}
		s.mu.Unlock()

		buf := make([]byte, want)
		var n int
		var rerr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			n, rerr = s.body.Read(buf)
		}()
		if _, werr := th.Wait(done, -1); werr != nil {
			s.close()
			<-done
			s.mu.Lock()
			s.reading = false
			s.mu.Unlock()
			return vm.Value{}, werr
		}
		s.mu.Lock()
		s.reading = false
		s.read += n
		if rerr == io.EOF {
			s.eof = true
		} else if rerr != nil && !s.closed {
			s.failed = rerr
		}
		data := buf[:n]
		if s.binary {
			s.mu.Unlock()
			if n == 0 {
				continue
			}
			return vm.Of(lib.NewBytes(data)), nil
		}
		data = append(s.carry, data...)
		s.carry = nil
		if !s.eof {
			cut := completeUTF8(data)
			s.carry = append([]byte(nil), data[cut:]...)
			data = data[:cut]
		}
		s.mu.Unlock()
		if len(data) == 0 {
			continue
		}
		return vm.Str(lib.LossyUTF8(data)), nil
	}
}

// completeUTF8 is the length of b without a UTF-8 sequence cut off at
// its end (at most 3 bytes are held back).
func completeUTF8(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-3; i-- {
		c := b[i]
		if c < 0x80 {
			return len(b)
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}
