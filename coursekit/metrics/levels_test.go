package metrics_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
)

func TestChosenPercentilesAreNearestRank(t *testing.T) {
	// 1000 successes with TTFT 1..1000 ms: nearest rank of P99.9 is the 999th.
	var b strings.Builder
	b.WriteString(`{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":100000}}` + "\n")
	for i := 1; i <= 1000; i++ {
		v := strconv.Itoa(i)
		b.WriteString(`{"attempt":"a` + v + `","start_ms":0,"outcome":"ok","events":[{"t_ms":` + v + `}],"end_ms":2000}` + "\n")
	}
	ps, err := metrics.ParseLevels("50,90,99,99.9")
	if err != nil {
		t.Fatal(err)
	}
	s, err := metrics.SummarizeReader(strings.NewReader(b.String()), "t.jsonl", metrics.Options{Levels: ps})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{500, 900, 990, 999}
	if len(s.TTFT.Chosen) != 4 {
		t.Fatalf("chosen levels: %+v", s.TTFT.Chosen)
	}
	for i, l := range s.TTFT.Chosen {
		if val(l.Value) != want[i] || l.P != ps[i] {
			t.Errorf("P%g = %v, want %v", l.P*100, val(l.Value), want[i])
		}
		// The interval is the same order-statistic interval as the fixed levels'.
		if fixed := s.TTFT.CI95.Level(l.P); fixed != nil && (val(fixed.Low) != val(l.CI95.Low) || val(fixed.High) != val(l.CI95.High)) {
			t.Errorf("P%g interval %+v, fixed level's %+v", l.P*100, l.CI95, *fixed)
		}
		if l.CI95.Low == nil || !(val(l.CI95.Low) <= want[i]) {
			t.Errorf("P%g interval %+v", l.P*100, l.CI95)
		}
	}
	for _, bad := range []string{"99.9.9", "0", "100.5", "100", "50,,90", "-1", "abc"} {
		if _, err := metrics.ParseLevels(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
