package orchestrator

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Triggers: the event sources of cron bindings, and of webhook and
// a2a-push bindings, whose deliveries arrive on the HTTP listener.
// Manual bindings have none; any binding can also be fired through Fire.

var cronSpec = cron.NewParser(cron.SecondOptional | cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// startCron schedules the project's cron bindings, replacing any
// earlier schedule: one goroutine per binding sleeps until the next
// activation of its robfig/cron schedule (in the binding's time zone) and
// accepts a tick for that exact instant. The idempotency key
// cron/<binding>/<version>/<scheduled unix second> is therefore the same
// on every node however late its timer fires, so several nodes running
// the same schedule dispatch each tick once. An operator command's node runs
// no schedule.
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
		sched, err := cronSpec.Parse("CRON_TZ=" + b.Location.String() + " " + b.Schedule)
		if err != nil {
			fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: cron trigger %s: %v\n", b.ID, err)
			continue
		}
		n++
		o.cronWG.Add(1)
		go func(b *Binding, sched cron.Schedule) {
			defer o.cronWG.Done()
			at := time.Now()
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
	key := fmt.Sprintf("cron/%s/%d/%d", b.ID, b.Version, at.Unix())
	ctx, cancel := context.WithTimeout(o.ctx, 30*time.Second)
	defer cancel()
	if _, err := o.Accept(ctx, b, Envelope{Source: "cron", Event: event}, key); err != nil && o.ctx.Err() == nil {
		fmt.Fprintf(o.opts.Stderr, "[harn] orchestrator: cron trigger %s: %v\n", b.ID, err)
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
// replay window); for one without, unsigned decides (nil admits all) —
// the MCP server passes its own authentication there. A delivery id
// header makes deliveries idempotent. Deliveries are acknowledged with
// 202 once accepted; dispatch is asynchronous. ok is false when no
// binding has the path.
func (o *Orchestrator) ServeWebhook(w http.ResponseWriter, r *http.Request, unsigned func(http.ResponseWriter, *http.Request) bool) (ok bool) {
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
	if len(wh.Secret) > 0 {
		if msg := verifySignature(wh.Scheme, wh.Secret, wh.SignatureHeader, wh.TimestampHeader, wh.ReplayWindow, r, body, o.opts.Now()); msg != "" {
			fail(http.StatusUnauthorized, msg)
			return true
		}
	} else if unsigned != nil && !unsigned(w, r) {
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
	var payload any
	if json.Unmarshal(body, &payload) != nil {
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
	key := ""
	if id := r.Header.Get(wh.DeliveryHeader); id != "" {
		event["delivery_id"] = id
		key = "webhook/" + b.ID + "/" + id
	} else if len(wh.Secret) > 0 && wh.Scheme == "harn" {
		// The signature covers the timestamp: a captured delivery
		// replayed inside the replay window carries the same one, and is
		// accepted once (outside the window the timestamp refuses it).
		// The key holds a hash of the signature, which, like the header,
		// is not recorded.
		sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(r.Header.Get(wh.SignatureHeader)))))
		key = "webhook/" + b.ID + "/signed/" + hex.EncodeToString(sum[:16])
	}
	acc, err := o.Accept(r.Context(), b, Envelope{Source: "webhook", Event: event}, key)
	if err != nil {
		fail(http.StatusServiceUnavailable, "delivery not accepted: "+err.Error())
		return true
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	json.NewEncoder(w).Encode(WebhookAck{EventID: acc.Envelope.EventID, TriggerID: b.ID, Status: "accepted", Duplicate: !acc.New})
	return true
}

// verifySignature checks a delivery's HMAC-SHA256 signature
// ("sha256=<hex>"): over "<timestamp>.<body>" for the harn scheme, whose
// timestamp (unix seconds) must lie within the replay window, or over
// the body for the github scheme; the token scheme (a2a-push) compares
// the header with the secret. It returns "" or the rejection, naming
// the header that is missing.
func verifySignature(scheme string, secret []byte, sigHeader, tsHeader string, window time.Duration, r *http.Request, body []byte, now time.Time) string {
	sig := r.Header.Get(sigHeader)
	if sig == "" {
		if scheme == "token" {
			return "missing token header " + sigHeader
		}
		return "missing signature header " + sigHeader
	}
	if scheme == "token" {
		if subtle.ConstantTimeCompare([]byte(sig), secret) != 1 {
			return "token mismatch"
		}
		return ""
	}
	mac := hmac.New(sha256.New, secret)
	if scheme == "harn" {
		ts := r.Header.Get(tsHeader)
		if ts == "" {
			return "missing timestamp header " + tsHeader
		}
		secs, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			return "timestamp header " + tsHeader + " is not unix seconds"
		}
		if d := now.Sub(time.Unix(secs, 0)); d > window || d < -window {
			return fmt.Sprintf("timestamp outside the replay window of %s", window)
		}
		mac.Write([]byte(ts + "."))
	}
	mac.Write(body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	if !hmac.Equal([]byte(strings.ToLower(strings.TrimSpace(sig))), []byte(want)) {
		return "signature mismatch"
	}
	return ""
}

// Sign is the harn-scheme signature of a delivery, for senders and
// tests: the value of X-Harn-Signature for body sent at ts.
func Sign(secret []byte, ts int64, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(strconv.FormatInt(ts, 10) + "."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
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
