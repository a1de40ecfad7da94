package labfig_test

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// rated is labRun with every complete success judged: pass, except the
// attempts named in fail.
func rated(name string, fail ...string) labfig.Run {
	r := labRun(name)
	for i := range r.Trace.Attempts {
		a := &r.Trace.Attempts[i]
		if a.Outcome == trace.OK {
			a.Quality = trace.Pass
			for _, f := range fail {
				if a.ID == f {
					a.Quality = trace.Fail
				}
			}
		}
	}
	return r
}

// Same load, same busy gauge, same successes; one wrong answer takes a
// qualified attempt out of its slice's goodput.
func TestLabGoodput(t *testing.T) {
	right, wrong := rated("答对"), rated("答错一次", "b")
	m := decoded(t, labfig.Goodput([]labfig.Run{right, wrong}, 1000, 1000, charts.WithID("g")))
	names := strings.Join(seriesNames(m), ",")
	if names != "答对 goodput,答对 完整成功,答对 设备忙碌率 %,答错一次 goodput,答错一次 完整成功,答错一次 设备忙碌率 %" {
		t.Fatalf("series %s", names)
	}
	// Slices of 1 s: a (TTFT 100) and b (200) in the first, c (800) in the
	// second, no success in the third.
	for i, want := range [][]any{{2.0, 1.0, 0.0}, nil, nil, {1.0, 1.0, 0.0}} {
		if want == nil {
			continue
		}
		pts := seriesPoints(t, m, i)
		for j, w := range want {
			if pts[j][0] != float64(j)+0.5 || pts[j][1] != w {
				t.Errorf("series %d point %d: %v, want (%v, %v)", i, j, pts[j], float64(j)+0.5, w)
			}
		}
	}
	for _, i := range []int{1, 4} { // complete successes per second: the same in both runs
		if pts := seriesPoints(t, m, i); pts[0][1] != 2.0 || pts[1][1] != 1.0 || pts[2][1] != 0.0 {
			t.Errorf("series %d: %v", i, pts)
		}
	}
	if pts := seriesPoints(t, m, 2); len(pts) != 4 || pts[1][1] != 97.0 {
		t.Errorf("busy %v", pts)
	}
	js := string(option(t, labfig.Goodput([]labfig.Run{right, wrong}, 1000, 1000, charts.WithID("g"))))
	for _, want := range []string{"答对：goodput 1 次/s，质量通过 3/3（100%）", "答错一次：goodput 0.67 次/s，质量通过 2/3", "窗口内忙碌率平均 98.5%"} {
		if !strings.Contains(js, want) {
			t.Errorf("subtitle lacks %q:\n%s", want, js)
		}
	}
	// With a TTFT SLO below c's 800 ms, c does not qualify either.
	m = decoded(t, labfig.Goodput([]labfig.Run{right}, 1000, 500, charts.WithID("g")))
	if pts := seriesPoints(t, m, 0); pts[1][1] != 0.0 {
		t.Errorf("500 ms SLO: %v", pts)
	}
}

// A real engine reports no busy gauge: no empty busy series, no busy axis,
// and the subtitle says why.
func TestLabGoodputWithoutGauge(t *testing.T) {
	right, wrong := rated("简单题"), rated("算术题", "b")
	right.Gauges, wrong.Gauges = nil, nil
	m := decoded(t, labfig.Goodput([]labfig.Run{right, wrong}, 1000, 1000, charts.WithID("g")))
	if names := strings.Join(seriesNames(m), ","); names != "简单题 goodput,简单题 完整成功,算术题 goodput,算术题 完整成功" {
		t.Fatalf("series %s", names)
	}
	js := string(option(t, labfig.Goodput([]labfig.Run{right, wrong}, 1000, 1000, charts.WithID("g"))))
	for _, want := range []string{"goodput 与完整成功", "服务器没有报告设备忙碌率"} {
		if !strings.Contains(js, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	if strings.Contains(js, "忙碌率（%）") {
		t.Error("a busy axis without a busy series")
	}
}
