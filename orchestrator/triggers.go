package orchestrator

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harnlang/harn/internal/hmacsig"
	"github.com/harnlang/harn/internal/triggerspec"
	"github.com/harnlang/harn/orchestrator/manifest"
	"github.com/robfig/cron/v3"
)

// Triggers: the event sources of cron bindings, and of webhook and
// a2a-push bindings, whose deliveries arrive on the HTTP listener.
// Manual bindings have none; any binding can also be fired through Fire.

// startCron schedules the project's cron bindings, replacing any
// earlier schedule: one goroutine per binding sleeps until the next
// activation of its robfig/cron schedule (in the binding's time zone) and
// accepts a tick for that exact instant; across daylight-saving changes
// the schedule follows classic cron (see manifest.ParseSchedule). The idempotency key
// cron/<binding>/<scheduled unix second> is therefore the same on every
// node however late its timer fires, so several nodes running the same
// schedule dispatch each tick once. The key leaves out the binding
// version: during a rolling manifest update nodes on different versions
// must still agree on it (docs/orchestrator.md). An operator command's
// node runs no schedule.
func (o *Orchestrator) startCron() {
	o.cronMu.Lock()
	defer o.cronMu.Unlock()
	o.stopCronLocked()
	if o.ctx.Err() != nil || o.opts.Operator {
		return
	}
	stop := make(chan struct{})
	n := 0
	for _, b := range o.Bindings() {
		if b.Kind != "cron" {
			continue
		}
		sched, err := manifest.ParseSchedule(b.Schedule)
		if err != nil {
			fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: cron trigger %s: %v\n", b.ID, err)
			continue
		}
		n++
		o.cronWG.Add(1)
		go func(b *Binding, sched cron.Schedule) {
			defer o.cronWG.Done()
			at := time.Now().In(b.Location)
			for {
				next := sched.Next(at)
				if next.IsZero() {
					return
				}
				t := time.NewTimer(time.Until(next))
				select {
				case <-stop:
					t.Stop()
					return
				case <-t.C:
				}
				o.tick(b, next)
				at = next
			}
		}(b, sched)
	}
	o.cronStop = stop
	if n > 0 {
		o.addConnectors("cron")
	}
}

func (o *Orchestrator) stopCron() {
	o.cronMu.Lock()
	defer o.cronMu.Unlock()
	o.stopCronLocked()
}

func (o *Orchestrator) stopCronLocked() {
	if o.cronStop != nil {
		close(o.cronStop)
		o.cronStop = nil
		o.cronWG.Wait()
	}
}

// tick accepts one cron event.
func (o *Orchestrator) tick(b *Binding, at time.Time) {
	event := map[string]any{
		"provider": b.Provider,
		"kind":     b.EventKind(),
		"headers":  map[string]any{"x-harn-binding-id": b.ID},
		"payload":  map[string]any{"scheduled_at": at.In(b.Location).Format(time.RFC3339), "schedule": b.Schedule, "timezone": b.Location.String()},
	}
	key := fmt.Sprintf("cron/%s/%d", b.ID, at.Unix())
	ctx, cancel := context.WithTimeout(o.ctx, 30*time.Second)
	defer cancel()
	_, err := o.Accept(ctx, b, Envelope{Source: "cron", TraceID: triggerspec.NewTraceID("cron"), Event: event}, key)
	switch {
	case err == nil:
		o.failures.ok("cron trigger " + b.ID)
	case o.ctx.Err() == nil:
		o.failures.failed("cron trigger "+b.ID, err)
	}
}

// MaxWebhookBody bounds a webhook delivery.
const MaxWebhookBody = 4 << 20

// WebhookAck is the answer to an accepted delivery.
type WebhookAck struct {
	EventID   string `json:"event_id"`
	TriggerID string `json:"trigger_id"`
	Status    string `json:"status"` // accepted
	Duplicate bool   `json:"duplicate"`
}

