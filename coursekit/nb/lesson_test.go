package nb

import (
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// 02's raw time points: the send, every event with its index (the same
// index WithPause and WithEventTokens take) and its tokens, and the end.
func TestEventTimesListsEveryPointInOrder(t *testing.T) {
	a := trace.Attempt{ID: "R1", StartMS: 0, Outcome: trace.OK, HasEnd: true, EndMS: 1000,
		Events: []trace.Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 3}, {TMS: 950, Tokens: 1}}}
	rows := EventTimes(a)
	want := [][]string{
		{"时刻（ms）", "发生了什么", "带几个 token"},
		{"0", "发出请求", ""},
		{"700", "事件 0", "1"},
		{"800", "事件 1", "3"},
		{"950", "事件 2", "1"},
		{"1000", "流结束", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("got %d rows, want %d: %v", len(rows), len(want), rows)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d: got %v, want %v", i, rows[i], want[i])
		}
	}
	// An attempt that never ended says so instead of showing an end time.
	open := trace.Attempt{ID: "R2", StartMS: 5, Outcome: trace.InFlight, Events: []trace.Event{{TMS: 40, Tokens: 1}}}
	rows = EventTimes(open)
	if rows[2][2] != "1" || rows[len(rows)-1][1] != "还没有结束（在途）" || rows[len(rows)-1][0] != Missing {
		t.Errorf("in-flight attempt: %v", rows)
	}
}

// A ratio as the plain number a learner compares with: 2 / 10 is 0.2, and
// a ratio with no denominator is not a number (NaN), never 0.
func TestValueIsTheRatioOrNaN(t *testing.T) {
	v := 0.2
	if got := Value(metrics.Ratio{Num: 2, Den: 10, Value: &v}); got != 0.2 {
		t.Errorf("2/10: %v", got)
	}
	if got := Value(metrics.Ratio{}); !math.IsNaN(got) {
		t.Errorf("no denominator: %v, want NaN", got)
	}
	tr := readUnit(t)
	wrong := metrics.Summarize(tr.WithoutFailures(), metrics.Options{})
	if got := Value(wrong.FailureRate); got != 0 {
		t.Errorf("03's error A (failures deleted) gives a failure rate of 0, got %v", got)
	}
}

// 04: each attempt judged at both thresholds, the ones whose verdict
// changed marked: on the unit's trace R6 (800 ms) leaves at 0.5 s, and R5
// fails on quality under both.
func TestVerdictsAtMarksWhoChanged(t *testing.T) {
	tr := readUnit(t)
	rows := VerdictsAt(tr, 1000, 500)
	if len(rows) != len(tr.Attempts)+1 || rows[0][1] != "门槛 1000 ms" || rows[0][2] != "门槛 500 ms" {
		t.Fatalf("header and one row per attempt: %v", rows)
	}
	changed := 0
	for _, r := range rows[1:] {
		if r[3] == "是" {
			changed++
			if r[0] != "R6" || r[1] != "合格" {
				t.Errorf("only R6 leaves: %v", r)
			}
		}
		if r[0] == "R5" && (r[1] != r[2] || !strings.Contains(r[1], "质量")) {
			t.Errorf("R5 fails on quality under both: %v", r)
		}
		noEnglishCode(t, "VerdictsAt", strings.Join(r, " "))
	}
	if changed != 1 {
		t.Errorf("%d changed, want 1 (R6)", changed)
	}
}

// 08: three answers to one arith question, judged by its own rule: the
// number passes, a number off by one and the right number in a sentence
// do not (exact means the number only).
func TestJudgedAnswersShowsTheRuleAtWork(t *testing.T) {
	ds := dataset.Arith(8, 3)
	rows := JudgedAnswers(ds.Items[0])
	right, ok := dataset.SolveArith(ds.Items[0].Prompt)
	if !ok || len(rows) != 4 {
		t.Fatalf("want a header and three answers: %v", rows)
	}
	want := []struct{ answer, pass string }{{Text(int(right)), "是"}, {Text(int(right + 1)), "否"}, {"答案是 " + Text(int(right)) + "。", "否"}}
	for i, w := range want {
		if rows[i+1][0] != w.answer || rows[i+1][1] != w.pass {
			t.Errorf("answer %d: got %v, want %v", i, rows[i+1], w)
		}
	}
	prompts := Prompts(ds, 3)
	if len(prompts) != 4 || prompts[1][0] != ds.Items[0].Ref || prompts[1][1] != ds.Items[0].Prompt {
		t.Errorf("prompts: %v", prompts)
	}
}
