package cardfmt_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func f64(v float64) *float64 { return &v }

func card(t *testing.T, tr *trace.Trace, f cardfmt.Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := cardfmt.Write(&b, metrics.Summarize(tr, metrics.Options{}), "t.jsonl", f); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func cardIn(t *testing.T, tr *trace.Trace, f cardfmt.Format, l lang.Lang) string {
	t.Helper()
	return summaryCardIn(t, metrics.Summarize(tr, metrics.Options{}), f, l)
}

// summaryCardIn is the card of s in format f and language l.
func summaryCardIn(t *testing.T, s *metrics.Summary, f cardfmt.Format, l lang.Lang) string {
	t.Helper()
	var b bytes.Buffer
	if err := cardfmt.WriteLang(&b, s, "t.jsonl", f, l); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func ok(id string, start float64, q trace.Quality) trace.Attempt {
	return trace.Attempt{ID: id, StartMS: start, Outcome: trace.OK, Events: []trace.Event{{TMS: start + 100, Tokens: 1}}, EndMS: start + 200, HasEnd: true, Quality: q}
}

// An interrupted run says so before any number, in Chinese, with the
// planned duration, the real window and the in-flight count.
func TestCutShortNote(t *testing.T) {
	h := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 20000}}
	h, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(3000), PlannedDurationMS: 20000, PlannedWindow: h.Window})
	if err != nil {
		t.Fatal(err)
	}
	tr := &trace.Trace{Header: h, Attempts: []trace.Attempt{
		ok("a", 10, trace.Pass),
		{ID: "b", StartMS: 2900, Outcome: trace.InFlight, Events: []trace.Event{{TMS: 2950, Tokens: 1}}},
		{ID: "c", StartMS: 2990, Outcome: trace.InFlight},
	}}
	for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
		out := card(t, tr, f)
		for _, want := range []string{"被提前中断了（第 3 s）", "计划测量 20 s（计划窗口 [0, 20000) ms）", "按 3 s 计", "2 次尝试记为在途，不算失败"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s card lacks %q:\n%s", f, want, out)
			}
		}
		if i, j := strings.Index(out, "被提前中断"), strings.Index(out, "失败率"); i < 0 || i > j {
			t.Errorf("%s: the note does not come before the numbers", f)
		}
	}
	if out := card(t, tr, cardfmt.Text); !strings.Contains(out, "失败：0") || !strings.Contains(out, "在途：2") {
		t.Errorf("in-flight attempts counted as failures:\n%s", out)
	}

	// A trace whose run never finished writing.
	h2 := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 20000}}
	h2, _ = h2.WithRunEnd(trace.RunEnd{Reason: trace.RunNotFinished, PlannedDurationMS: 20000, PlannedWindow: h2.Window})
	if out := card(t, &trace.Trace{Header: h2}, cardfmt.Text); !strings.Contains(out, "运行未结束") {
		t.Errorf("not-finished note missing:\n%s", out)
	}
	// Interrupted during the warm-up, and after the window.
	h3 := trace.Header{Clock: "client", Window: trace.Window{StartMS: 5000, EndMS: 25000}}
	w, _ := h3.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(1000), PlannedDurationMS: 20000, PlannedWindow: h3.Window})
	if out := card(t, &trace.Trace{Header: w}, cardfmt.Text); !strings.Contains(out, "在预热阶段就被中断了（第 1 s）") {
		t.Errorf("warm-up note missing:\n%s", out)
	}
	d, _ := h3.WithRunEnd(trace.RunEnd{Reason: trace.RunInterrupted, AtMS: f64(26000), PlannedDurationMS: 20000, PlannedWindow: h3.Window})
	if out := card(t, &trace.Trace{Header: d}, cardfmt.Text); !strings.Contains(out, "窗口是完整的") || strings.Contains(out, "提前中断") {
		t.Errorf("drain note wrong:\n%s", out)
	}
	// A completed run and a trace without run_end carry no note.
	c, _ := h3.WithRunEnd(trace.RunEnd{Reason: trace.RunCompleted, PlannedDurationMS: 20000, PlannedWindow: h3.Window})
	for _, hh := range []trace.Header{c, h3} {
		if out := card(t, &trace.Trace{Header: hh}, cardfmt.Text); strings.Contains(out, "注意：") {
			t.Errorf("unexpected note:\n%s", out)
		}
	}
}

