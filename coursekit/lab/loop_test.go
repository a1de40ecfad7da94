package lab

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Notebook 07's engine is what its text says (4 sequences a step, 32-token
// answers) and is overloaded by the planned 12 requests a second, not by
// the 6 of its exercise; notebook 08's engine is what 08 says.
func TestLabServersAreWhatTheNotebooksSay(t *testing.T) {
	c := LoopLabServer()
	if c.MaxBatch != 4 || c.DefaultMaxTokens != 32 || c.BusyWindow != 500*time.Millisecond {
		t.Errorf("07's engine: %+v", c)
	}
	if sat := SimSaturation(c, 32); sat <= 6 || sat >= 12 {
		t.Errorf("07's engine serves %.1f answers/s: 12/s should overload it, 6/s not", sat)
	}
	q := QualityLabServer(5)
	if q.MaxBatch != 4 || q.DecodeStep != 60*time.Millisecond || q.BusyWindow != 500*time.Millisecond || q.Seed != 5 {
		t.Errorf("08's engine: %+v", q)
	}
	l := Lab{Server: q}
	if o := l.WithOverloadWrongAnswers(0.5); o.Server.OverloadWrongAnswerRate != 0.5 || l.Server.OverloadWrongAnswerRate != 0 {
		t.Errorf("WithOverloadWrongAnswers: %v, and the lab it was called on %v", o.Server.OverloadWrongAnswerRate, l.Server.OverloadWrongAnswerRate)
	}
}

func unitRun(t *testing.T) *Run {
	t.Helper()
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return &Run{Label: "本单元", Trace: tr, Gauges: []labfig.Gauge{{TMS: 100, Busy: 0.1}, {TMS: 1000, Busy: 0.9, QueueDepth: 3}, {TMS: 5000, Busy: 1, QueueDepth: 7}}}
}

// 07's busy table: one row a run, the busy range from GaugeSettleMS on, the
// deepest queue, the P95 with its n and the failure rate over all attempts.
func TestBusyTable(t *testing.T) {
	r := unitRun(t)
	s := r.Summary()
	rows := BusyTable(r, &Run{Label: "没有仪表", Trace: r.Trace})
	want := [][]string{
		{"运行", "窗口内设备忙碌率", "最多排队", "成功 TTFT P95", "失败率"},
		{"本单元", "90%–100%", "7 个", "2000 ms（n = 8）", cardfmt.RatioText(s.FailureRate)},
		{"没有仪表", "没有读数", "0 个", "2000 ms（n = 8）", cardfmt.RatioText(s.FailureRate)},
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d: %q, want %q", i, rows[i], want[i])
		}
	}
}

// 07's vLLM table: three readings of one run side by side, each number
// from metrics.VLLMSummarize or the run's card.
func TestVLLMTable(t *testing.T) {
	r := unitRun(t)
	v := metrics.VLLMSummarize(r.Trace)
	rows := VLLMTable(r)
	if len(rows) != 7 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, row := range rows {
		if len(row) != 4 {
			t.Errorf("row %d has %d cells: %q", i, len(row), row)
		}
	}
	want := map[string][]string{
		"样本":       {"completed = 8", "10 个值", "尝试 10 次，完整成功 8 次"},
		"TTFT P50": {msText(v.TTFT.P50), msText(v.TTFTColumn.P50), msText(r.Summary().TTFT.P50)},
		"TTFT P95": {msText(v.TTFT.P95), msText(v.TTFTColumn.P95), "2000 ms"},
	}
	for _, row := range rows {
		if w, ok := want[row[0]]; ok && !slices.Equal(row[1:], w) {
			t.Errorf("%s: %q, want %q", row[0], row[1:], w)
		}
	}
	if got := rows[6][3]; got != "窗口 10 s：尝试 1.0 次/s，完整成功 0.8 次/s" {
		t.Errorf("per second, the card: %q", got)
	}
}

func TestLoadAllKeepsTheOrder(t *testing.T) {
	l := small(t)
	if _, err := l.LoadAll("none"); err == nil {
		t.Fatal("a run never made loads")
	}
	r := unitRun(t)
	for _, n := range []string{"b", "a"} {
		tp, rp, err := l.paths(n)
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile("../../data/unit01/trace.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(tp, b, 0o644); err != nil {
			t.Fatal(err)
		}
		run := *r
		run.Name, run.Label = n, "运行 "+n
		if err := save(&run, tp, rp); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := l.LoadAll("b", "a")
	if err != nil || len(runs) != 2 || runs[0].Label != "运行 b" || runs[1].Label != "运行 a" {
		t.Fatalf("%v %v", runs, err)
	}
}
