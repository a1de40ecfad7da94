package card

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/trace"
)

// MIMEType is the custom MIME type under which the self-check embeds the
// card in the notebook's output, for the grader to read without executing
// the notebook.
const MIMEType = "application/vnd.coursekit.card+json"

// PayloadSchema names the layout of Payload; it changes when a field's
// meaning or place does. v2 moved P95 and FailureRate from each condition
// to the card (payloadSchemaV1 is the old layout, refused by name).
const PayloadSchema = "coursekit.card/v2"

// payloadSchemaV1 is the layout before v2: a P95 and a failure rate in
// every condition. Read into today's Card it would lose both silently, so
// ParsePayload refuses it with ErrOldCardLayout.
const payloadSchemaV1 = "coursekit.card/v1"

// ErrOldCardLayout is ParsePayload's error for a v1 payload.
var ErrOldCardLayout = errors.New("card payload: schema " + payloadSchemaV1 + " is the old card layout (P95 and failure_rate inside each condition); since " + PayloadSchema + " they are the card's own fields, beside success_samples and attempts")

// TraceIdentity says which trace the card was checked against.
type TraceIdentity struct {
	// Path is the path the notebook passed, with forward slashes; an
	// absolute path is reduced to its base name so that no machine path
	// travels in a submission.
	Path string `json:"path"`
	// SHA256 is the hex digest of the trace file's bytes.
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// IdentifyBytes is the identity of a trace file read from path as b.
func IdentifyBytes(path string, b []byte) TraceIdentity {
	sum := sha256.Sum256(b)
	p := filepath.ToSlash(path)
	if filepath.IsAbs(path) {
		p = filepath.Base(path)
	}
	return TraceIdentity{Path: p, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b))}
}

// Payload is what a grader reads from a submitted notebook: the card as
// the learner wrote it, the self-check's report at submission time (not to
// be trusted: the grader recomputes it), the coursekit version and the
// trace the check ran on.
type Payload struct {
	Schema           string        `json:"schema"`
	CoursekitVersion string        `json:"coursekit_version"`
	Trace            TraceIdentity `json:"trace"`
	Card             *Card         `json:"card"`
	Report           Report        `json:"report"`
	// CheckedAt is when the self-check ran (UTC, RFC 3339): the notebook's
	// own time, by which a grader picks a learner's newest submission.
	CheckedAt string `json:"checked_at,omitempty"`
}

// NewPayload assembles the payload of a checked card, stamped now.
func NewPayload(c *Card, r Report, id TraceIdentity) Payload {
	if c == nil {
		c = &Card{}
	}
	return Payload{Schema: PayloadSchema, CoursekitVersion: coursekit.Version, Trace: id, Card: c, Report: r,
		CheckedAt: time.Now().UTC().Format(time.RFC3339)}
}

// MarshalPayload is the JSON the self-check embeds under MIMEType. It fails
// only for numbers JSON cannot hold (NaN, ±Inf), naming the field.
func MarshalPayload(c *Card, r Report, id TraceIdentity) ([]byte, error) {
	if err := c.finiteNumbers(); err != nil {
		return nil, err
	}
	return json.Marshal(NewPayload(c, r, id))
}

// finiteNumbers reports the first number JSON cannot hold.
func (c *Card) finiteNumbers() error {
	if c == nil {
		return nil
	}
	check := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("card: %s is %v; JSON has no such number", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"window.seconds", c.Window.Seconds}, {"p95.value", c.P95.Value},
		{"failure_rate.num", c.FailureRate.Num}, {"failure_rate.den", c.FailureRate.Den},
	} {
		if err := check(f.name, f.v); err != nil {
			return err
		}
	}
	for i, x := range c.Conditions {
		for _, f := range []struct {
			name string
			v    float64
		}{
			{"slo.value", x.SLO.Value},
			{"qualified_rate.num", x.QualifiedRate.Num}, {"qualified_rate.den", x.QualifiedRate.Den},
			{"goodput.value", x.Goodput.Value}, {"cost_per_1000_qualified.value", x.CostPer1000.Value},
		} {
			if err := check(fmt.Sprintf("conditions[%d].%s", i, f.name), f.v); err != nil {
				return err
			}
		}
	}
	return nil
}

// ParsePayload reads a payload as a notebook stores it: the JSON object
// itself, a JSON string holding it (GoNB sends display data as text), or
// nbformat's list of string pieces.
func ParsePayload(raw []byte) (*Payload, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, errors.New("card payload: empty")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("card payload: %w", err)
		}
		raw = []byte(s)
	case '[':
		var parts []string
		if err := json.Unmarshal(raw, &parts); err != nil {
			return nil, fmt.Errorf("card payload: %w", err)
		}
		var b bytes.Buffer
		for _, p := range parts {
			b.WriteString(p)
		}
		raw = b.Bytes()
	}
	var p Payload
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("card payload: %w", err)
	}
	if p.Schema == payloadSchemaV1 {
		return nil, ErrOldCardLayout
	}
	if p.Schema != PayloadSchema {
		return nil, fmt.Errorf("card payload: schema %q, want %q", p.Schema, PayloadSchema)
	}
	if p.Card == nil {
		return nil, errors.New("card payload: no card")
	}
	return &p, nil
}

// CheckFile reads the trace at path once, checks c against it and returns
// the report with the trace's identity. A trace that cannot be read gives
// a report whose rows all fail, and the error.
func CheckFile(c *Card, path string) (Report, TraceIdentity, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		shown := IdentifyBytes(path, nil).Path // no machine path in the report
		r := Check(c, nil)
		r.Error = "读不到 trace 文件“" + shown + "”"
		if errors.Is(err, fs.ErrNotExist) {
			r.Error += "：文件不存在，检查路径是否相对于这本笔记所在的目录。"
		} else {
			r.Error += "。"
		}
		return r, TraceIdentity{Path: shown}, err
	}
	id := IdentifyBytes(path, b)
	t, err := trace.Read(bytes.NewReader(b), id.Path)
	if err != nil {
		r := Check(c, nil)
		r.Error = "trace 文件格式有误：" + err.Error()
		return r, id, err
	}
	return Check(c, t), id, nil
}
