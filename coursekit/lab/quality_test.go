package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The same arith load against a right and a wrong-on-purpose simulator:
// every answer is judged, the wrong run passes about 80 %, and its goodput
// falls by about as much; the helpers read it all from the traces.
func TestSameLoadWrongAnswers(t *testing.T) {
	l := small(t)
	load := ArithLoad(60, time.Second, 5*time.Second, 4)
	right, err := l.Run("right", "错答率 0", load)
	if err != nil {
		t.Fatal(err)
	}
	wrong, err := l.WithWrongAnswers(0.2).Run("wrong", "错答率 0.2", load)
	if err != nil {
		t.Fatal(err)
	}
	if l.Server.WrongAnswerRate != 0 {
		t.Fatal("WithWrongAnswers changed the lab it was called on")
	}
	rs, ws := right.Summary(1000), wrong.Summary(1000)
	if rs.UnratedSuccesses != 0 || ws.UnratedSuccesses != 0 || rs.CompleteSuccess < 30 || ws.CompleteSuccess < 30 {
		t.Fatalf("right %d ok (%d unrated), wrong %d ok (%d unrated)", rs.CompleteSuccess, rs.UnratedSuccesses, ws.CompleteSuccess, ws.UnratedSuccesses)
	}
	if *rs.QualityPassRate.Value != 1 || *ws.QualityPassRate.Value < 0.6 || *ws.QualityPassRate.Value > 0.95 {
		t.Errorf("pass rates %v and %v", *rs.QualityPassRate.Value, *ws.QualityPassRate.Value)
	}
	share, ok := GoodputShare(right, wrong, 1000)
	if !ok || share >= 1 || share < 0.5 {
		t.Errorf("goodput share %v %v", share, ok)
	}
	if _, ok := right.MeanBusy(); !ok {
		t.Error("no busy reading")
	}
	rep := wrong.QualityReport(1000)
	for _, want := range []string{"错答率 0.2", "质量通过率：", "goodput（TTFT ≤ 1000 ms）", "设备忙碌率平均"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	rows := QualityTable(1000, right, wrong)
	// 08's reading compares the complete successes and the failure rate of
	// the two rows: both are in the table.
	if len(rows) != 3 || rows[1][0] != "错答率 0" || rows[0][4] != "失败率" || rows[2][4] != cardfmt.RatioText(ws.FailureRate) || !strings.Contains(rows[2][5], "/") || !strings.HasSuffix(rows[2][6], " 次/s") {
		t.Errorf("table %q", rows)
	}
	// Saved and read back like any run.
	back, err := l.Load("wrong")
	if err != nil || back.Summary(1000).QualityPasses != ws.QualityPasses {
		t.Errorf("load: %v", err)
	}
	for _, a := range back.Trace.Attempts {
		if a.Outcome == trace.OK && a.Quality == trace.Unrated {
			t.Fatalf("%s unrated", a.ID)
		}
	}
}

func TestChangedBy(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		a, b *float64
		want bool
	}{{f(100), f(110), false}, {f(100), f(130), true}, {f(100), f(70), true}, {nil, nil, false}, {f(1), nil, true}} {
		if got := ChangedBy(c.a, c.b, 0.25); got != c.want {
			t.Errorf("ChangedBy(%v, %v) = %v", c.a, c.b, got)
		}
	}
	if _, ok := GoodputShare(&Run{Trace: &trace.Trace{Header: trace.Header{Clock: "client", Window: trace.Window{EndMS: 1000}}}}, nil, 1000); ok {
		t.Error("share of a zero goodput")
	}
}

func TestBusyApart(t *testing.T) {
	a := &Run{Trace: &trace.Trace{Header: trace.Header{Window: trace.Window{EndMS: 2000}}}, Gauges: []labfig.Gauge{{TMS: 500, Busy: 0.9}, {TMS: 1000, Busy: 0.7}}}
	b := &Run{Trace: a.Trace, Gauges: []labfig.Gauge{{TMS: 500, Busy: 0.95}}}
	if d, ok := BusyApart(a, b); !ok || d < 0.1499 || d > 0.1501 {
		t.Errorf("BusyApart = %v, %v; want 0.15", d, ok)
	}
	if _, ok := BusyApart(a, &Run{Trace: a.Trace}); ok {
		t.Error("a run without readings")
	}
}
