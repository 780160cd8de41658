package mcpclient

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A message that expects no answer (post, notify) succeeds on any 2xx,
// with its body read away, and fails with the status otherwise.
func TestPostUnanswered(t *testing.T) {
	status := http.StatusAccepted
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Method+" "+string(b))
		w.WriteHeader(status)
		io.WriteString(w, "ignored")
	}))
	defer srv.Close()
	tr := &httpTransport{url: srv.URL, client: srv.Client()}
	if err := tr.post(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)); err != nil {
		t.Fatalf("post answered 202: %v", err)
	}
	status = http.StatusInternalServerError
	err := tr.notify(context.Background(), "notifications/initialized", nil)
	if err == nil || err.Error() != "POST "+srv.URL+": HTTP 500 Internal Server Error" {
		t.Fatalf("notify answered 500: error %v", err)
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "POST {") || !strings.Contains(got[1], `"notifications/initialized"`) {
		t.Errorf("the server got %q", got)
	}
}
