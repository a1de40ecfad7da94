package grade

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A right card, graded from the notebook alone, gets every automatic
// point; its free text waits for a person and is not in the total.
func TestRightCardFullAutoScore(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"])))
	if !s.Gradable {
		t.Fatalf("ungradable: %s", s.Reason)
	}
	for _, x := range s.Scores {
		if !x.Pending && x.Points != x.Max {
			t.Errorf("%s: %v/%v (%s) %s", x.ID, x.Points, x.Max, x.Status, x.Message)
		}
	}
	if len(s.Manual) != 5 || s.Pending == 0 {
		t.Errorf("manual queue %d items, pending %v; want the 5 free-text answers", len(s.Manual), s.Pending)
	}
	if s.Total != s.Max-s.Pending {
		t.Errorf("total %v, max %v, pending %v", s.Total, s.Max, s.Pending)
	}
	if !s.IntegrityOK() || len(s.Integrity) != 0 {
		t.Errorf("integrity findings on an untouched notebook: %+v", s.Integrity)
	}
	if s.NBFormat != "4.5" {
		t.Errorf("nbformat %q", s.NBFormat)
	}
	for _, m := range s.Manual {
		if m.Keyword <= 0 || m.Keyword > 1 || m.Text == "" {
			t.Errorf("manual item %s: keyword assist %v, text %q", m.ID, m.Keyword, m.Text)
		}
	}
}

// The submitted verdict is never trusted: a payload whose report says
// "all passed" for a wrong card is recomputed, and the forgery reported.
func TestSubmittedVerdictIsRecomputed(t *testing.T) {
	f := newFixture(t, "alice")
	v := f.variants["alice"]
	right := correctCard(t, v)
	wrong := mistakenCard(t, v)
	// The payload carries the wrong card with the right card's report.
	p, err := card.MarshalPayload(wrong, card.Check(right, readTrace(t, v)), card.IdentifyBytes(assign.VariantTraceName, v))
	if err != nil {
		t.Fatal(err)
	}
	s := f.g.Grade("alice.ipynb", fill(t, f.nb["alice"], goLiteral(wrong), p))
	st := statuses(s)
	for _, id := range []string{"stated.attempts", "figures.failure_rate"} {
		if st[id] != "fail" {
			t.Errorf("%s: %s, want fail (recomputed)", id, st[id])
		}
	}
	if !hasFinding(s, integrity.FindReportMismatch) {
		t.Errorf("forged report not reported: %+v", s.Integrity)
	}
}

func hasFinding(s *grader.Submission, code string) bool {
	return slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == code })
}

// Typical mistakes lose the criteria they should, with partial credit
// where the numbers are partly right.
func TestMistakesAndPartialCredit(t *testing.T) {
	f := newFixture(t, "bob")
	s := f.g.Grade("bob.ipynb", f.submitted(t, "bob", mistakenCard(t, f.variants["bob"])))
	st := statuses(s)
	for _, id := range []string{"stated.attempts", "figures.failure_rate", "figures.qualified", "figures.qualified_rate", "figures.goodput", "figures.cost"} {
		if st[id] != "fail" {
			t.Errorf("%s: %s, want fail", id, st[id])
		}
	}
	for _, id := range []string{"figures.p95", "stated.samples", "map.steps", "hidden.samples_consistency"} {
		if st[id] != "pass" {
			t.Errorf("%s: %s, want pass", id, st[id])
		}
	}
	// Half the conditions right: half the points.
	for _, id := range []string{"figures.qualified", "figures.cost"} {
		x, _ := s.Score(id)
		if x.Points != x.Max/2 {
			t.Errorf("%s: %v/%v, want half (the 1 s condition is right)", id, x.Points, x.Max)
		}
	}
	for _, id := range []string{"figures.failure_rate", "hidden.goodput_consistency"} {
		if x, _ := s.Score(id); x.Points != 0 || x.Status != card.Fail {
			t.Errorf("%s: %v points (%s), want 0", id, x.Points, x.Status)
		}
	}
	if x, _ := s.Score("figures.goodput"); x.Points >= x.Max {
		t.Errorf("goodput per attempt: %v/%v", x.Points, x.Max)
	}
	if x, _ := s.Score("text.counter_evidence"); x.Pending || x.Status != card.Fail {
		t.Errorf("empty counter-evidence: %+v, want a final fail, not the manual queue", x)
	}
	if len(s.Manual) != 4 {
		t.Errorf("manual queue: %d, want 4 (the empty answer is not queued)", len(s.Manual))
	}
}