// Goodput unknown because nothing was rated is explained, with the way
// out, and every figure of the condition says unknown, never 0, in text,
// markdown and JSON; it is not shown once any answer is rated.
func TestUnratedNote(t *testing.T) {
	h := trace.Header{Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000}}
	unrated := &trace.Trace{Header: h, Attempts: []trace.Attempt{ok("a", 0, trace.Unrated), ok("b", 10, trace.Unrated)}}
	out := card(t, unrated, cardfmt.Text)
	for _, want := range []string{"2 次完整成功都没有质量评分", "goodput 无法计算（未评分）", "coursekit bench --dataset arith", "coursekit import --dataset",
		"联合合格：无法计算（未评分）\n", "goodput：无法计算（未评分）\n", "业务请求视角：无法计算（未评分）\n", "无法计算的原因"} {
		if !strings.Contains(out, want) {
			t.Errorf("card lacks %q:\n%s", want, out)
		}
	}
	if md := card(t, unrated, cardfmt.Markdown); !strings.Contains(md, "| goodput | 无法计算（未评分） |") || strings.Contains(md, "0 次/s") {
		t.Errorf("markdown card:\n%s", md)
	}
	if js := card(t, unrated, cardfmt.JSON); !strings.Contains(js, `"goodput_per_s": null`) || !strings.Contains(js, `"goodput_unknown": "quality_unrated"`) || strings.Contains(js, "not_finite") {
		t.Errorf("JSON card:\n%s", js)
	}
	rated := &trace.Trace{Header: h, Attempts: []trace.Attempt{ok("a", 0, trace.Fail), ok("b", 10, trace.Unrated)}}
	if out := card(t, rated, cardfmt.Text); strings.Contains(out, "都没有质量评分") {
		t.Errorf("note shown although an answer is rated:\n%s", out)
	}
}

// A client that was late to run (meta.client_lag_ms over the bound) gets
// a note before any number, in both languages, that says what it measured
// (a probe's wake-up lag, not the send lag); a punctual one none.
func TestClientLagNote(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 10000}}}
	for i, lag := range []string{"0.2", "12.5", "0.4", "40"} {
		a := ok(fmt.Sprintf("R%d", i), float64(i)*1000, trace.Pass)
		a.Meta = json.RawMessage(`{"scheduled_ms":0,"client_lag_ms":` + lag + `}`)
		tr.Attempts = append(tr.Attempts, a)
	}
	for l, want := range map[lang.Lang]string{
		lang.ZH: "注意：测量客户端自己迟到了：它的唤醒延迟（一个每 5 ms 触发一次的探测协程比预定时刻晚多少才运行；那时客户端打下的任何时间戳都可能晚这么多）在 2 次尝试期间超过 5 ms（最大 40 ms，4 次记录了它）",
		lang.EN: "Note: the measuring client itself was late: its wake-up lag (how long after its due time a probe on a 5 ms ticker ran; any stamp the client took then may be as late) was over 5 ms during 2 attempts (at most 40 ms; 4 attempts record it)",
	} {
		if c := cardIn(t, tr, cardfmt.Text, l); !strings.Contains(c, want) {
			t.Errorf("%s card lacks %q:\n%s", l, want, c)
		}
	}
	for i := range tr.Attempts {
		tr.Attempts[i].Meta = json.RawMessage(`{"client_lag_ms":1.5}`)
	}
	if c := card(t, tr, cardfmt.Text); strings.Contains(c, "迟到") {
		t.Errorf("a punctual client gets a note:\n%s", c)
	}
}