// ServeWebhook serves the deliveries of the webhook and a2a-push
// bindings, each at its path (default /hooks/<id>, /a2a/<id>). A binding with a secret requires a valid
// HMAC signature (and, for the harn scheme, a timestamp inside the
// replay window); for one without, unsigned decides, given the body
// (nil admits all) — the MCP server passes its own authentication there,
// whose signed requests cover the body. Deliveries are
// idempotent (see deliveryKey). They are acknowledged with 202 once
// accepted; dispatch is asynchronous. ok is false when no binding has
// the path.
func (o *Orchestrator) ServeWebhook(w http.ResponseWriter, r *http.Request, unsigned func(w http.ResponseWriter, r *http.Request, body []byte) bool) (ok bool) {
	var b *Binding
	for _, x := range o.Bindings() {
		if x.Webhook != nil && x.Webhook.Path == r.URL.Path {
			b = x
			break
		}
	}
	if b == nil {
		return false
	}
	fail := func(code int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(map[string]any{"error": msg})
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		fail(http.StatusMethodNotAllowed, "webhook deliveries are POST requests")
		return true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWebhookBody))
	if err != nil {
		fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("delivery larger than %d bytes", MaxWebhookBody))
		return true
	}
	wh := b.Webhook
	deliveryID := r.Header.Get(wh.DeliveryHeader)
	idSigned := false
	if len(wh.Secret) > 0 {
		var msg string
		if idSigned, msg = verifySignature(wh, r, deliveryID, body, o.opts.Now()); msg != "" {
			fail(http.StatusUnauthorized, msg)
			return true
		}
	} else if unsigned != nil && !unsigned(w, r, body) {
		return true
	}
	kind := b.EventKind()
	if b.Provider == "github" {
		// GitHub names every delivery's event; without the header the
		// kind would be a guess (the binding's first match.events).
		if kind = r.Header.Get("X-GitHub-Event"); kind == "" {
			fail(http.StatusBadRequest, "missing event header X-GitHub-Event")
			return true
		}
	}
	if len(b.Events) > 0 && !slices.Contains(b.Events, kind) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		json.NewEncoder(w).Encode(map[string]any{"trigger_id": b.ID, "status": "ignored", "reason": "event kind " + kind + " is not in match.events"})
		return true
	}
	payload, err := ParseJSON(body)
	if err != nil {
		payload = map[string]any{"raw": string(body)}
	}
	headers := map[string]any{}
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		if lk == "authorization" || lk == "cookie" || lk == "x-api-key" || strings.EqualFold(k, wh.SignatureHeader) {
			continue
		}
		headers[lk] = strings.Join(v, ", ")
	}
	event := map[string]any{"provider": b.Provider, "kind": kind, "headers": headers, "payload": payload}
	if deliveryID != "" {
		event["delivery_id"] = deliveryID
	}
	key := deliveryKey(b.ID, wh, r, deliveryID, idSigned)
	acc, err := o.Accept(r.Context(), b, Envelope{Source: "webhook", TraceID: triggerspec.NewTraceID("webhook"), Event: event}, key)
	var bad *NumberRangeError
	switch {
	case errors.As(err, &bad): // the delivery, not the log, is at fault: sending it again cannot help
		fail(http.StatusBadRequest, err.Error())
		return true
	case err != nil:
		// The sender is not authenticated to the log: what failed (a
		// database's user, name, host and port) goes to stderr only.
		o.failures.failed("webhook "+b.ID, err)
		fail(http.StatusServiceUnavailable, "delivery not accepted; retry later")
		return true
	}
	o.failures.ok("webhook " + b.ID)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	json.NewEncoder(w).Encode(WebhookAck{EventID: acc.Envelope.EventID, TriggerID: b.ID, Status: "accepted", Duplicate: !acc.New})
	return true
}