func TestPartialBands(t *testing.T) {
	f := newFixture(t, "alice")
	v := f.variants["alice"]
	c := correctCard(t, v)
	for i := range c.Conditions {
		x := &c.Conditions[i]
		x.QualifiedRate = card.Ratio{Num: x.QualifiedRate.Num * 10, Den: 100, Unit: x.QualifiedRate.Unit} // a percentage
	}
	c.P95.Value *= 1.05             // within 10 %: half
	c.Path.Steps = c.Path.Steps[:2] // two of four steps
	c.Path.SamplingPoint = "客户端接收"
	s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", c))
	for id, want := range map[string]float64{"figures.p95": 1, "figures.qualified_rate": 1, "map.steps": 1.25} {
		if x, _ := s.Score(id); math.Abs(x.Points-want) > 1e-9 {
			t.Errorf("%s: %v/%v, want %v", id, x.Points, x.Max, want)
		}
	}
}

// Cells reordered, split or inserted do not change the grade: the card and
// the self-check are found by metadata and id, not position.
func TestReadingIgnoresCellPositions(t *testing.T) {
	f := newFixture(t, "alice")
	base := f.submitted(t, "alice", correctCard(t, f.variants["alice"]))
	want := f.g.Grade("alice.ipynb", base)
	variants := map[string][]byte{
		"reversed": edit(t, base, func(_ map[string]any, cells []any) []any {
			slices.Reverse(cells)
			return cells
		}),
		"inserted": edit(t, base, func(_ map[string]any, cells []any) []any {
			extra := []any{
				map[string]any{"cell_type": "code", "id": "learner-1", "metadata": map[string]any{}, "source": "%%\nfmt.Println(\"scratch\")", "outputs": []any{}, "execution_count": nil},
				map[string]any{"cell_type": "markdown", "id": "learner-2", "metadata": map[string]any{}, "source": "我的笔记"},
			}
			return append(extra, append(cells, extra[0].(map[string]any), extra[1].(map[string]any))...)[:len(cells)+2]
		}),
		"split": edit(t, base, func(_ map[string]any, cells []any) []any {
			// A learner split a display cell in two; the new half has a new id.
			var out []any
			for _, c := range cells {
				out = append(out, c)
				m := c.(map[string]any)
				if m["id"] == "7009d75362a9" {
					out = append(out, map[string]any{"cell_type": "code", "id": "split-half", "metadata": map[string]any{}, "source": "// 下半部分", "outputs": []any{}, "execution_count": nil})
				}
			}
			return out
		}),
	}
	for name, nb := range variants {
		got := f.g.Grade("alice.ipynb", nb)
		if !got.Gradable || got.Total != want.Total || len(got.Integrity) != 0 {
			t.Errorf("%s: gradable %v, total %v (want %v), integrity %+v", name, got.Gradable, got.Total, want.Total, got.Integrity)
		}
	}
}

