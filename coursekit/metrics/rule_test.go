package metrics_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// ruleCases are traces and options that reach every check of the rule:
// the unit trace and the practice trace (TTFT alone, two SLOs), and the
// SLO trace with latency SLOs, judged and not.
func ruleCases(t *testing.T) map[string]struct {
	tr   *trace.Trace
	opts metrics.Options
} {
	read := func(p string) *trace.Trace {
		tr, err := trace.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	slo := func(judged bool) *trace.Trace {
		tr, err := trace.Read(strings.NewReader(sloTrace(`{}`, judged)), "t.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	unit, practice := read("../../data/unit01/trace.jsonl"), read("../../data/unit01/practice.jsonl")
	return map[string]struct {
		tr   *trace.Trace
		opts metrics.Options
	}{
		"unit 1 s, 0.5 s":           {unit, metrics.Options{SLOsMS: []float64{1000, 500}}},
		"unit with E2E":             {unit, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 800}}},
		"practice 1 s, 0.5 s":       {practice, metrics.Options{SLOsMS: []float64{1000, 500}}},
		"practice with latency":     {practice, metrics.Options{SLOsMS: []float64{1000, 300}, Latency: metrics.LatencySLO{E2EMS: 1500, ITLP95MS: 60, TPOTMS: 40}}},
		"latency, not judged":       {slo(false), metrics.Options{SLOsMS: []float64{1000, 150}, Latency: jointSLO}},
		"latency, rated":            {slo(true), metrics.Options{SLOsMS: []float64{1000}, Latency: jointSLO}},
		"latency, judge asked for":  {slo(false), metrics.Options{SLOsMS: []float64{1000}, Latency: jointSLO, Judged: true}},
		"TTFT alone, nothing rated": {slo(false), metrics.Options{SLOsMS: []float64{1000, 150}}},
	}
}

// The rule a condition carries is the rule its counts were made with:
// judging every attempt in the window one by one with Condition.Rule gives
// the condition's qualified count and each drop reason's count, and the
// stages chain from all attempts down to the qualified.
func TestConditionRuleAgreesWithItsCounts(t *testing.T) {
	for name, c := range ruleCases(t) {
		s := metrics.Summarize(c.tr, c.opts)
		for i, cond := range s.Conditions {
			rule := cond.Rule()
			by := map[metrics.Reason]int64{}
			for j := range c.tr.Attempts {
				a := &c.tr.Attempts[j]
				if c.tr.Header.Window.Contains(a.StartMS) {
					by[rule.Judge(a).Reason]++
				}
			}
			d := cond.NotQualified
			want := map[metrics.Reason]int64{metrics.Qualified: cond.Qualified, metrics.NotComplete: d.NotComplete, metrics.QualityFail: d.QualityFail,
				metrics.QualityUnrated: d.QualityUnrated, metrics.TTFTOverSLO: d.TTFTOverSLO, metrics.E2EOverSLO: d.E2EOverSLO,
				metrics.ITLOverSLO: d.ITLOverSLO, metrics.TPOTOverSLO: d.TPOTOverSLO}
			for r, n := range want {
				if by[r] != n {
					t.Errorf("%s, condition %d: %d attempts judged %s by the condition's rule, the summary counts %d", name, i, by[r], r, n)
				}
			}
			st := s.Stages(i)
			if st[0].Kept != s.Attempts || st[len(st)-1].Kept != cond.Qualified {
				t.Errorf("%s, condition %d: stages %+v run from %d to %d attempts", name, i, st, s.Attempts, cond.Qualified)
			}
			for k := 1; k < len(st); k++ {
				if st[k].Kept != st[k-1].Kept-st[k].Dropped {
					t.Errorf("%s, condition %d: stage %s keeps %d of %d less %d", name, i, st[k].Check, st[k].Kept, st[k-1].Kept, st[k].Dropped)
				}
			}
			// Each stage drops the attempts whose verdict names its check.
			for _, x := range st[1:] {
				var n int64
				for j := range c.tr.Attempts {
					a := &c.tr.Attempts[j]
					if c.tr.Header.Window.Contains(a.StartMS) && rule.Judge(a).Check() == x.Check {
						n++
					}
				}
				if n != x.Dropped {
					t.Errorf("%s, condition %d: %d verdicts at check %s, the stage drops %d", name, i, n, x.Check, x.Dropped)
				}
			}
		}
	}
}

// metrics.Judge is RuleAt: the unit's rule, a condition with a TTFT SLO alone.
func TestJudgeIsTheTTFTConditionsRule(t *testing.T) {
	c := ruleCases(t)["unit 1 s, 0.5 s"]
	s := metrics.Summarize(c.tr, c.opts)
	for i, slo := range []float64{1000, 500} {
		if r := s.Conditions[i].Rule(); r != metrics.RuleAt(slo) {
			t.Errorf("condition at %g ms has rule %+v, want RuleAt %+v", slo, r, metrics.RuleAt(slo))
		}
	}
}

// A sweep SLO is judged exactly as a condition at that SLO would be, and
// leaves the conditions as they are; the other method's TTFT is the TTFT
// of a summary under that method.
func TestSweepAndOtherMethodAreTheConditionsAndDistOfOwnSummaries(t *testing.T) {
	sweep := []float64{50, 100, 150, 300, 500, 777, 1000, 2000, 5000}
	for name, c := range ruleCases(t) {
		plain := metrics.Summarize(c.tr, c.opts)
		o := c.opts
		o.SweepSLOsMS, o.OtherMethod = sweep, metrics.Linear
		s := metrics.Summarize(c.tr, o)
		if !reflect.DeepEqual(s.Conditions, plain.Conditions) {
			t.Errorf("%s: a sweep changed the conditions:\n%+v\n%+v", name, s.Conditions, plain.Conditions)
		}
		o2 := c.opts
		o2.SLOsMS = sweep
		each := metrics.Summarize(c.tr, o2)
		if !reflect.DeepEqual(s.Sweep, each.Conditions) {
			t.Errorf("%s: sweep\n%+v\nwant the conditions at the same SLOs\n%+v", name, s.Sweep, each.Conditions)
		}
		o3 := c.opts
		o3.Method = metrics.Linear
		lin := metrics.Summarize(c.tr, o3).TTFT
		lin.CI95 = nil
		got := *s.TTFTOther
		got.CI95 = nil
		if !reflect.DeepEqual(got, lin) {
			t.Errorf("%s: other method's TTFT %+v, want %+v", name, got, lin)
		}
	}
}

// A sweep of many SLOs over many candidates is a binary search each, not a
// pass over the candidates each.
func TestLatencySweepIsFast(t *testing.T) {
	h := `{"trace":"llm-serving/v1","clock":"client","window":{"start_ms":0,"end_ms":1000000}}`
	var b strings.Builder
	b.WriteString(h + "\n")
	for i := 0; i < 20000; i++ {
		start := float64(i * 50)
		ttft := 50 + float64(i%997)
		b.WriteString(`{"attempt":"A` + formatF(float64(i)) + `","start_ms":` + formatF(start) + `,"outcome":"ok","events":[{"t_ms":` + formatF(start+ttft) + `},{"t_ms":` + formatF(start+ttft+10) + `}],"end_ms":` + formatF(start+ttft+20) + `,"output_tokens":2}` + "\n")
	}
	tr, err := trace.Read(strings.NewReader(b.String()), "big.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var sweep []float64
	for v := 1.0; v < 1100; v += 1 {
		sweep = append(sweep, v)
	}
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 600}, SweepSLOsMS: sweep})
	if len(s.Sweep) != len(sweep) {
		t.Fatalf("%d sweep conditions, want %d", len(s.Sweep), len(sweep))
	}
	for i := 1; i < len(s.Sweep); i++ {
		if s.Sweep[i].Qualified < s.Sweep[i-1].Qualified {
			t.Fatalf("qualified falls as the SLO grows: %d at %g, %d at %g", s.Sweep[i-1].Qualified, sweep[i-1], s.Sweep[i].Qualified, sweep[i])
		}
	}
	if q := s.Sweep[len(sweep)-1].Qualified; q != 20000-countE2E(20000) {
		t.Errorf("qualified at the top of the sweep: %d", q)
	}
}

// countE2E counts the attempts of TestLatencySweepIsFast over E2E 600 ms
// (TTFT + 20 > 600).
func countE2E(n int) int64 {
	var c int64
	for i := 0; i < n; i++ {
		if 50+float64(i%997)+20 > 600 {
			c++
		}
	}
	return c
}

// A view that keeps an attempt's first event and its Measures judges it as
// the whole attempt is judged: JudgeMeasured of the cut copy is Judge of
// the attempt, under every rule of every case.
func TestJudgeMeasuredIsJudgeOfTheWholeAttempt(t *testing.T) {
	for name, c := range ruleCases(t) {
		s := metrics.Summarize(c.tr, c.opts)
		for _, cond := range s.Conditions {
			rule := cond.Rule()
			for j := range c.tr.Attempts {
				a := &c.tr.Attempts[j]
				cut := *a
				if len(a.Events) > 1 {
					cut.Events = a.Events[:1]
				}
				if got, want := rule.JudgeMeasured(&cut, metrics.Measure(a)), rule.Judge(a); got.Reason != want.Reason {
					t.Errorf("%s, %s: JudgeMeasured says %s, Judge %s", name, a.ID, got.Reason, want.Reason)
				}
			}
		}
	}
}
