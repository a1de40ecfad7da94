package nb

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// Funnel is 03's figure 01.4 from the trace and one threshold: the same
// chart as tracefig.Funnel of the trace's summary at that threshold.
func TestFunnelIsTheSummarysFunnelAtTheThreshold(t *testing.T) {
	unit := readUnit(t)
	want := tracefig.Funnel(metrics.Summarize(unit, metrics.Options{SLOsMS: []float64{1000}}), 0)
	got, err := json.Marshal(Funnel(unit, 1000).JSON())
	if err != nil {
		t.Fatal(err)
	}
	if w, _ := json.Marshal(want.JSON()); string(got) != string(w) {
		t.Error("Funnel(unit, 1000) is not tracefig.Funnel of the 1 s summary")
	}
}

// WindowCounts are 04's counts of the practice trace: attempts in and out
// of the window, requests and the retry amplification, in-flight attempts.
func TestWindowCountsOfThePracticeTrace(t *testing.T) {
	p := readPractice(t)
	s := metrics.Summarize(p, metrics.Options{})
	got := WindowCounts(p)
	for _, want := range []string{
		"窗口内尝试 " + Text(s.Attempts) + " 次；窗口外（预热与窗口之后）" + Text(s.OutsideWindow) + " 次",
		"重试放大 = " + Text(s.Attempts) + " ÷ " + Text(s.Requests) + " = " + Text(s.RetryAmplification),
		"在途尝试：" + Text(s.InFlight) + " 次",
		// 04's exercise 3c asks the failure rate with in-flight attempts
		// counted as failures or dropped: it needs the failures.
		"失败的尝试：" + Text(s.Failures) + " 次",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("WindowCounts = %q; want %q in it", got, want)
		}
	}
}

// The figures of 04's exercise 3c, as the ninth review computed them:
// in-flight counted as failures 113/1915, dropped 108/1910.
func TestWindowCountsAnswerExercise3c(t *testing.T) {
	s := metrics.Summarize(readPractice(t), metrics.Options{})
	if s.Failures+s.InFlight != 113 || s.Attempts != 1915 || s.Failures != 108 || s.Attempts-s.InFlight != 1910 {
		t.Errorf("failures %d, in flight %d, attempts %d", s.Failures, s.InFlight, s.Attempts)
	}
}

func TestMillisIsADurationInMilliseconds(t *testing.T) {
	if got := Millis(1500 * time.Millisecond); got != 1500 {
		t.Errorf("Millis(1.5 s) = %v, want 1500", got)
	}
}

// TableOr shows the table, or says in the cell why there is none; Skip
// says why a cell stops, and lets it run on when there is no error.
func TestTableOrAndSkipSayWhy(t *testing.T) {
	out := stdout(t, func() { TableOr(Rows{{"a"}}, errors.New("没有可比的两步")) })
	if !strings.Contains(out, "没有可比的两步") {
		t.Errorf("TableOr with an error printed %q; want the reason", out)
	}
	var skipped bool
	out = stdout(t, func() { skipped = Skip(errors.New("找不到引擎"), "跳过：本机没有可用的真实引擎。") })
	if !skipped || !strings.Contains(out, "跳过：本机没有可用的真实引擎。") || !strings.Contains(out, "原因：找不到引擎") {
		t.Errorf("Skip(err) = %v, printed %q; want true, the sentence and the reason", skipped, out)
	}
	out = stdout(t, func() { skipped = Skip(nil, "跳过") })
	if skipped || out != "" {
		t.Errorf("Skip(nil) = %v, printed %q; want false and nothing", skipped, out)
	}
}
