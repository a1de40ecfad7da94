package trace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/llmperf-course/course/coursekit/internal/jsonkeys"
)

// Conditions are the keys of a header's "conditions" that coursekit reads,
// with their types. Every other key is the measurement's free-form
// condition list (model, lengths, arrival process...), kept and shown as
// written. A header's conditions are decoded here and nowhere else
// (Header.ReadConditions), so that every reader of a key reads it the same
// way.
type Conditions struct {
	// SLO is the set of SLOs a bench run asks its card to use.
	SLO *SLOs `json:"slo,omitempty"`
	// Percentiles are the percentile levels (fractions) the card shows.
	Percentiles []float64 `json:"percentiles,omitempty"`
	// Dataset describes the prompts and their judging; present when a
	// judge was asked for.
	Dataset json.RawMessage `json:"dataset,omitempty"`
	// MetricsSidecar names the server-metrics file beside the trace.
	MetricsSidecar *string `json:"metrics_sidecar,omitempty"`
	// CaptureMS is where the capture ended, on the trace clock.
	CaptureMS *float64 `json:"capture_ms,omitempty"`
	// RunEnd is how a live run ended (see RunEnd).
	RunEnd *RunEnd `json:"run_end,omitempty"`
}

// SLOs is conditions.slo: the TTFT SLOs of the card's conditions and the
// per-attempt SLOs beside them (0: none), in milliseconds.
type SLOs struct {
	TTFTMS   []float64 `json:"slo_ttft_ms"`
	E2EMS    float64   `json:"slo_e2e_ms,omitempty"`
	ITLP95MS float64   `json:"slo_itl_p95_ms,omitempty"`
	TPOTMS   float64   `json:"slo_tpot_ms,omitempty"`
}

// conditionKeys are the decodings of the keys Conditions has, each with
// what a wrong value is told it should be.
var conditionKeys = []struct {
	key, want string
	field     func(c *Conditions) any
}{
	{"slo", `want {"slo_ttft_ms":[…],"slo_e2e_ms":…}`, func(c *Conditions) any { return &c.SLO }},
	{"percentiles", "want a list of fractions in (0, 1), e.g. [0.5, 0.999]", func(c *Conditions) any { return &c.Percentiles }},
	{"dataset", "", func(c *Conditions) any { return &c.Dataset }},
	{"metrics_sidecar", "want a file name beside the trace", func(c *Conditions) any { return &c.MetricsSidecar }},
	{"capture_ms", "want a time in ms", func(c *Conditions) any { return &c.CaptureMS }},
	{"run_end", `want {"reason":…,"at_ms":…,"planned_duration_ms":…,"planned_window":{…}}`, func(c *Conditions) any { return &c.RunEnd }},
}

// ReadConditions decodes the keys of the header's conditions that
// coursekit reads (Conditions), each into its type; conditions that are
// not an object have none of them. A key that matches one of them (or of
// their objects' keys) only when case is ignored is refused, with its
// path: encoding/json would read "SLO_TTFT_MS" as slo_ttft_ms, where
// Python, pandas and DuckDB see another key. The error is an *Error
// naming the key ("conditions.slo.SLO_TTFT_MS"), without a position: the
// reader locates it at FILE:1. Meaning beyond the type is checked where
// a key is used (run_end here, by Validate).
func (h *Header) ReadConditions() (Conditions, error) {
	var c Conditions
	raw := bytes.TrimSpace(h.Conditions)
	if len(raw) == 0 || raw[0] != '{' {
		return c, nil
	}
	if at, key, known, ok := jsonkeys.Folded(raw, reflect.TypeFor[Conditions](), "conditions"); ok {
		return c, fieldErr(at+"."+key, fmt.Sprintf("differs from the condition key %q only in case: other readers see only %q, so the header is refused", known, known))
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return c, fieldErr("conditions", "not a JSON object: "+shorten(err.Error()))
	}
	for _, k := range conditionKeys {
		v, ok := m[k.key]
		if !ok {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(v))
		d.DisallowUnknownFields()
		if err := d.Decode(k.field(&c)); err != nil {
			return c, fieldErr("conditions."+k.key, k.want+": "+shorten(err.Error()))
		}
	}
	return c, nil
}
