package tracefig_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// An unrated trace (quality a condition, nothing judged): the funnel's
// last bar is not a bare 0 or blank (walk 35e) but says qualified is
// unknown (unrated), in both languages.
func TestFunnelLastBarSaysUnrated(t *testing.T) {
	var as []trace.Attempt
	for i := range 5 {
		st := float64(i) * 100
		as = append(as, trace.Attempt{ID: fmt.Sprint("a", i), StartMS: st, Outcome: trace.OK, Events: []trace.Event{{TMS: st + 50, Tokens: 1}}, HasEnd: true, EndMS: st + 90})
	}
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{EndMS: 1000}}, Attempts: as}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Conditions[0].Unknown == "" {
		t.Fatal("the condition is not unknown")
	}
	for _, c := range []struct {
		l    lang.Lang
		want string
	}{{lang.ZH, "联合合格无法计算（未评分）"}, {lang.EN, "qualified unknown (unrated)"}} {
		m := decoded(t, tracefig.Funnel(s, 0, charts.WithID("f"), charts.WithLang(c.l)))
		series := m["series"].([]any)
		kept := series[0].(map[string]any)["data"].([]any)
		dropped := series[1].(map[string]any)["data"].([]any)
		last := len(dropped) - 1
		label, _ := dropped[last].(map[string]any)["label"].(map[string]any)
		if label == nil || label["show"] != true || label["formatter"] != c.want {
			t.Errorf("%s: the last bar's label %v, want %q", c.l, label, c.want)
		}
		if kl := kept[last].(map[string]any)["label"].(map[string]any); kl["show"] != false {
			t.Errorf("%s: the last bar still shows a count: %v", c.l, kl)
		}
		if l0 := dropped[0].(map[string]any)["label"]; l0 != nil && strings.Contains(fmt.Sprint(l0), c.want) {
			t.Errorf("%s: another bar says unrated: %v", c.l, l0)
		}
	}
}
