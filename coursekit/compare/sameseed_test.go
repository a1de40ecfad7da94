package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Two open-loop runs of one side with one seed replay one arrival
// schedule: the walk saw "Seeds …: A 1, 1" and nothing else. compare warns
// in both languages; closed-loop runs, which draw no schedule from their
// seed, get no warning, and their seeds are not called replicate keys.
func TestRepeatedSeedWarns(t *testing.T) {
	o := compare.Options{Resamples: 200}
	mk := func(name, cond string, seed uint64) compare.Run {
		return run(withConditions(synth(load{n: 80, windowS: 10, ttftMS: 200, tokens: 8}, seed), cond), name, o)
	}
	open := func(seed string) string {
		return `{"loop":"open","arrival":"poisson","rate_per_s":8,"seed":` + seed + `}`
	}
	closed := func(seed string) string { return `{"loop":"closed","concurrency":4,"seed":` + seed + `}` }
	report := func(r *compare.Result, l lang.Lang) string {
		var b bytes.Buffer
		if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	r, err := compare.Compare([]compare.Run{mk("a1.jsonl", open("1"), 1), mk("a2.jsonl", open("1"), 2)},
		[]compare.Run{mk("b1.jsonl", open("1"), 3), mk("b2.jsonl", open("2"), 4)}, o)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, w := range r.Warnings {
		if w.Kind == compare.WarnSameSeed {
			n++
			if !strings.Contains(w.Text, "a1.jsonl, a2.jsonl share seed 1") {
				t.Errorf("same-seed warning %q does not name A's runs and their seed", w.Text)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d same-seed warnings, want 1 (A's runs share seed 1; B's differ): %v", n, r.Warnings)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "not independent replicates", lang.ZH: "不是相互独立的重复"} {
		if out := report(r, l); strings.Count(out, want) != 1 {
			t.Errorf("%s: want the same-seed warning once (%q):\n%s", l, want, out)
		}
	}

	c, err := compare.Compare([]compare.Run{mk("a1.jsonl", closed("1"), 1), mk("a2.jsonl", closed("1"), 2)},
		[]compare.Run{mk("b1.jsonl", closed("1"), 3), mk("b2.jsonl", closed("1"), 4)}, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range c.Warnings {
		if w.Kind == compare.WarnSameSeed {
			t.Errorf("closed loop: same-seed warning %q", w.Text)
		}
	}
	for l, not := range map[lang.Lang]string{lang.EN: "tell replicates apart, not", lang.ZH: "区分重复运行，不算条件"} {
		if out := report(c, l); strings.Contains(out, not) || strings.Contains(out, map[lang.Lang]string{lang.EN: "not independent", lang.ZH: "不是相互独立"}[l]) {
			t.Errorf("%s closed loop: seeds called replicate keys or warned of:\n%s", l, out)
		}
	}
}

// One open-loop run a side with one seed (walk 35f 6: `compare s1 s2` of
// two default-seed benches): a paired design, no warning, and the seeds
// line says why the shared seed is not one; sides with seeds of their own
// get no such clause.
func TestSeedSharedAcrossSidesIsPaired(t *testing.T) {
	o := compare.Options{Resamples: 200}
	mk := func(name, seed string, data uint64) compare.Run {
		return run(withConditions(synth(load{n: 80, windowS: 10, ttftMS: 200, tokens: 8}, data), `{"loop":"open","arrival":"poisson","rate_per_s":8,"seed":`+seed+`}`), name, o)
	}
	for _, c := range []struct {
		a, b   []compare.Run
		paired bool
	}{
		{[]compare.Run{mk("s1.jsonl", "1", 1)}, []compare.Run{mk("s2.jsonl", "1", 2)}, true},
		{[]compare.Run{mk("a1.jsonl", "1", 1), mk("a2.jsonl", "2", 2)}, []compare.Run{mk("b1.jsonl", "3", 3), mk("b2.jsonl", "4", 4)}, false},
	} {
		r, err := compare.Compare(c.a, c.b, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range r.Warnings {
			if w.Kind == compare.WarnSameSeed {
				t.Errorf("runs of different sides, or of their own seeds: same-seed warning %q", w.Text)
			}
		}
		for l, want := range map[lang.Lang]string{lang.EN: "A and B share seed 1: both sides send one arrival schedule, a paired design", lang.ZH: "A、B 两边共用种子 1：两边按同一张到达时刻表发送，是配对设计"} {
			var b bytes.Buffer
			if err := compare.Write(&b, r, cardfmt.Text, l); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), want); got != c.paired {
				t.Errorf("%s: says %q: %v, want %v:\n%s", l, want, got, c.paired, b.String())
			}
		}
	}
}
