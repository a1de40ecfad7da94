package grade

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/feedback"
)

// A goodput computed right and written with one significant digit costs
// what the tolerance says (half of each condition off by more than 1 %),
// and the learner is told it is the rounding, with the tolerance, not sent
// back to the method (the walk: 0.0952 written 0.1, "它数的是窗口内合格的尝试…").
// A goodput computed the wrong way still gets the method hint.
func TestRoundedFigureIsBlamedOnTheRounding(t *testing.T) {
	ids := []string{"alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi"}
	f := newFixture(t, ids...)
	tried := 0
	for _, id := range ids {
		c := correctCard(t, f.variants[id])
		off, far := false, false
		for i := range c.Conditions {
			g := &c.Conditions[i].Goodput
			r, _ := strconv.ParseFloat(strconv.FormatFloat(g.Value, 'g', 1, 64), 64)
			off = off || math.Abs(r-g.Value) > 0.01*g.Value
			far = far || math.Abs(r-g.Value) > 0.1*g.Value
			g.Value = r
		}
		if !off || far {
			continue // one digit happens to be within 1 %, or beyond 10 %
		}
		tried++
		s := f.g.Grade(id+".ipynb", f.submitted(t, id, c))
		x, _ := s.Score("figures.goodput")
		if x.Points == x.Max || x.Points == 0 {
			t.Errorf("%s: %v/%v for a rounded goodput", id, x.Points, x.Max)
		}
		if !strings.Contains(x.Message, "取整") || !strings.Contains(x.Message, "1%") || strings.Contains(x.Message, "它数的是") {
			t.Errorf("%s: the hint for a rounded goodput: %s", id, x.Message)
		}
		if md := feedback.FeedbackMarkdown(s); !strings.Contains(md, "保留 3 位有效数字") {
			t.Errorf("%s: the feedback does not say how many digits to keep", id)
		}
	}
	if tried == 0 {
		t.Fatal("premise: no learner's goodput is off by more than 1 % at one digit")
	}
	s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", mistakenCard(t, f.variants["alice"])))
	if x, _ := s.Score("figures.goodput"); strings.Contains(x.Message, "取整") {
		t.Errorf("goodput per attempt is blamed on the rounding: %s", x.Message)
	}
}

// A rounding (or a slip of about 1 %) is charged once: the figure check
// gives its partial credit, and the hidden consistency checks (goodput =
// qualified / window, cost = window cost / qualified × 1000) pass within
// the figure checks' 10 % band (the walk: 0.3125 written 0.309 got
// figures.goodput 1.5 and hidden.goodput_consistency 0; 0.2 for 0.192
// lost 2.5 points). A goodput 20 % off still fails the consistency check,
// whose hint speaks of rounding.
func TestRoundingChargedOnce(t *testing.T) {
	ids := []string{"alice", "bob", "carol", "dave"}
	f := newFixture(t, ids...)
	for _, id := range ids {
		for _, k := range []float64{0.989, 1.011, 0.96} {
			c := correctCard(t, f.variants[id])
			for i := range c.Conditions {
				c.Conditions[i].Goodput.Value *= k
				c.Conditions[i].CostPer1000.Value *= k
			}
			s := f.g.Grade(id+".ipynb", f.submitted(t, id, c))
			fig, _ := s.Score("figures.goodput")
			if fig.Points == fig.Max || fig.Points == 0 {
				t.Errorf("%s ×%v: figures.goodput %v/%v, want partial credit", id, k, fig.Points, fig.Max)
			}
			for _, h := range []string{"hidden.goodput_consistency", "hidden.cost_consistency"} {
				if x, _ := s.Score(h); x.Points != x.Max {
					t.Errorf("%s ×%v: %s %v/%v (%s): a rounding charged twice", id, k, h, x.Points, x.Max, x.Message)
				}
			}
		}
		c := correctCard(t, f.variants[id])
		for i := range c.Conditions {
			c.Conditions[i].Goodput.Value *= 1.2
		}
		s := f.g.Grade(id+".ipynb", f.submitted(t, id, c))
		if x, _ := s.Score("hidden.goodput_consistency"); x.Points != 0 || !strings.Contains(x.Message, "四舍五入") || !strings.Contains(x.Message, "十分之一") {
			t.Errorf("%s: goodput 20 %% off: %v/%v %s", id, x.Points, x.Max, x.Message)
		}
	}
}

// A figure that is the right value rounded to the digits the learner wrote
// is a rounding however far that lands from the value (0.4 for 0.353 is
// 13 % off): the figure check charges it, with the rounding hint, and the
// consistency checks (goodput = qualified / window, cost = window cost /
// qualified × 1000) pass, so it is charged once. Before, past 10 % the
// consistency check failed too, saying "多半是合格数或窗口长度用错了" below
// a figure hint that said the method was right.
func TestRoundingChargedOnceWhateverItsSize(t *testing.T) {
	ids := []string{"alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy", "mallory", "oscar"}
	f := newFixture(t, ids...)
	tried := map[string]int{}
	for _, id := range ids {
		c := correctCard(t, f.variants[id])
		far := map[string]bool{}
		for i := range c.Conditions {
			for name, v := range map[string]*float64{"figures.goodput": &c.Conditions[i].Goodput.Value, "figures.cost": &c.Conditions[i].CostPer1000.Value} {
				r, _ := strconv.ParseFloat(strconv.FormatFloat(*v, 'g', 1, 64), 64)
				far[name] = far[name] || math.Abs(r-*v) >= 0.1*math.Abs(*v)
				*v = r
			}
		}
		s := f.g.Grade(id+".ipynb", f.submitted(t, id, c))
		for fig, hidden := range map[string]string{"figures.goodput": "hidden.goodput_consistency", "figures.cost": "hidden.cost_consistency"} {
			if !far[fig] {
				continue
			}
			tried[fig]++
			if x, _ := s.Score(fig); x.Points == x.Max || !strings.Contains(x.Message, "取整") {
				t.Errorf("%s: %s %v/%v %q, want it charged as a rounding", id, fig, x.Points, x.Max, x.Message)
			}
			if x, _ := s.Score(hidden); x.Points != x.Max {
				t.Errorf("%s: %s %v/%v (%s): a rounding of more than 10 %% charged twice", id, hidden, x.Points, x.Max, x.Message)
			}
		}
	}
	if tried["figures.goodput"] == 0 || tried["figures.cost"] == 0 {
		t.Fatalf("premise: no learner's goodput or cost is 10 %% off at one digit: %v", tried)
	}
}
