package capacity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// SimBusyCounter is the simulator's busy-seconds counter on /metrics, the
// default busy reading: its rate over a step's window is the share of
// exactly that window during which a batch was executing.
const SimBusyCounter = "sim_device_busy_seconds_total"

// SimBusyGauge is the simulator's busy gauge, a trailing average over its
// BusyWindow: read during a step, it still remembers the step before.
const SimBusyGauge = "sim_device_busy_ratio"

// busyEvery is how often /metrics is read during a step.
const busyEvery = 250 * time.Millisecond

// How a step's busy figure was computed.
const (
	BusyCounterRate = "counter_rate" // Δcounter / Δt between the first and last read in the window
	BusyGaugeMean   = "gauge_mean"   // mean of the gauge's reads in the window
)

// isCounter says whether a metric is read as a counter of busy seconds:
// by the Prometheus naming convention, counters end in _total.
func isCounter(name string) bool { return strings.HasSuffix(name, "_total") }

// busyReading is the busy figure of one step.
type busyReading struct {
	mean, max *float64
	reads     int
	method    string
}

// busyOver computes the busy figure of name over [fromMS, toMS] on the run
// clock from a step's scrapes. A scrape's value is placed at the middle of
// its GET. A counter (name ending _total, in seconds) gives its rate
// between the first and last read in the window, and the highest rate
// between two consecutive reads; a gauge gives the mean and max of its
// reads. Failed scrapes, reads outside the window and a counter that went
// back (a server restart) are not used; with too few reads the figures are
// nil.
func busyOver(scrapes []loadgen.Scrape, name string, fromMS, toMS float64) busyReading {
	type pt struct{ t, v float64 }
	var pts []pt
	for _, s := range scrapes {
		v, ok := s.Values[name]
		t := s.TMS + s.DurMS/2
		if s.Error != "" || !ok || t < fromMS || t > toMS || math.IsNaN(v) {
			continue
		}
		pts = append(pts, pt{t, v})
	}
	r := busyReading{method: BusyGaugeMean, reads: len(pts)}
	if isCounter(name) {
		r.method = BusyCounterRate
		if len(pts) < 2 {
			return busyReading{method: r.method, reads: len(pts)}
		}
		first, last := pts[0], pts[len(pts)-1]
		if last.v < first.v || last.t <= first.t {
			return busyReading{method: r.method, reads: len(pts)}
		}
		hi := 0.0
		for i := 1; i < len(pts); i++ {
			if dt := pts[i].t - pts[i-1].t; dt > 0 {
				hi = max(hi, (pts[i].v-pts[i-1].v)/(dt/1e3))
			}
		}
		m := (last.v - first.v) / ((last.t - first.t) / 1e3)
		r.mean, r.max = &m, &hi
		return r
	}
	if len(pts) == 0 {
		return r
	}
	sum, hi := 0.0, pts[0].v
	for _, p := range pts {
		sum += p.v
		hi = max(hi, p.v)
	}
	m := sum / float64(len(pts))
	r.mean, r.max = &m, &hi
	return r
}

// parseScrapes reads the JSON lines of a metrics sidecar.
func parseScrapes(b []byte) ([]loadgen.Scrape, error) {
	var out []loadgen.Scrape
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var s loadgen.Scrape
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return nil, fmt.Errorf("metrics sidecar line %d: %w", line, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// BusyShown is a busy share as the outputs show it, at most 1. The busy
// counter's rate divides the server's busy seconds (its clock) by the
// window between two scrapes (the client's clock, and each scrape lands
// a little after its tick), so a device busy throughout can read 105 %:
// more than the whole window, which no device is. The JSON keeps the
// reading as measured; text, tables and charts clamp it.
func BusyShown(v float64) float64 { return min(v, 1) }
