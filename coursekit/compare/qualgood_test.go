package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// wrongAnswers is failing(n, 0) with its first w answers judged wrong
// (quality fail): the same schedule and latencies, fewer qualified.
func wrongAnswers(n, w int) *trace.Trace {
	t := failing(n, 0)
	for i := range w {
		t.Attempts[i].Quality = trace.Fail
	}
	return t
}

// A server that answers 30 % wrong on an identical schedule: the qualified
// rate is worse, while goodput, whose interval also covers the arrival
// count's chance variation, may not separate. Then one note says why, in
// both languages; and every interval stays within what is possible (B's
// goodput never below 0, a share difference within [−1, 1]), with two
// runs a side whose Welch t has 1 degree of freedom.
func TestQualifiedAndGoodputVerdictsExplained(t *testing.T) {
	o := compare.Options{Resamples: 300}
	r, err := compare.Compare([]compare.Run{run(wrongAnswers(38, 0), "a.jsonl", o)}, []compare.Run{run(wrongAnswers(38, 6), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	q, g := metric(t, r, "qualified_rate@1000ms"), metric(t, r, "goodput@1000ms")
	if q.Verdict == g.Verdict {
		t.Fatalf("the case needs two verdicts: qualified %s, goodput %s", q.Verdict, g.Verdict)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "A qualified rate and the goodput of its SLO get different verdicts", lang.ZH: "同一个 SLO 的合格率与 goodput 结论不同"} {
		var b bytes.Buffer
		if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), want); n != 1 {
			t.Errorf("%s: the note %q appears %d times, want once:\n%s", l, want, n, b.String())
		}
	}
	// The same verdicts (A against itself): no note.
	same, err := compare.Compare([]compare.Run{run(wrongAnswers(38, 0), "a.jsonl", o)}, []compare.Run{run(wrongAnswers(38, 0), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := compare.Write(&b, same, cardfmt.Text, lang.EN); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "different verdicts") {
		t.Errorf("A/A: a note on different verdicts:\n%s", b.String())
	}

	// Two runs a side, B's goodput near 0 and spread: Welch's t with 1
	// degree of freedom reaches far below −A, and the interval keeps it:
	// the true A may exceed the observed one. Only a share difference is
	// clipped, to [−1, 1], and says so.
	two, err := compare.Compare(
		[]compare.Run{run(wrongAnswers(38, 2), "a1", o), run(wrongAnswers(38, 8), "a2", o)},
		[]compare.Run{run(wrongAnswers(38, 30), "b1", o), run(wrongAnswers(38, 37), "b2", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range two.Metrics {
		if m.CI95.Low == nil || m.CI95.High == nil {
			continue
		}
		lo, hi := *m.CI95.Low, *m.CI95.High
		if m.Unit == "share" && (lo < -1 || hi > 1) {
			t.Errorf("%s: share difference [%v, %v] beyond [−1, 1]", m.Name, lo, hi)
		}
		if m.Unit == "share" && (lo == -1 || hi == 1) != (len(m.Clipped) > 0) {
			t.Errorf("%s: share difference [%v, %v] with clipped %v", m.Name, lo, hi, m.Clipped)
		}
		if m.Unit != "share" && len(m.Clipped) > 0 {
			t.Errorf("%s: [%v, %v] clipped %v: only shares are clipped", m.Name, lo, hi, m.Clipped)
		}
	}
}

// The third fresh walk: several runs a side, goodput better and the
// qualified rate ~, and the note said goodput "separates less". The note
// says which one separated, and that the runs' attempt counts differ
// when they do; the walk's other case (qualified separates) keeps its
// wording.
func TestQualifiedGoodputNoteSaysWhichSeparated(t *testing.T) {
	o := compare.Options{Resamples: 300}
	var a, b []compare.Run
	for i, n := range []int{19, 20, 21} {
		a = append(a, run(failing(n, 0), "a"+string(rune('1'+i)), o))
		b = append(b, run(failing(2*n, 0), "b"+string(rune('1'+i)), o))
	}
	r, err := compare.Compare(a, b, o)
	if err != nil {
		t.Fatal(err)
	}
	q, g := metric(t, r, "qualified_rate@1000ms"), metric(t, r, "goodput@1000ms")
	if q.Verdict != compare.Same || g.Verdict != compare.Better {
		t.Fatalf("the case needs goodput better, qualified ~: qualified %s, goodput %s", q.Verdict, g.Verdict)
	}
	for l, c := range map[lang.Lang]struct{ want, not string }{
		lang.EN: {"here goodput separates and the qualified rate does not", "so it separates less"},
		lang.ZH: {"这里 goodput 分开了，合格率没有", "所以更难分开"},
	} {
		var buf bytes.Buffer
		if err := compare.Write(&buf, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		s := buf.String()
		arrivals := map[lang.Lang]string{lang.EN: "The runs' attempt counts differ (A: 19 · 20 · 21; B: 38 · 40 · 42)", lang.ZH: "各次运行的尝试数不同（A：19 · 20 · 21；B：38 · 40 · 42）"}[l]
		if !strings.Contains(s, c.want) || strings.Contains(s, c.not) || !strings.Contains(s, arrivals) {
			t.Errorf("%s: want %q and %q, not %q:\n%s", l, c.want, arrivals, c.not, s)
		}
	}
	// One run a side, qualified worse, goodput ~, the same attempt count:
	// the qualified rate separates; no word on attempt counts.
	one, err := compare.Compare([]compare.Run{run(wrongAnswers(38, 0), "a.jsonl", o)}, []compare.Run{run(wrongAnswers(38, 6), "b.jsonl", o)}, o)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := compare.Write(&buf, one, cardfmt.Text, lang.EN); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); !strings.Contains(s, "here the qualified rate separates and goodput does not") || strings.Contains(s, "attempt counts differ") {
		t.Errorf("qualified worse, goodput ~:\n%s", s)
	}
}
