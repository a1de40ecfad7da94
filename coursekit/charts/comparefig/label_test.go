package comparefig_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/comparefig"
	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// A joint condition's row name is long: the walk saw it cut to
// "alified_rate@ttft1000ms+e2e3000ms (pp)". It is printed whole, wrapped
// before its "@", and the axis is given the room its longest line takes
// (about 7 px a column at the axis' 12 px font).
func TestForestLongRowNamesFit(t *testing.T) {
	p := charttest.UnitTrace(t, "practice.jsonl")
	o := compare.Options{Card: cardopts.Flags{TTFTMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 3000}}}
	run := func(name string) compare.Run {
		return compare.Run{Name: name, Summary: cardopts.MustSummarize(p, o.CardFlags(), cardopts.Resampling())}
	}
	r, err := compare.Compare([]compare.Run{run("a")}, []compare.Run{run("b")}, o)
	if err != nil {
		t.Fatal(err)
	}
	opt := charttest.Decoded(t, comparefig.Forest(r, charts.WithLang(lang.EN)))
	var widest int
	found := false
	for _, n := range opt["yAxis"].([]any)[0].(map[string]any)["data"].([]any) {
		s := n.(string)
		if strings.HasPrefix(s, "qualified_rate") {
			found = true
			if s != "qualified_rate\n@ttft1000ms+e2e3000ms (pp) · ~" {
				t.Errorf("row %q: want it whole, wrapped before @, with its verdict", s)
			}
		}
		for _, line := range strings.Split(s, "\n") {
			widest = max(widest, len([]rune(line)))
		}
	}
	if !found {
		t.Fatal("no qualified_rate row")
	}
	left, err := strconv.Atoi(opt["grid"].([]any)[0].(map[string]any)["left"].(string))
	if err != nil || left < 7*widest {
		t.Errorf("grid left %v (%v): the y axis needs ≥ %d px for %d columns", left, err, 7*widest, widest)
	}
}
