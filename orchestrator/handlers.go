package orchestrator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/harnlang/harn/eventlog"
	"github.com/harnlang/harn/internal/uuids"
)

// enqueueWorker is a worker:// handler: the event becomes a job on
// worker.<queue>, appended in the same transaction that completes the
// delivery, for an external worker to consume (with its own cursor).
func (o *Orchestrator) enqueueWorker(b *Binding, env Envelope) attempt {
	q := b.Handler.Queue
	jobID := "job_" + uuids.V7String()
	job, _ := json.Marshal(map[string]any{"job_id": jobID, "event_id": env.EventID, "binding_id": b.ID, "binding_version": b.Version, "event": env.Event})
	h := o.headers(env)
	h["job_id"] = jobID
	return attempt{
		status: "succeeded",
		result: map[string]any{"queued": true, "queue": q, "job_id": jobID},
		extra: []eventlog.TopicRecord{
			{Topic: "worker." + q, Record: eventlog.Record{Kind: "job", Payload: job, Headers: h}},
		},
	}
}

// a2aClient is the HTTP client of a2a:// handlers.
var a2aClient = &http.Client{Timeout: 60 * time.Second}

// sendA2A is an a2a:// handler: an A2A JSON-RPC message/send to
// https://<target> (http:// only with allow_cleartext) carrying the
// event as a data part. A 5xx answer is provider_5xx, 401/403
// auth_failed.
func (o *Orchestrator) sendA2A(ctx context.Context, b *Binding, env Envelope) attempt {
	scheme := "https://"
	if b.AllowCleartext {
		scheme = "http://"
	}
	url := scheme + b.Handler.Target
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": env.EventID, "method": "message/send",
		"params": map[string]any{"message": map[string]any{
			"role": "user", "messageId": env.EventID, "kind": "message",
			"parts": []any{map[string]any{"kind": "data", "data": env.Event}},
		}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return attempt{status: "failed", err: err, errorClass: "unknown"}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Harn-Event-Id", env.EventID)
	resp, err := a2aClient.Do(req)
	if err != nil {
		return attempt{status: "failed", err: fmt.Errorf("a2a %s: %v", url, err), errorClass: "provider_5xx"}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	switch {
	case resp.StatusCode == 401 || resp.StatusCode == 403:
		return attempt{status: "failed", err: fmt.Errorf("a2a %s: HTTP %d", url, resp.StatusCode), errorClass: "auth_failed"}
	case resp.StatusCode >= 300:
		return attempt{status: "failed", err: fmt.Errorf("a2a %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(data))), errorClass: "provider_5xx"}
	}
	var rpc struct {
		Result any `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := decodeJSON(data, &rpc); err != nil {
		return attempt{status: "failed", err: fmt.Errorf("a2a %s: response is not JSON-RPC: %v", url, err), errorClass: "provider_5xx"}
	}
	if rpc.Error != nil {
		return attempt{status: "failed", err: fmt.Errorf("a2a %s: %d %s", url, rpc.Error.Code, rpc.Error.Message), errorClass: "unknown"}
	}
	return attempt{status: "succeeded", result: rpc.Result}
}