// deliveryKey is the idempotency key of a delivery to binding id, ""
// when it has none. A delivery id is a key only when nothing vouches
// for the delivery beyond the id itself (no secret, or the token
// scheme, whose token covers no content) or when the signature covers
// it (idSigned). Otherwise the delivery is identified by its signature:
// the id header is not signed, so keying on it would let a delivery
// captured inside the replay window (forever, for the github scheme,
// which signs no timestamp) be accepted again under another id. The key
// holds a hash of the signature, which, like the header, is not
// recorded.
func deliveryKey(id string, wh *manifest.Webhook, r *http.Request, deliveryID string, idSigned bool) string {
	if len(wh.Secret) == 0 || wh.Scheme == "token" || idSigned {
		if deliveryID == "" {
			return ""
		}
		return "webhook/" + id + "/" + deliveryID
	}
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(r.Header.Get(wh.SignatureHeader)))))
	return "webhook/" + id + "/signed/" + hex.EncodeToString(sum[:16])
}

// verifySignature checks a delivery's HMAC-SHA256 signature
// ("sha256=<hex>"): over "<timestamp>.<body>" for the harn scheme, whose
// timestamp (unix seconds) must lie within the replay window, or over
// the body for the github scheme; the token scheme (a2a-push) compares
// the header with the secret. A harn-scheme delivery that carries a
// delivery id may sign "<id>.<timestamp>.<body>" instead, and then
// idSigned is true. msg is "" or the rejection, naming the header that
// is missing.
func verifySignature(wh *manifest.Webhook, r *http.Request, deliveryID string, body []byte, now time.Time) (idSigned bool, msg string) {
	sig := r.Header.Get(wh.SignatureHeader)
	if sig == "" {
		if wh.Scheme == "token" {
			return false, "missing token header " + wh.SignatureHeader
		}
		return false, "missing signature header " + wh.SignatureHeader
	}
	if wh.Scheme == "token" {
		if subtle.ConstantTimeCompare([]byte(sig), wh.Secret) != 1 {
			return false, "token mismatch"
		}
		return false, ""
	}
	got := strings.ToLower(strings.TrimSpace(sig))
	if wh.Scheme != "harn" {
		if !hmacsig.Equal(got, signature(wh.Secret, body)) {
			return false, "signature mismatch"
		}
		return false, ""
	}
	ts := r.Header.Get(wh.TimestampHeader)
	if ts == "" {
		return false, "missing timestamp header " + wh.TimestampHeader
	}
	if err := hmacsig.Fresh(ts, now, wh.ReplayWindow); err != nil {
		if err == hmacsig.ErrNotSeconds {
			return false, "timestamp header " + wh.TimestampHeader + " is not unix seconds"
		}
		return false, err.Error()
	}
	if hmacsig.Equal(got, signature(wh.Secret, []byte(ts+"."), body)) {
		return false, ""
	}
	if deliveryID != "" && hmacsig.Equal(got, signature(wh.Secret, []byte(deliveryID+"."+ts+"."), body)) {
		return true, ""
	}
	return false, "signature mismatch"
}

// signature is "sha256=<hex>" of the HMAC-SHA256 of the parts.
func signature(secret []byte, parts ...[]byte) string {
	return "sha256=" + hmacsig.Hex(secret, parts...)
}

// Sign is the harn-scheme signature of a delivery, for senders and
// tests: the value of X-Harn-Signature for body sent at ts.
func Sign(secret []byte, ts int64, body []byte) string {
	return signature(secret, []byte(strconv.FormatInt(ts, 10)+"."), body)
}

// SignDelivery is the harn-scheme signature of a delivery that also
// covers its delivery id (X-Harn-Delivery-Id), which then makes the
// delivery idempotent by id, even when re-sent with a new timestamp.
func SignDelivery(secret []byte, deliveryID string, ts int64, body []byte) string {
	return signature(secret, []byte(deliveryID+"."+strconv.FormatInt(ts, 10)+"."), body)
}

// ServingWebhooks records that this node's HTTP listener serves the
// webhook bindings (their providers become connectors in inspect and
// the snapshot).
func (o *Orchestrator) ServingWebhooks() {
	for _, b := range o.Bindings() {
		if b.Webhook != nil {
			o.addConnectors(b.Provider)
		}
	}
}
