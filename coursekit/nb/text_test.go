package nb

import (
	"html"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/internal/capture"
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
	v, w := 62.5, 10.808
	if MS(&v) != "62.5 ms" || MS(&w) != "10.8 ms" || Num(1.0/3) != "0.333" {
		t.Errorf("MS %q, Num %q", MS(&v), Num(1.0/3))
	}
}

// stdout captures what f prints.
func stdout(t *testing.T, f func()) string {
	t.Helper()
	out, err := capture.Stdout(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
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
	if ok || !strings.Contains(out, "你的预测 未填") || !strings.Contains(out, "请先把占位值改成你的答案") || strings.Contains(out, "50") {
		t.Errorf("unset guess: want the ask for a guess and no computed value: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Compare("测验", "?", "B") })
	if ok || !strings.Contains(out, "未填") {
		t.Errorf("unset text answer: %v %q", ok, out)
	}
	if got := List([]float64{100, 150}, "ms"); got != "100 ms、150 ms" {
		t.Errorf("List: %q", got)
	}
	if !Compare("测验", " b", "B") {
		t.Error("a text answer compares without case or spaces")
	}
	if !CompareWithin("到达率", 7.0, 7.5, 0.1) || CompareWithin("到达率", 6.0, 7.5, 0.1) {
		t.Error("CompareWithin: 7.0 is within 10 % of 7.5, 6.0 is not")
	}
	if !same(0.4, 0.4000001, 1e-3) || same(0.4, 0.5, 1e-3) {
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
	// One row per attempt, and the column says so in every table: 尝试.
	for name, df := range map[string]dataframe.DataFrame{"attempts": AttemptsTable(tr), "verdicts": VerdictTable(tr, 1000)} {
		if got := df.Names()[0]; got != "尝试" {
			t.Errorf("%s table: first column %q, want 尝试", name, got)
		}
	}
	if h := TableHTML(VerdictTable(tr, 500)); !strings.Contains(h, html.EscapeString("否：时延（TTFT 800 ms > 门槛 500 ms）")) {
		t.Error("R6 drops out at 500 ms for its TTFT")
	}
}

func TestConditionsTableKeepsTheHeaderOrder(t *testing.T) {
	tr := readUnit(t)
	df := ConditionsTable(tr)
	if df.Nrow() < 5 || df.Elem(0, 0).String() != "来源（source）" || df.Elem(1, 0).String() != "采集点（observation_point）" {
		t.Fatalf("conditions table:\n%v", df)
	}
	tr.Header.Conditions = nil
	if df := ConditionsTable(tr); df.Nrow() != 1 || df.Elem(0, 0).String() != "（没有记录）" {
		t.Fatalf("no conditions: %v", df)
	}
}

func TestCardTableShowsWhatTheCardSaysWithUnits(t *testing.T) {
	c := &card.Card{P95: card.Figure{Value: 2}, FailureRate: card.Ratio{Num: 2, Den: 10, Unit: "失败尝试/全部尝试"},
		Conditions: []card.Condition{
			{SLO: card.Figure{Value: 1, Unit: card.Seconds}, Qualified: 5},
			{SLO: card.Figure{Value: 0.5, Unit: card.Seconds}, Qualified: 3},
		}}
	h := TableHTML(CardTable(c))
	for _, want := range []string{"1 s", "2 （无单位）", "2 / 10（失败尝试/全部尝试）", ">5<", "0.5 s", ">3<", "同上（不随门槛变）"} {
		if !strings.Contains(h, want) {
			t.Errorf("card table lacks %q:\n%s", want, h)
		}
	}
	if n := strings.Count(h, "2 / 10"); n != 1 {
		t.Errorf("the card's one failure rate shows %d times, want once:\n%s", n, h)
	}
	if h := TableHTML(CardTable(&card.Card{})); !strings.Contains(h, "还没有填写门槛条件") {
		t.Errorf("blank card: %s", h)
	}
}
