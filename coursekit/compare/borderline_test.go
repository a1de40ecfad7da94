package compare_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
)

// A verdict that another seed flips is marked borderline under both
// seeds: its bound lies within the resampling's own Monte-Carlo error of
// 0. Over 40 seeds of a comparison whose TTFT P50 differs by about as much
// as the interval's half-width (few resamples, so flips are common), at
// least one verdict flips; a clear difference (TTFT ×1.5) is never
// borderline. The report says which verdicts are borderline.
func TestBorderlineMarksVerdictsASeedFlips(t *testing.T) {
	p := practice(t)
	near, far := stretchTTFT(p, 1.045), stretchTTFT(p, 1.5)
	verdicts := map[string]map[string][]uint64{} // metric → verdict → seeds
	borderline := map[string]map[uint64]bool{}
	for seed := uint64(1); seed <= 40; seed++ {
		o := compare.Options{Seed: seed, Resamples: 200}
		r, err := compare.Compare([]compare.Run{run(p, "a", o)}, []compare.Run{run(near, "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range r.Metrics {
			if verdicts[m.Name] == nil {
				verdicts[m.Name], borderline[m.Name] = map[string][]uint64{}, map[uint64]bool{}
			}
			verdicts[m.Name][m.Verdict] = append(verdicts[m.Name][m.Verdict], seed)
			borderline[m.Name][seed] = m.Borderline
		}
		if seed == 1 {
			var text bytes.Buffer
			if err := compare.Write(&text, r, cardfmt.Text, lang.EN); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text.String(), "Borderline") != slicesAny(r.Metrics) {
				t.Errorf("borderline metrics %v, and the report:\n%s", borderlineNames(r.Metrics), text.String())
			}
		}
		r, err = compare.Compare([]compare.Run{run(p, "a", o)}, []compare.Run{run(far, "b", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		if m := metric(t, r, "ttft_ms.p50"); m.Borderline || m.Verdict != compare.Worse {
			t.Errorf("seed %d: TTFT ×1.5 is %s, borderline %v", seed, m.Verdict, m.Borderline)
		}
	}
	flips := 0
	for name, vs := range verdicts {
		if len(vs) < 2 {
			continue
		}
		flips++
		for v, seeds := range vs {
			for _, s := range seeds {
				if !borderline[name][s] {
					t.Errorf("%s: %s under seed %d, not borderline, while other seeds give %v", name, v, s, vs)
				}
			}
		}
	}
	if flips == 0 {
		t.Errorf("no verdict flipped over 40 seeds: the fixture tests nothing (%v)", verdicts)
	}
}

func slicesAny(ms []compare.Metric) bool { return len(borderlineNames(ms)) > 0 }

func borderlineNames(ms []compare.Metric) []string {
	var out []string
	for _, m := range ms {
		if m.Borderline {
			out = append(out, m.Name)
		}
	}
	return out
}
