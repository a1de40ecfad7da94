package capacity

import (
	"slices"
	"testing"
)

// step is a judged step of q qualified of n at rate, at target 0.9, with
// the machine's load average la over it.
func judged(rate float64, q, n int64, la float64) Step {
	s := Step{Rate: rate, Attempts: n, Qualified: q, LoadAvg: &LoadAvg{Start: la, End: la}}
	v, lo, hi, ok := Verdict(q, n, 0.9)
	s.Verdict = v
	if ok {
		s.CILow, s.CIHigh = &lo, &hi
	}
	return s
}

func searched(steps ...Step) *Result {
	r := &Result{Target: 0.9, SLOTTFTMS: 1000, Method: "wilson", StartRate: 1, MaxRate: 8, Growth: 2, Resolution: 1, Steps: steps}
	r.MaxRateMeeting = answer(steps)
	r.BoundedBy = boundedBy(steps, r.MaxRateMeeting, r.MaxRate)
	r.Undecided = undecided(steps, r.MaxRateMeeting)
	return r
}

func kinds(ag Agreement) []string {
	var k []string
	for _, w := range ag.Reasons {
		k = append(k, w.Kind)
	}
	return k
}

// Two searches with the same flags: the same answer, or each reason the
// records give for a different one, at the first rate judged differently.
func TestAgainSaysWhyAnswersDiffer(t *testing.T) {
	meets1, meets2, fails4 := judged(1, 40, 40, 1), judged(2, 60, 60, 1), judged(4, 20, 80, 1)
	for _, c := range []struct {
		name      string
		prev, cur *Result
		same      bool
		want      []string
		firstRate float64
	}{
		{"same answer", searched(meets1, meets2, fails4, judged(3, 59, 59, 1)), searched(meets1, meets2, fails4, judged(3, 58, 58, 2)), true, nil, 0},
		// 3 req/s: 38/40 is undecided at 0.9, 59/59 meets; the intervals overlap.
		{"within resolution, chance", searched(meets1, meets2, fails4, judged(3, 59, 59, 1)), searched(meets1, meets2, fails4, judged(3, 38, 40, 1)), false,
			[]string{WhyWithinResolution, WhyIntervalsOverlap, WhyUndecided}, 3},
		// 2 req/s: 60/60 meets then, 20/60 fails under a load average of 9.
		{"load average", searched(meets1, meets2, fails4, judged(3, 59, 59, 1)), searched(meets1, judged(2, 20, 60, 9), judged(1.5, 50, 50, 9)), false,
			[]string{WhyLoadAverage}, 2},
		{"unexplained", searched(meets1, meets2, fails4, judged(3, 59, 59, 1)), searched(meets1, judged(2, 20, 60, 1.5)), false, []string{WhyUnexplained}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			ag := Again(c.prev, c.cur)
			if ag.Same != c.same || !slices.Equal(kinds(ag), c.want) {
				t.Fatalf("same %v, reasons %v; want %v, %v (answers %v then %v)", ag.Same, kinds(ag), c.same, c.want, deref(ag.PreviousAnswer), deref(ag.Answer))
			}
			for _, w := range ag.Reasons {
				if w.Kind == WhyWithinResolution {
					continue
				}
				if w.Rate == nil || *w.Rate != c.firstRate || w.Previous == nil || w.This == nil || w.Previous.Verdict == w.This.Verdict {
					t.Errorf("%s: rate %v, steps %+v / %+v; want the first rate judged differently, %g", w.Kind, deref(w.Rate), w.Previous, w.This, c.firstRate)
				}
			}
		})
	}
	// Different flags, or an interrupted search, are reasons of their own.
	other := searched(meets1, meets2)
	other.Resolution, other.MaxRate = 0.5, 2
	other.BoundedBy = boundedBy(other.Steps, other.MaxRateMeeting, other.MaxRate)
	cut := searched(meets1)
	cut.Provisional, cut.BoundedBy = true, BoundInterrupted
	if ag := Again(searched(meets1, meets2, fails4), other); !slices.Contains(kinds(ag), WhyFlagsDiffer) || len(ag.Reasons[0].Flags) != 2 {
		t.Errorf("flags: %+v", ag.Reasons)
	}
	if ag := Again(searched(meets1, meets2, fails4), cut); !slices.Contains(kinds(ag), WhyInterrupted) {
		t.Errorf("interrupted: %+v", ag.Reasons)
	}
	// max_tokens sets the answers' length, and a judge adds a condition:
	// each is named as a changed condition, even beside the same answer.
	longer, judgedToo := searched(meets1, meets2, fails4), searched(meets1, meets2, fails4)
	longer.MaxTokens, judgedToo.QualityJudged = 64, true
	base := searched(meets1, meets2, fails4)
	base.MaxTokens = 16
	judgedToo.MaxTokens = 16
	for _, c := range []struct {
		cur  *Result
		want string
	}{{longer, "--max-tokens 16 vs 64"}, {judgedToo, "quality judged (--dataset) false vs true"}} {
		ag := Again(base, c.cur)
		if !ag.Same || len(ag.Reasons) != 1 || ag.Reasons[0].Kind != WhyFlagsDiffer || !slices.Equal(ag.Reasons[0].Flags, []string{c.want}) {
			t.Errorf("%s: same %v, reasons %+v", c.want, ag.Same, ag.Reasons)
		}
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// Undecided is not "no rate meets": a search whose every step stayed
// undecided and one in which a step failed have no rate meeting, but not
// the same answer, and the reason is named at the rate they judged
// differently. Before, Again called them "the same answer, no rate meets".
func TestAgainUndecidedIsNotNoRateMeets(t *testing.T) {
	undecided, failed := searched(judged(1, 10, 10, 0)), searched(judged(1, 0, 40, 0))
	if !undecided.Undecided || failed.Undecided {
		t.Fatalf("undecided %v, failed %v", undecided.Undecided, failed.Undecided)
	}
	for _, c := range [][2]*Result{{undecided, failed}, {failed, undecided}} {
		ag := Again(c[0], c[1])
		if ag.Same || !slices.Contains(kinds(ag), WhyUndecided) {
			t.Errorf("undecided %v then %v: same %v, reasons %v", c[0].Undecided, c[1].Undecided, ag.Same, kinds(ag))
		}
		if ag.PreviousBound == ag.Bound {
			t.Errorf("both bounded by %q", ag.Bound)
		}
	}
	if ag := Again(undecided, searched(judged(1, 10, 10, 0))); !ag.Same || ag.Bound != BoundUndecided {
		t.Errorf("undecided twice: same %v, bounded by %q", ag.Same, ag.Bound)
	}
}

// The same answer on different evidence: both searches found no rate
// meeting, but at 0.5 req/s one step failed (10 of 19) and the other
// stayed undecided (23 of 23, too few to meet 0.9). Again says the answer
// is the same and names the rate judged differently, not "the same
// answer" alone (walk 35h, item 3).
func TestAgainSameAnswerDifferentStepsSaysSo(t *testing.T) {
	prev := searched(judged(1, 20, 40, 1), judged(0.5, 10, 19, 1))
	cur := searched(judged(1, 20, 40, 1), judged(0.5, 23, 23, 1))
	if cur.Steps[1].Verdict != Undecided || prev.Steps[1].Verdict != Fails {
		t.Fatalf("fixture: %s then %s at 0.5 req/s", prev.Steps[1].Verdict, cur.Steps[1].Verdict)
	}
	ag := Again(prev, cur)
	if !ag.Same || !ag.StepsDiffer {
		t.Fatalf("same %v, steps differ %v; want the same answer (%s, %s) on different steps", ag.Same, ag.StepsDiffer, ag.PreviousBound, ag.Bound)
	}
	if len(ag.Reasons) == 0 || ag.Reasons[0].Rate == nil || *ag.Reasons[0].Rate != 0.5 || !slices.Contains(kinds(ag), WhyUndecided) {
		t.Errorf("reasons %v: want the 0.5 req/s step named, undecided among them", kinds(ag))
	}
	// Steps judged alike keep the plain same answer.
	if ag := Again(prev, prev); !ag.Same || ag.StepsDiffer || len(ag.Reasons) != 0 {
		t.Errorf("a search beside itself: same %v, steps differ %v, reasons %v", ag.Same, ag.StepsDiffer, kinds(ag))
	}
}
