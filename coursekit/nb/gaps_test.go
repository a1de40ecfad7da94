package nb

import (
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

// Fig. 01.2's attempt: events at 700, 800 and 950 ms.
func TestGaps(t *testing.T) {
	a := trace.Attempt{Events: []trace.Event{{TMS: 700}, {TMS: 800}, {TMS: 950}}}
	if g := Gaps(a); !slices.Equal(g, []float64{100, 150}) || GapCount(a) != 2 || GapSum(a) != 250 {
		t.Errorf("gaps %v, count %d, sum %v", g, GapCount(a), GapSum(a))
	}
	if one := (trace.Attempt{Events: []trace.Event{{TMS: 1}}}); GapCount(one) != 0 || GapSum(one) != 0 {
		t.Error("one event has no gap")
	}
}

func TestNumTo(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{1234.6, 0, "1235"}, {2.857, 2, "2.86"}, {0.5, 0, "1"}, {7, 1, "7"}} {
		if got := NumTo(c.v, c.d); got != c.want {
			t.Errorf("NumTo(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}

// EventGapLines prints a trace's event gaps under their own name: with
// multi-token events they are no ITL, and the line says so without the
// learner cell reading a field named ITL.
func TestEventGapLinesNameTheGapsNotITL(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Window: trace.Window{StartMS: 0, EndMS: 10000}}, Attempts: []trace.Attempt{{
		ID: "R1", Outcome: trace.OK, StartMS: 0, HasEnd: true, EndMS: 500, OutputTokens: 5,
		Events: []trace.Event{{TMS: 100, Tokens: 1}, {TMS: 200, Tokens: 3}, {TMS: 400, Tokens: 1}},
	}}}
	got := EventGapLines(tr)
	for _, want := range []string{"事件 3 个，token 5 个；多 token 事件 1 个，单个事件最多 3 个 token", "事件间隔（不是 ITL）：P50 = 100 ms", "P95 = 200 ms", "n = 2 个间隔"} {
		if !strings.Contains(got, want) {
			t.Errorf("EventGapLines = %q; want %q in it", got, want)
		}
	}
}

// TPOTLines reads the card's TPOT: one request with 5 tokens from 100 to
// 400 ms has TPOT (400 − 100) ÷ 4 = 75 ms/token at every percentile.
func TestTPOTLinesReadTheCardsTPOT(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Window: trace.Window{StartMS: 0, EndMS: 10000}}, Attempts: []trace.Attempt{{
		ID: "R1", Outcome: trace.OK, StartMS: 0, HasEnd: true, EndMS: 500, OutputTokens: 5,
		Events: []trace.Event{{TMS: 100, Tokens: 1}, {TMS: 200, Tokens: 3}, {TMS: 400, Tokens: 1}},
	}}}
	got := TPOTLines(tr)
	if want := "TPOT：P50 = 75 ms/token，P95 = 75 ms/token，P99 = 75 ms/token（n = 1 个请求）\n"; got != want {
		t.Errorf("TPOTLines = %q; want %q", got, want)
	}
}

// TimingLines shows what a pause after the last event moves: E2E, not
// TTFT, the gaps or TPOT (notebook 02's exercise 2).
func TestTimingLinesShowWhatAPauseMoves(t *testing.T) {
	a := trace.Attempt{ID: "R1", Outcome: trace.OK, StartMS: 0, HasEnd: true, EndMS: 1000, OutputTokens: 3,
		Events: []trace.Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 1}, {TMS: 950, Tokens: 1}}}
	want := map[string]string{
		"before": "TTFT = 700 ms\n事件间隔 = 100 ms、150 ms\nE2E  = 1000 ms\nTPOT = 125 ms/token\n",
		"after":  "TTFT = 700 ms\n事件间隔 = 100 ms、150 ms\nE2E  = 1200 ms\nTPOT = 125 ms/token\n",
	}
	for name, got := range map[string]string{"before": TimingLines(a), "after": TimingLines(a.WithPause(3, 200))} {
		if got != want[name] {
			t.Errorf("%s: TimingLines = %q; want %q", name, got, want[name])
		}
	}
	failed := trace.Attempt{ID: "R9", Outcome: trace.ConnectError, StartMS: 0}
	if got := TimingLines(failed); !strings.Contains(got, "TTFT = 缺失") || !strings.Contains(got, "E2E  = 缺失") {
		t.Errorf("a failure without output shows its quantities as 缺失: %q", got)
	}
}
