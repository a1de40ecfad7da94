package lab

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func readData(t *testing.T, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(coursekit.Data(name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The unit's 8 successes bound P95 from below only (the 6th of 8, 800 ms):
// no upper bound before n = 72. The practice trace bounds it on both sides.
func TestIntervalTableOnTheUnitsTraces(t *testing.T) {
	unit, practice := readData(t, "unit01/trace.jsonl"), readData(t, "unit01/practice.jsonl")
	v, ci, n := TTFTInterval(unit, 0.95)
	if n != 8 || v == nil || *v != 2000 || ci.High != nil || ci.NeedNHigh != 72 || ci.Low == nil || *ci.Low != 800 || ci.LowRank != 6 {
		t.Fatalf("unit P95 %v, interval %+v, n %d", v, ci, n)
	}
	rows := IntervalTable(0.95, []string{"本单元", "练习"}, unit, practice)
	if len(rows) != 3 || rows[1][0] != "本单元" || rows[1][1] != "8" || rows[1][3] != "[800 ms，无上界]（上界要 n ≥ 72）" || rows[1][4] != "第 6 个起，上面没有" {
		t.Fatalf("rows %q", rows)
	}
	if strings.Contains(rows[2][3], "无") || !strings.HasPrefix(rows[2][4], "第 ") || strings.Count(rows[2][3], ".") > 2 {
		t.Errorf("practice row %q: want a bounded, rounded interval", rows[2])
	}
}

// Cut after the first n successes, the practice trace's P95 has no upper
// bound below 72 and one from 72 on; the last point is the whole trace.
func TestPercentileByN(t *testing.T) {
	practice := readData(t, "unit01/practice.jsonl")
	pts := PercentileByN(practice, 0.95, 72, 8, 40, 100000)
	_, _, all := TTFTInterval(practice, 0.95)
	if len(pts) != 4 || pts[0].N != 8 || pts[1].N != 40 || pts[2].N != 72 || pts[3].N != all {
		t.Fatalf("points %+v (whole trace n = %d)", pts, all)
	}
	for _, p := range pts {
		if (p.N < 72) != (p.High == nil) || (p.N < 72) != (p.NeedNHigh == 72) || p.Value == nil || p.Low == nil {
			t.Errorf("n = %d: %+v", p.N, p)
		}
	}
}

// 10's interval table prints both kinds side by side: one comma style,
// full-width beside the Chinese words.
func TestIntervalTextUsesOneComma(t *testing.T) {
	lo, hi := 694.5, 790.6
	if got := IntervalText(metrics.Interval{Low: &lo, High: &hi}); !strings.HasPrefix(got, "[694.5 ms，790.6 ms]") {
		t.Errorf("IntervalText = %q, want [694.5 ms，790.6 ms]", got)
	}
	if got := IntervalText(metrics.Interval{Low: &lo}); !strings.HasPrefix(got, "[694.5 ms，无上界]") {
		t.Errorf("IntervalText = %q, want [694.5 ms，无上界]", got)
	}
}
