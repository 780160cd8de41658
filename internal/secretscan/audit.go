package secretscan

import (
	"encoding/json"
	"time"
)

// Audit record constants (§5.2).
const (
	// AuditTopic is the event-log topic every scan is recorded on.
	AuditTopic = "audit.secret_scan"
	// CallerMCP is the caller recorded for the harn.secret_scan tool.
	CallerMCP = "mcp.harn.secret_scan"
	// KindClean and KindDetected are the event kinds of a scan without
	// and with findings.
	KindClean    = "scan_clean"
	KindDetected = "scan_detected"
)

// Audit is the payload of an audit.secret_scan event. It is built from
// the content's length and the findings only, so no raw secret can reach
// it.
type Audit struct {
	Caller       string         `json:"caller"`
	ContentLen   int            `json:"content_len"`
	FindingCount int            `json:"finding_count"`
	Clean        bool           `json:"clean"`
	Findings     []AuditFinding `json:"findings"`
	ObservedAt   string         `json:"observed_at"`
}

// AuditFinding is a finding as recorded in the audit log (the field
// order of §5.2).
type AuditFinding struct {
	Detector    string `json:"detector"`
	Source      string `json:"source"`
	Title       string `json:"title"`
	Line        int    `json:"line"`
	ColumnStart int    `json:"column_start"`
	ColumnEnd   int    `json:"column_end"`
	StartOffset int    `json:"start_offset"`
	EndOffset   int    `json:"end_offset"`
	Fingerprint string `json:"fingerprint"`
	Redacted    string `json:"redacted"`
}

// NewAudit records a scan by caller of contentLen bytes that produced
// findings, observed at the given time.
func NewAudit(caller string, contentLen int, findings []Finding, observedAt time.Time) Audit {
	a := Audit{
		Caller:       caller,
		ContentLen:   contentLen,
		FindingCount: len(findings),
		Clean:        len(findings) == 0,
		Findings:     make([]AuditFinding, 0, len(findings)),
		ObservedAt:   observedAt.UTC().Format(time.RFC3339Nano),
	}
	for _, f := range findings {
		a.Findings = append(a.Findings, AuditFinding{
			Detector: f.Detector, Source: f.Source, Title: f.Title,
			Line: f.Line, ColumnStart: f.ColumnStart, ColumnEnd: f.ColumnEnd,
			StartOffset: f.StartOffset, EndOffset: f.EndOffset,
			Fingerprint: f.Fingerprint, Redacted: f.Redacted,
		})
	}
	return a
}

// Kind is the event kind: KindClean or KindDetected.
func (a Audit) Kind() string {
	if a.Clean {
		return KindClean
	}
	return KindDetected
}

// Payload is the record as JSON, ready for the event log.
func (a Audit) Payload() json.RawMessage { return a.AppendJSON(nil) }
