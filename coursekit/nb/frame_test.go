package nb

import (
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func TestAttemptsFrameKeepsFailuresAndMissing(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	df := AttemptsFrame(tr)
	if df.Err != nil || df.Nrow() != 10 {
		t.Fatalf("rows %d, err %v", df.Nrow(), df.Err)
	}
	ttft := df.Col("ttft_ms").Float()
	if ttft[6] != 1200 || !math.IsNaN(ttft[8]) || !math.IsNaN(ttft[9]) {
		t.Fatalf("ttft column: %v", ttft)
	}
	if h := TableHTML(df); !strings.Contains(h, Missing) || !strings.Contains(h, "connect_error") {
		t.Fatal("the table must show R9/R10 with 缺失 TTFT")
	}
}

func TestAttemptsTableIsInChinese(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	df := AttemptsTable(tr)
	if df.Err != nil || df.Nrow() != 10 {
		t.Fatalf("rows %d, err %v", df.Nrow(), df.Err)
	}
	h := TableHTML(df)
	for _, want := range []string{"尝试", "结果", "完整成功", "首字前超时", "连接失败", ">通过<", ">不通过<", Missing} {
		if !strings.Contains(h, want) {
			t.Errorf("table lacks %q", want)
		}
	}
	// No English outcome or quality code in a value cell (the error text is the trace's own).
	for i := 0; i < df.Nrow(); i++ {
		for j := 0; j < df.Ncol()-1; j++ { // the last column is the trace's own error text
			v := df.Elem(i, j).String()
			for _, code := range []string{"ok", "timeout", "connect_error", "pass", "fail", "true", "false", "unrated"} {
				if v == code {
					t.Errorf("row %d col %d: %q", i, j, v)
				}
			}
		}
	}
	ttft := df.Col("首字时延 TTFT（ms）").Float()
	if ttft[6] != 1200 || !math.IsNaN(ttft[8]) {
		t.Errorf("ttft: %v", ttft)
	}
	// Text columns left, numbers right.
	if !strings.Contains(h, `<td style="text-align:left;padding:4px 6px;white-space:nowrap">R1</td>`) || !strings.Contains(h, `<td style="text-align:right;padding:4px 6px;white-space:nowrap">200</td>`) {
		t.Errorf("alignment:\n%s", h[:600])
	}
}

func TestAttemptsTableLeavesNoErrorBlank(t *testing.T) {
	tr, _ := trace.ReadFile("../../data/unit01/trace.jsonl")
	df := AttemptsTable(tr)
	if e := df.Col("错误信息（trace 原文）").Elem(0); e.IsNA() || e.String() != "" {
		t.Errorf("R1 has no error: want an empty cell, got NA=%v %q", e.IsNA(), e.String())
	}
	if e := df.Col("首字时延 TTFT（ms）").Elem(8); !e.IsNA() {
		t.Errorf("R9's TTFT is missing: %q", e.String())
	}
}

// A failure's E2E column never holds a number: R9 timed out after 2500 ms
// and R10 was refused after 3 ms, and neither is a latency. When they
// ended stays readable, as a time on the trace's clock.
func TestAttemptsTableShowsNoLatencyForAFailure(t *testing.T) {
	tr, _ := trace.ReadFile("../../data/unit01/trace.jsonl")
	df := AttemptsTable(tr)
	e2e, end := df.Col("端到端时延 E2E（ms）").Records(), df.Col("结束时刻（ms）").Float()
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Outcome == trace.OK {
			if v, _ := a.E2E(); e2e[i] != Num(v) {
				t.Errorf("%s: E2E %q, want %s", a.ID, e2e[i], Num(v))
			}
			continue
		}
		if e2e[i] != FailedE2E {
			t.Errorf("%s failed: its E2E cell reads %q, want %q", a.ID, e2e[i], FailedE2E)
		}
		if end[i] != a.EndMS {
			t.Errorf("%s: end %v, want %v", a.ID, end[i], a.EndMS)
		}
	}
	if !strings.Contains(TableHTML(df), FailedE2E) {
		t.Error("the table does not show the failed E2E label")
	}
}

// A failed attempt's error shows twice: what kind of error it is, in
// Chinese, and the trace's own text beside it, unchanged.
func TestAttemptsTableExplainsErrorsAndKeepsTheRawText(t *testing.T) {
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	df := AttemptsTable(tr)
	names := df.Names()
	if n := len(names); n < 2 || names[n-2] != "错误说明" || names[n-1] != "错误信息（trace 原文）" {
		t.Fatalf("columns %v: want 错误说明, then 错误信息（trace 原文）, last", names)
	}
	kind, raw := df.Col("错误说明").Records(), df.Col("错误信息（trace 原文）").Records()
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if raw[i] != a.Error {
			t.Errorf("%s: raw column %q, trace says %q", a.ID, raw[i], a.Error)
		}
		if (a.Error == "") != (kind[i] == "") {
			t.Errorf("%s: explanation %q for error %q", a.ID, kind[i], a.Error)
		}
	}
	if !strings.Contains(kind[8], "首字前超时") || !strings.Contains(kind[9], "连接被拒绝") {
		t.Errorf("R9 and R10: %q, %q", kind[8], kind[9])
	}
}

// 00's first table shows the missing TTFT as 缺失 and the others as
// numbers.
func TestExampleRequestsShowsTheMissingTTFT(t *testing.T) {
	df := ExampleRequests()
	if df.Err != nil || df.Nrow() != 3 {
		t.Fatalf("%d rows, %v", df.Nrow(), df.Err)
	}
	html := TableHTML(df)
	for _, want := range []string{"TTFT", "（毫秒）", "缺失", "180", "95"} {
		if !strings.Contains(html, want) {
			t.Errorf("the table lacks %q:\n%s", want, html)
		}
	}
}