// SLO flags replace a trace's whole recorded SLO set: --slo-ttft alone on
// a run recorded with TTFT and E2E SLOs drops the E2E SLO, and with it the
// latency-only rule. The card says which recorded SLO was dropped and the
// flag that keeps it, in both languages; a flag that only changes a
// recorded SLO, or SLOs the trace does not record, draw no note.
func TestSLODroppedNote(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000},
		Conditions: json.RawMessage(`{"slo":{"slo_ttft_ms":[2000],"slo_e2e_ms":4000}}`)}}
	for i := range 5 {
		tr.Attempts = append(tr.Attempts, ok(fmt.Sprint("a", i), float64(i*100), trace.Unrated))
	}
	note := func(f cardopts.Flags, l lang.Lang) string {
		s, err := cardopts.Summarize(tr, f)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := cardfmt.WriteLang(&b, s, "t.jsonl", cardfmt.Text, l); err != nil {
			t.Fatal(err)
		}
		if n := cardfmt.SLONoteIn(l, s); n != "" && !strings.Contains(b.String(), n) {
			t.Errorf("the card lacks its note %q", n)
		}
		return cardfmt.SLONoteIn(l, s)
	}
	en := note(cardopts.TTFT(3000), lang.EN)
	for _, want := range []string{"TTFT ≤ 2 s ∧ E2E ≤ 4 s", "judged under TTFT ≤ 3 s", "without the recorded E2E ≤ 4 s", "must also pass quality", "add --slo-e2e 4s"} {
		if !strings.Contains(en, want) {
			t.Errorf("note %q lacks %q", en, want)
		}
	}
	if zh := note(cardopts.TTFT(3000), lang.ZH); !strings.Contains(zh, "不再使用记录的 E2E ≤ 4 s") {
		t.Errorf("Chinese note: %q", zh)
	}
	if n := note(cardopts.Flags{TTFTMS: []float64{3000}, Latency: metrics.LatencySLO{E2EMS: 5000}}, lang.EN); n != "" {
		t.Errorf("E2E changed, not dropped: %q", n)
	}
	if n := note(cardopts.Flags{}, lang.EN); n != "" {
		t.Errorf("the recorded SLOs: %q", n)
	}
	tr.Header.Conditions = nil
	if n := note(cardopts.TTFT(3000), lang.EN); n != "" {
		t.Errorf("no recorded SLOs: %q", n)
	}
}

// The JSON card carries the dropped-SLO note as a warning (walk 35: only
// the text card said that the flags left out the recorded E2E ≤ 4 s): a
// stable kind and the English text, the same words as the English note;
// the Markdown card prints the note too. No warning when nothing was
// dropped.
func TestSLODroppedWarning(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 0, EndMS: 1000},
		Conditions: json.RawMessage(`{"slo":{"slo_ttft_ms":[2000],"slo_e2e_ms":4000}}`)}}
	for i := range 5 {
		tr.Attempts = append(tr.Attempts, ok(fmt.Sprint("a", i), float64(i*100), trace.Unrated))
	}
	warnings := func(f cardopts.Flags) ([]metrics.Warning, *metrics.Summary) {
		s, err := cardopts.Summarize(tr, f)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := cardfmt.WriteLang(&b, s, "t.jsonl", cardfmt.JSON, lang.ZH); err != nil {
			t.Fatal(err)
		}
		var card struct {
			Warnings []metrics.Warning `json:"warnings"`
		}
		if err := json.Unmarshal(b.Bytes(), &card); err != nil {
			t.Fatal(err)
		}
		return card.Warnings, s
	}
	got, s := warnings(cardopts.Flags{TTFTMS: []float64{3000}, Latency: metrics.LatencySLO{TPOTMS: 12}})
	if len(got) != 1 || got[0].Kind != metrics.WarnSLODropped {
		t.Fatalf("warnings %+v, want one %q", got, metrics.WarnSLODropped)
	}
	for _, want := range []string{"The trace records the SLOs TTFT ≤ 2 s ∧ E2E ≤ 4 s", "without the recorded E2E ≤ 4 s", "add --slo-e2e 4s"} {
		if !strings.Contains(got[0].Text, want) {
			t.Errorf("warning %q lacks %q", got[0].Text, want)
		}
	}
	if en := cardfmt.SLONoteIn(lang.EN, s); !strings.HasSuffix(en, got[0].Text[1:]) {
		t.Errorf("warning %q is not the English note %q", got[0].Text, en)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		var b bytes.Buffer
		if err := cardfmt.WriteLang(&b, s, "t.jsonl", cardfmt.Markdown, l); err != nil {
			t.Fatal(err)
		}
		if n := cardfmt.SLONoteIn(l, s); !strings.Contains(b.String(), n) {
			t.Errorf("%v Markdown card lacks the note %q", l, n)
		}
	}
	if got, _ := warnings(cardopts.Flags{}); len(got) != 0 {
		t.Errorf("the recorded SLOs: warnings %+v", got)
	}
}

