package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
)

// The report's TTFT chart draws one P95, the card's: its caption says so
// in both languages, not "two percentile methods give two P95s" (issue 35).
func TestReportTTFTCaptionOneP95(t *testing.T) {
	for _, c := range []struct {
		lang, want, stale string
	}{
		{"en", "the vertical line is the P95 on the card (nearest-rank)", "two P95s"},
		{"zh", "竖线是指标口径卡上的 P95（最近秩）", "两种分位算法给出不同的 P95"},
	} {
		code, page, stderr := runCLI(t, "report", "--lang", c.lang, unitTrace)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.lang, code, stderr)
		}
		if !strings.Contains(page, c.want) {
			t.Errorf("%s: caption lacks %q", c.lang, c.want)
		}
		if strings.Contains(page, c.stale) {
			t.Errorf("%s: caption still says %q", c.lang, c.stale)
		}
	}
}

// A step that completed more than it was offered is not "short by up to
// -0.25/s": the text says it completed at least the offered rate, in both
// languages, while the JSON keeps the bound as computed; and max_tokens
// asks for up to that many tokens, it does not set the length (issue 35).
func TestCapacityKeepUpNegativeAndMaxTokens(t *testing.T) {
	lc := loadCheck(t, capacity.LoadWindow{OfferedPerS: 12, WindowS: 4, Arrivals: 48, Completions: 50, InFlightStart: 1, InFlightEnd: 0, Resolution: 1})
	if !lc.KeepsUp || lc.KeepUpBound != -0.25 {
		t.Fatalf("load check %+v: want keeps up with bound -0.25", lc)
	}
	r := &capacity.Result{Target: 0.9, SLOTTFTMS: 1000, MaxRate: 32, MaxTokens: 64, BoundedBy: capacity.BoundMaxRate,
		Steps: []capacity.Step{{Rate: 12, Attempts: 48, Qualified: 48, Verdict: capacity.Meets, Load: &lc}}}
	r.MaxRateMeeting = &r.Steps[0].Rate
	for _, c := range []struct {
		lg        lang.Lang
		want, bad []string
	}{
		{lang.EN, []string{"completed at least the offered rate", "asks for up to 64 tokens (the server may stop sooner)"}, []string{"-0.25", "sets the answers' length"}},
		{lang.ZH, []string{"不低于提供的速率", "最多 64 个 token", "服务器可能更早停止"}, []string{"-0.25", "决定回答的长度"}},
	} {
		text := capacityTextIn(c.lg, r)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%v text lacks %q:\n%s", c.lg, w, text)
			}
		}
		for _, w := range c.bad {
			if strings.Contains(text, w) {
				t.Errorf("%v text says %q:\n%s", c.lg, w, text)
			}
		}
	}
	var js bytes.Buffer
	if err := writeCapacityJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"keep_up_bound_per_s": -0.25`) {
		t.Errorf("JSON lost the computed bound: %s", js.String())
	}
}

// bench --no-preflight without --model is a usage error naming --model,
// before any request (not "no --model given and Get …/v1/models: connection
// refused", exit 1); --lang zh|en is accepted and any other value refused
// (issue 35).
func TestBenchNoPreflightNeedsModelAndLang(t *testing.T) {
	closed := "http://127.0.0.1:1"
	code, _, errs := runCLI(t, "bench", "--url", closed, "--no-preflight", "--rate", "5", "--duration", "1s", "--progress", "0")
	if code != 2 || !strings.Contains(errs, "--no-preflight needs --model") || strings.Contains(errs, "/v1/models:") {
		t.Errorf("exit %d, %s; want exit 2 asking for --model", code, errs)
	}
	code, _, errs = runCLI(t, "bench", "--lang", "fr", "--url", closed, "--model", "m", "--rate", "5")
	if code != 2 || !strings.Contains(errs, `--lang: unknown language "fr"`) {
		t.Errorf("--lang fr: exit %d, %s; want exit 2", code, errs)
	}
	for _, l := range []string{"en", "zh"} {
		// Reaches the run: the closed port fails the preflight, not the flag.
		code, _, errs = runCLI(t, "bench", "--lang", l, "--url", closed, "--model", "m", "--rate", "5", "--duration", "1s", "--progress", "0")
		if strings.Contains(errs, "flag provided but not defined") || !strings.Contains(errs, "pre-flight") {
			t.Errorf("--lang %s: exit %d, %s; want the flag accepted", l, code, errs)
		}
	}
}
