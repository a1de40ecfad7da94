package main

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/trace"
)

// figuresCard is a card that states, right for the trace at tracePath,
// what goodput and cost are checked against: the window, and per SLO the
// qualified count, goodput and cost (nothing else: only these matter here).
func figuresCard(t *testing.T, tracePath string) *card.Card {
	t.Helper()
	tr, err := trace.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	s := criteria.SummaryOf(tr)
	c := &card.Card{Window: card.Window{Seconds: s.WindowS, Kind: card.FixedWindow}}
	for i, slo := range []float64{1, 0.5} {
		w := s.Conditions[i]
		c.Conditions = append(c.Conditions, card.Condition{SLO: card.Figure{Value: slo, Unit: "s"}, Qualified: int(w.Qualified),
			Goodput: card.Figure{Value: w.GoodputPerS, Unit: "合格次/s"}, CostPer1000: card.Figure{Value: *w.CostPer1000, Unit: "元/千次合格"}})
	}
	return c
}

// oneDigit is v rounded to one significant digit, and whether that is
// 10 % or more away from v.
func oneDigit(v float64) (float64, bool) {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 1, 64), 64)
	return r, math.Abs(r-v) >= 0.1*math.Abs(v)
}

// A learner of a released class of 16, handed in through a Canvas zip,
// computes goodput and cost right and writes them with one digit, 10 % or
// more off (the walk: 0.4 for 0.353, 0.2 for 0.176). The figure checks
// charge the rounding, with the rounding hint; the consistency checks
// pass: a rounding is charged once, as docs/instructors.md says. Before,
// hidden.goodput_consistency failed too, with "多半是合格数或窗口长度用错了".
func TestGradeCLIRoundingChargedOnceWhateverItsSize(t *testing.T) {
	var roster strings.Builder
	roster.WriteString("id,name,lms_id\n")
	for i := 1; i <= 16; i++ {
		fmt.Fprintf(&roster, "s%02d,Learner %d,10%02d\n", i, i, i)
	}
	c := newClassroom(t, roster.String(), nil)
	entries := map[string][]byte{}
	far := map[string]map[string]bool{} // learner → figure → 10 % off at one digit
	count := map[string]int{}
	for i := 1; i <= 16; i++ {
		id := fmt.Sprintf("s%02d", i)
		cd := figuresCard(t, filepath.Join(c.rel, id, "trace.jsonl"))
		far[id] = map[string]bool{}
		for j := range cd.Conditions {
			for fig, v := range map[string]*float64{"figures.goodput": &cd.Conditions[j].Goodput.Value, "figures.cost": &cd.Conditions[j].CostPer1000.Value} {
				r, off := oneDigit(*v)
				*v = r
				if off && !far[id][fig] {
					far[id][fig] = true
					count[fig]++
				}
			}
		}
		entries[fmt.Sprintf("learner%d_10%02d_50%02d_06-deliverable.ipynb", i, i, i)] = c.submit(t, id, cd)
	}
	if count["figures.goodput"] == 0 || count["figures.cost"] == 0 {
		t.Fatalf("premise: nobody's goodput or cost is 10 %% off at one digit: %v", count)
	}
	z := filepath.Join(c.dir, "canvas.zip")
	canvasZip(t, z, entries)
	out := filepath.Join(c.dir, "graded")
	if code, o, e := runCLI(t, "grade", "--quiet", "--key-file", c.key, "--roster", c.roster, "--out", out, z); code != 0 {
		t.Fatalf("grade: exit %d\n%s%s", code, o, e)
	}
	checked := map[string]int{}
	for _, s := range gradedSubs(t, out) {
		for fig, hidden := range map[string]string{"figures.goodput": "hidden.goodput_consistency", "figures.cost": "hidden.cost_consistency"} {
			if !far[s.Learner][fig] {
				continue
			}
			checked[fig]++
			if x, _ := s.Score(fig); x.Points == x.Max || !strings.Contains(x.Message, "只是取整太粗") {
				t.Errorf("%s: %s %v/%v %q, want it charged as a rounding", s.Learner, fig, x.Points, x.Max, x.Message)
			}
			if x, _ := s.Score(hidden); x.Points != x.Max {
				t.Errorf("%s: %s %v/%v %q: the rounding charged twice", s.Learner, hidden, x.Points, x.Max, x.Message)
			}
		}
	}
	if checked["figures.goodput"] != count["figures.goodput"] || checked["figures.cost"] != count["figures.cost"] {
		t.Errorf("graded %v of the rounded figures, want %v", checked, count)
	}
}