// capacityStep is a capacity step's trace shaped like one the search
// stopped early on overload (walk 35g F1, steps4/step-04-rate-16.jsonl):
// conditions.capacity_step and run_end "overload"; of 6 in-window
// attempts 2 qualify (TTFT ≤ 1 s), 1 is too slow, 3 were still in flight
// at the stop. The search counted 2 / 3; the card's denominators are 6.
func capacityStep(t *testing.T, step bool) *trace.Trace {
	t.Helper()
	cond := `{"slo":{"slo_ttft_ms":[1000]}}`
	if step {
		cond = `{"capacity_step":{"rate":16,"slo_ttft_ms":1000,"target":0.9,"window_s":16},"slo":{"slo_ttft_ms":[1000]}}`
	}
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 2000, EndMS: 5000}, Conditions: json.RawMessage(cond)}
	h, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunOverload, AtMS: f64(5000), PlannedDurationMS: 16000, PlannedWindow: trace.Window{StartMS: 2000, EndMS: 18000}})
	if err != nil {
		t.Fatal(err)
	}
	slow := ok("c", 2200, trace.Pass)
	slow.Events[0].TMS, slow.EndMS = 3500, 3600
	return &trace.Trace{Header: h, Attempts: []trace.Attempt{
		ok("a", 2000, trace.Pass), ok("b", 2100, trace.Pass), slow,
		{ID: "d", StartMS: 4000, Outcome: trace.InFlight},
		{ID: "e", StartMS: 4500, Outcome: trace.InFlight, Events: []trace.Event{{TMS: 4800, Tokens: 1}}},
		{ID: "f", StartMS: 4900, Outcome: trace.InFlight},
	}}
}

