package metrics_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// In flight at x: sent at or before x and not ended by x; an attempt with
// no end stays in flight; warm-up attempts count as well.
func TestInFlightAt(t *testing.T) {
	tr, err := trace.Read(strings.NewReader(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":100,"end_ms":3000}}
{"attempt":"w","start_ms":0,"outcome":"ok","http_status":200,"events":[{"t_ms":50}],"end_ms":200}
{"attempt":"a","start_ms":150,"outcome":"connect_error","end_ms":150.5}
{"attempt":"b","start_ms":200,"outcome":"ok","http_status":200,"events":[{"t_ms":300}],"end_ms":400}
{"attempt":"c","start_ms":250,"outcome":"in_flight"}
`), "f.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	got := metrics.InFlightAt(tr, []float64{-1, 0, 150, 150.5, 199.9, 200, 260, 400, 5000})
	want := []int{0, 1, 2, 1, 1, 1, 2, 1, 1}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// The streaming counter gives InFlightAt's counts, fed in any order and
// split over merged counters.
func TestInFlightCounterIsInFlightAt(t *testing.T) {
	tr := &trace.Trace{Attempts: []trace.Attempt{
		{StartMS: 0, HasEnd: true, EndMS: 100},
		{StartMS: 50, HasEnd: true, EndMS: 50},
		{StartMS: 50},
		{StartMS: 100, HasEnd: true, EndMS: 300},
		{StartMS: 400, HasEnd: true, EndMS: 1e308},
	}}
	at := []float64{300, 0, 50, 49.9, 100, 1000, 50, -1, 1.5e308}
	want := metrics.InFlightAt(tr, at)
	a, b := metrics.NewInFlightCounter(at), metrics.NewInFlightCounter(at)
	for i := len(tr.Attempts) - 1; i >= 0; i-- {
		if i%2 == 0 {
			a.Add(&tr.Attempts[i])
		} else {
			b.Add(&tr.Attempts[i])
		}
	}
	a.Merge(b)
	if got := a.Counts(); !slices.Equal(got, want) {
		t.Errorf("counter %v, InFlightAt %v", got, want)
	}
}
