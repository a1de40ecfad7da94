package nb

import (
	"html"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func readUnit(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// englishCodes are what a learner must never read in a cell's output.
var englishCodes = []string{"timeout", "connect_error", "http_error", "stream_error", "cancelled", "in_flight",
	"qualified", "not_complete", "quality_fail", "quality_unrated", "ttft_over_slo", "true", "false", "pass", "fail", "unrated", "ok"}

func noEnglishCode(t *testing.T, what, s string) {
	t.Helper()
	low := strings.ToLower(s)
	for _, c := range englishCodes {
		if strings.Contains(low, c) {
			t.Errorf("%s shows the English code %q: %q", what, c, s)
		}
	}
}

func TestEveryOutcomeQualityAndVerdictHasChineseText(t *testing.T) {
	seen := map[string]trace.Outcome{}
	for _, o := range trace.Outcomes {
		s := OutcomeText(o)
		noEnglishCode(t, o.String(), s)
		if prev, dup := seen[s]; dup {
			t.Errorf("%v and %v both read %q", prev, o, s)
		}
		seen[s] = o
	}
	for _, q := range []trace.Quality{trace.Pass, trace.Fail, trace.Unrated} {
		noEnglishCode(t, q.String(), QualityText(q))
	}
	tr := readUnit(t)
	want := map[string]string{"R1": "合格", "R5": "否：质量", "R7": "否：时延（TTFT 1200 ms > 门槛 1000 ms）", "R9": "否：失败", "R10": "否：失败"}
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		got := VerdictText(a, 1000)
		noEnglishCode(t, a.ID, got)
		if w, ok := want[a.ID]; ok && got != w {
			t.Errorf("%s: %q, want %q", a.ID, got, w)
		}
	}
	if got := AttemptOutcome(&tr.Attempts[8]); got != "首字前超时" {
		t.Errorf("R9 timed out before its first output: %q", got)
	}
	late := tr.Attempts[0].Clone()
	late.Outcome = trace.Timeout
	if got := AttemptOutcome(&late); got != "首字后超时" {
		t.Errorf("a timeout after the first output: %q", got)
	}
}

func TestTextNeverPrintsEnglishBooleansOrZeroForMissing(t *testing.T) {
	for v, want := range map[any]string{true: "是", false: "否", 0.5: "0.5", 1720.0: "1720", 2: "2", "event": "event"} {
		if got := Text(v); got != want {
			t.Errorf("Text(%v) = %q, want %q", v, got, want)
		}
	}
	var missing *float64
	if Text(missing) != Missing || MS(missing) != Missing {
		t.Error("a nil latency must read 缺失")
	}
	v := 62.5
	if MS(&v) != "62.5 ms" || Num(1.0/3) != "0.333" {
		t.Errorf("MS %q, Num %q", MS(&v), Num(1.0/3))
	}
}

// stdout captures what f prints.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	f()
	os.Stdout = old
	w.Close()
	b, _ := io.ReadAll(r)
	return string(b)
}

func TestCompareReadsThePredictionBack(t *testing.T) {
	var ok bool
	out := stdout(t, func() { ok = Compare("合格数", 4, int64(4)) })
	if !ok || !strings.Contains(out, "你的预测 4，计算结果 4") || !strings.Contains(out, "一致") {
		t.Errorf("agreeing guess: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Compare("失败率会变吗", true, false) })
	if ok || !strings.Contains(out, "你的预测 是，计算结果 否") || !strings.Contains(out, "不一致") {
		t.Errorf("wrong guess: %v %q", ok, out)
	}
	noEnglishCode(t, "Compare", out)
	out = stdout(t, func() { ok = Compare("E2E 比 TTFT+ΣITL 多多少 ms", Unset, 50.0) })
	if ok || !strings.Contains(out, "还没有写预测") {
		t.Errorf("unset guess: %v %q", ok, out)
	}
	if !same(0.4, 0.4000001) || same(0.4, 0.5) {
		t.Error("numbers agree within 0.1 % and not beyond")
	}
}

func TestTablesKeepFailuresAndSpeakChinese(t *testing.T) {
	tr := readUnit(t)
	for name, df := range map[string]interface {
		Nrow() int
	}{"attempts": AttemptsTable(tr), "verdicts": VerdictTable(tr, 1000)} {
		if df.Nrow() != 10 {
			t.Errorf("%s: %d rows, want all 10 attempts", name, df.Nrow())
		}
	}
	for name, h := range map[string]string{"attempts": TableHTML(AttemptsTable(tr)), "verdicts": TableHTML(VerdictTable(tr, 500))} {
		for _, want := range []string{"首字前超时", "连接失败", Missing} {
			if !strings.Contains(h, want) {
				t.Errorf("%s table lacks %q", name, want)
			}
		}
		text := strings.NewReplacer("text-align", "", "border-collapse", "", "coursekit-table", "").Replace(h)
		for _, c := range []string{">ok<", ">timeout<", ">pass<", ">true<", ">qualified<", "ttft_over_slo"} {
			if strings.Contains(text, c) {
				t.Errorf("%s table shows %q", name, c)
			}
		}
	}
	if h := TableHTML(VerdictTable(tr, 500)); !strings.Contains(h, html.EscapeString("否：时延（TTFT 800 ms > 门槛 500 ms）")) {
		t.Error("R6 drops out at 500 ms for its TTFT")
	}
}