// TestCapacityBasisNote: the card of a capacity step stopped early on
// overload names the count the search judged it by (walk 35g F1), from
// the summary's CapacityStop, in text, Markdown (zh, en) and JSON; a trace
// stopped on overload that is not a capacity step has no such note.
func TestCapacityBasisNote(t *testing.T) {
	tr := capacityStep(t, true)
	opts := metrics.Options{SLOsMS: []float64{1000}}
	s := metrics.Summarize(tr, opts)
	if c := s.CapacityStop; c == nil || c.Attempts != 3 || c.InFlight != 3 || c.Qualified == nil || *c.Qualified != 2 {
		t.Fatalf("CapacityStop = %+v, want 2 qualified / 3 attempts, 3 in flight", c)
	}
	for _, tc := range []struct {
		l    lang.Lang
		want string
	}{
		{lang.ZH, "把当时还在途的 3 次尝试排除在计数之外：它算的是 2 次合格 / 3 次尝试（TTFT ≤ 1 s）；这张卡的分母是窗口内的全部 6 次尝试"},
		{lang.EN, "capacity stopped this step early on overload and left the 3 attempts still in flight out of its count: it counted 2 qualified / 3 attempts (TTFT ≤ 1 s); this card's denominators hold all 6 in-window attempts"},
	} {
		for _, f := range []cardfmt.Format{cardfmt.Text, cardfmt.Markdown} {
			if c := summaryCardIn(t, s, f, tc.l); !strings.Contains(c, tc.want) {
				t.Errorf("%s %s card lacks %q:\n%s", tc.l, f, tc.want, c)
			}
		}
	}
	var b bytes.Buffer
	if err := cardfmt.Write(&b, s, "t.jsonl", cardfmt.JSON); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Stop *struct {
			Attempts  int64  `json:"attempts"`
			InFlight  int64  `json:"in_flight"`
			Qualified *int64 `json:"qualified"`
		} `json:"capacity_stop"`
		Warnings []metrics.Warning `json:"warnings"`
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil {
		t.Fatal(err)
	}
	if j.Stop == nil || j.Stop.Attempts != 3 || j.Stop.InFlight != 3 || j.Stop.Qualified == nil || *j.Stop.Qualified != 2 {
		t.Errorf("JSON capacity_stop = %+v", j.Stop)
	}
	found := false
	for _, w := range j.Warnings {
		found = found || w.Kind == metrics.WarnCapacityBasis && strings.Contains(w.Text, "it counted 2 qualified / 3 attempts")
	}
	if !found {
		t.Errorf("JSON warnings lack the capacity basis: %+v", j.Warnings)
	}

	// Stopped on overload but not a capacity step: no basis to name.
	other := metrics.Summarize(capacityStep(t, false), opts)
	if other.CapacityStop != nil {
		t.Errorf("CapacityStop of a non-step trace = %+v", other.CapacityStop)
	}
	b.Reset()
	if err := cardfmt.Write(&b, other, "t.jsonl", cardfmt.Text); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "容量搜索的口径") {
		t.Errorf("a non-step card names capacity's basis:\n%s", b.String())
	}
}

// The basis note of a capacity step the search judged on TTFT and E2E
// names both SLOs, as the search's condition had them (walk 35h, item 9):
// not the TTFT SLO alone.
func TestCapacityBasisNoteNamesEveryCondition(t *testing.T) {
	tr := capacityStep(t, true)
	h := tr.Header
	h.Conditions = json.RawMessage(`{"capacity_step":{"rate":16,"slo_ttft_ms":1000,"target":0.9,"window_s":16},"slo":{"slo_ttft_ms":[1000],"slo_e2e_ms":3000}}`)
	h, err := h.WithRunEnd(trace.RunEnd{Reason: trace.RunOverload, AtMS: f64(5000), PlannedDurationMS: 16000, PlannedWindow: trace.Window{StartMS: 2000, EndMS: 18000}})
	if err != nil {
		t.Fatal(err)
	}
	tr.Header = h
	s := metrics.Summarize(tr, metrics.Options{SLOsMS: []float64{1000}, Latency: metrics.LatencySLO{E2EMS: 3000}})
	if c := s.CapacityStop; c == nil || c.E2EMS != 3000 {
		t.Fatalf("CapacityStop = %+v, want the condition's E2E SLO", c)
	}
	for l, want := range map[lang.Lang]string{lang.EN: "(TTFT ≤ 1 s ∧ E2E ≤ 3 s); this card's", lang.ZH: "（TTFT ≤ 1 s ∧ E2E ≤ 3 s）；这张卡"} {
		if c := summaryCardIn(t, s, cardfmt.Text, l); !strings.Contains(c, want) {
			t.Errorf("%s card lacks %q:\n%s", l, want, c)
		}
	}
}
