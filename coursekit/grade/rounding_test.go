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
