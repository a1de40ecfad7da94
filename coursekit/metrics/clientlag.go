package metrics

import (
	"bytes"
	"encoding/json"

	"github.com/llmperf-course/course/coursekit/trace"
)

// ClientLagBoundMS is the client wake-up lag above which the card notes
// that an attempt's stamps may be late: 5 ms, five times the client's
// whole TTFT error budget (make bench-client: p99 < 1 ms at 1,000 req/s).
const ClientLagBoundMS = 5.0

// ClientLagTickMS is how often coursekit bench's lateness probe wakes
// (loadgen.LatenessTick): its wake-up lag is how late past each tick it ran.
const ClientLagTickMS = 5

// SendLagBoundMS is the send lag (actual send − scheduled send) whose P99
// above it makes the card note that the load sent was not the planned
// arrival process: 10 ms, a tenth of a 10 req/s schedule's mean gap and
// ten times what an idle client's sends lag at 1,000 req/s (p99 < 1 ms).
const SendLagBoundMS = 10.0

// ClientLag is how late the measuring client itself was, from the attempts
// that record it (coursekit bench's meta.client_lag_ms: the largest
// wake-up lag of its lateness probe during the attempt). A loaded client
// machine stamps events late; these attempts' TTFT and gaps may be too
// long by up to their lag.
type ClientLag struct {
	// Attempts counts the in-window attempts that record a lag.
	Attempts int64 `json:"attempts"`
	// OverBound counts those whose lag was over BoundMS.
	OverBound int64   `json:"over_bound"`
	BoundMS   float64 `json:"bound_ms"`
	MaxMS     float64 `json:"max_ms"`
}

var clientLagKey = []byte(`"client_lag_ms"`)

type lagAcc struct {
	n, over int64
	max     float64
}

func (l *lagAcc) add(a *trace.Attempt) {
	if !bytes.Contains(a.Meta, clientLagKey) {
		return
	}
	var m struct {
		Lag *float64 `json:"client_lag_ms"`
	}
	if json.Unmarshal(a.Meta, &m) != nil || m.Lag == nil || !(*m.Lag >= 0) {
		return
	}
	l.n++
	l.max = max(l.max, *m.Lag)
	if *m.Lag > ClientLagBoundMS {
		l.over++
	}
}

func (l *lagAcc) merge(o *lagAcc) {
	l.n += o.n
	l.over += o.over
	l.max = max(l.max, o.max)
}

// summary is nil when no attempt recorded a lag.
func (l *lagAcc) summary() *ClientLag {
	if l.n == 0 {
		return nil
	}
	return &ClientLag{Attempts: l.n, OverBound: l.over, BoundMS: ClientLagBoundMS, MaxMS: l.max}
}