// Every variant keeps the unit's teaching structure with its own values.
func TestVariantStructure(t *testing.T) {
	seen := map[string]bool{}
	fps := map[criteria.Fingerprint]int{}
	for i := range 100 {
		id := "learner" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		b, err := assign.Variant(testKey, id)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := assign.Variant(testKey, id)
		if string(again) != string(b) {
			t.Fatalf("%s: variant not reproducible", id)
		}
		if seen[string(b)] {
			t.Fatalf("%s: same variant as another learner", id)
		}
		seen[string(b)] = true
		tr := readTrace(t, b)
		s := criteria.SummaryOf(tr)
		if s.Attempts != 10 || s.CompleteSuccess != 8 || s.Failures != 2 || s.InFlight != 0 || s.OutsideWindow != 0 || s.WindowS == 10 {
			t.Fatalf("%s: attempts %d, successes %d, failures %d, window %v s", id, s.Attempts, s.CompleteSuccess, s.Failures, s.WindowS)
		}
		var exact, justAbove, qualityFail, timeout, connect int
		for _, a := range tr.Attempts {
			ttft, ok := a.TTFT()
			switch {
			case a.Outcome == trace.Timeout && !ok:
				timeout++
			case a.Outcome == trace.ConnectError && !ok:
				connect++
			case a.Quality == trace.Fail:
				if ttft > 1000 {
					t.Errorf("%s: the quality failure should be under the SLO", id)
				}
				qualityFail++
			case ttft == 500:
				exact++
			case ttft > 1000 && ttft < 1400:
				justAbove++
			}
			if end, _ := a.E2E(); a.StartMS+end > tr.Header.Window.EndMS {
				t.Errorf("%s: %s ends after the window", id, a.ID)
			}
		}
		if exact != 1 || justAbove != 1 || qualityFail != 1 || timeout != 1 || connect != 1 {
			t.Fatalf("%s: exact-0.5s %d, just-above-1s %d, quality fail %d, timeout %d, connect %d", id, exact, justAbove, qualityFail, timeout, connect)
		}
		if q1, q05 := s.Conditions[0].Qualified, s.Conditions[1].Qualified; q05 < 2 || q05 >= q1 || q1 > 6 {
			t.Fatalf("%s: qualified %d at 1 s, %d at 0.5 s", id, q1, q05)
		}
		fps[criteria.TraceFingerprint(s)]++
	}
	// Copy detection relies on learners' key figures differing.
	worst := 0
	for _, n := range fps {
		worst = max(worst, n)
	}
	if len(fps) < 95 || worst > 2 {
		t.Errorf("%d distinct fingerprints in 100 variants, worst collision %d", len(fps), worst)
	}
	other, _ := assign.Variant([]byte("another-instructor-key-0123456789"), "learnera")
	if seen[string(other)] {
		t.Error("a different key gives the same variant")
	}
}

// The card states one success P95 and one failure rate (no SLO enters
// either): a wrong one costs its own figure's points once, and no other
// criterion, hidden ones included, charges it again. The grade's maximum
// is the same as a right card's.
func TestAWrongP95OrFailureRateIsChargedOnce(t *testing.T) {
	f := newFixture(t, "alice")
	v := f.variants["alice"]
	right := f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, v)))
	for name, m := range map[string]struct {
		mutate func(c *card.Card)
		id     string
	}{
		"P95":          {func(c *card.Card) { c.P95.Value *= 1.5 }, "figures.p95"},
		"failure rate": {func(c *card.Card) { c.FailureRate.Num++ }, "figures.failure_rate"},
	} {
		c := correctCard(t, v)
		m.mutate(c)
		wrong := f.g.Grade("alice.ipynb", f.submitted(t, "alice", c))
		if wrong.Max != right.Max {
			t.Errorf("%s: max %v, want %v as for a right card", name, wrong.Max, right.Max)
		}
		for _, x := range right.Scores {
			y, ok := wrong.Score(x.ID)
			if !ok {
				t.Errorf("%s: %s missing", name, x.ID)
				continue
			}
			switch {
			case x.ID == m.id:
				if x.Points != x.Max || y.Points != 0 || y.Status != card.Fail {
					t.Errorf("%s: %s right %v/%v, wrong %v (%s), want full then 0", name, x.ID, x.Points, x.Max, y.Points, y.Status)
				}
				if strings.Contains(y.Message, "门槛") {
					t.Errorf("%s: the message speaks of conditions, the card has one: %q", name, y.Message)
				}
			case name == "failure rate" && x.ID == "hidden.samples_consistency":
				// One failure more beside the same successes and attempts: the counts no longer add up.
			case y.Points != x.Points:
				t.Errorf("%s: %s charged too: %v, a right card %v (%s)", name, x.ID, y.Points, x.Points, y.Message)
			}
		}
		if x, _ := right.Score(m.id); name == "P95" && criteria.Round2(right.Total-wrong.Total) != x.Max {
			t.Errorf("P95: a wrong P95 cost %v points, want figures.p95's %v", criteria.Round2(right.Total-wrong.Total), x.Max)
		}
	}
}
