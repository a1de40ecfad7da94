package nb

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

func readPractice(t *testing.T) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile("../../data/unit01/practice.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The two rates count from the trace itself: the output tokens of the
// complete successes and the qualified attempts, each over the window.
func TestPerSecondCountsTokensAndQualified(t *testing.T) {
	tr := readUnit(t)
	var tokens, qualified float64
	for i := range tr.Attempts {
		a := &tr.Attempts[i]
		if a.Outcome == trace.OK {
			tokens += float64(a.OutputTokens)
		}
		if metrics.Judge(a, 1000).Qualified {
			qualified++
		}
	}
	window := (tr.Header.Window.EndMS - tr.Header.Window.StartMS) / 1000
	r := PerSecond(tr, 1000)
	// The unit's trace: 29 tokens in 10 s, 18 of them from qualified
	// attempts (03's hint for summing those alone).
	if r.TokensPerS != 2.9 || r.QualifiedTokensPerS != 1.8 {
		t.Errorf("PerSecond = %+v, want 2.9 token/s and 1.8 from qualified attempts alone", r)
	}
	if r.TokensPerS != tokens/window || r.Good != qualified/window {
		t.Errorf("PerSecond = %+v, want %v, %v per s", r, tokens/window, qualified/window)
	}
	out := r.String()
	for _, want := range []string{"次/s", "token/s", "goodput", Num(r.TokensPerS) + " token/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q lacks %q", out, want)
		}
	}
	// Nobody rated: the tokens still count, goodput is unknown, not 0.
	unrated := *tr
	unrated.Attempts = slices.Clone(tr.Attempts)
	for i := range unrated.Attempts {
		unrated.Attempts[i].Quality = trace.Unrated
	}
	if u := PerSecond(&unrated, 1000); !u.GoodUnknown || u.TokensPerS != r.TokensPerS || !strings.Contains(u.String(), "goodput）：无法计算（未评分）") {
		t.Errorf("unrated: %+v\n%s", u, u.String())
	}
	// Training samples/s is not an inference trace's number.
	if strings.Contains(out, "样本") {
		t.Errorf("%q counts samples from an inference trace", out)
	}
	for _, w := range regexp.MustCompile(`[A-Za-z]{3,}`).FindAllString(out, -1) {
		if w != "token" && w != "goodput" {
			t.Errorf("Rates prints the English word %q: %q", w, out)
		}
	}
}

// Someone who receives only some fields can recompute the card or not, and
// the feedback names the field each missing number needs.
func TestRecomputableNamesTheMissingField(t *testing.T) {
	tr := readPractice(t)
	var ok bool
	out := stdout(t, func() {
		ok = Recomputable(tr, 1000, "attempt", "request", "start_ms", "outcome", "events", "end_ms", "quality", "input_tokens", "output_tokens")
	})
	if !ok || !strings.Contains(out, "能重算") || strings.Contains(out, "input_tokens") {
		t.Errorf("the seven fields the card needs and the two lengths: %v %q", ok, out)
	}
	// The card alone comes back without the lengths, but the unit keeps
	// them with every attempt.
	out = stdout(t, func() {
		ok = Recomputable(tr, 1000, "attempt", "request", "start_ms", "outcome", "events", "end_ms", "quality", "output_tokens")
	})
	if ok || !strings.Contains(out, "少了 input_tokens（输入 token 数）") || strings.Contains(out, "output_tokens（") {
		t.Errorf("without input_tokens: %v %q", ok, out)
	}
	out = stdout(t, func() {
		ok = Recomputable(tr, 1000, "attempt", "start_ms", "outcome", "events", "end_ms", "quality")
	})
	if ok || !strings.Contains(out, "少了 request") || !strings.Contains(out, "重试放大") || strings.Contains(out, "少了 quality") {
		t.Errorf("without request: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Recomputable(tr, 1000, "attempt", "request", "start_ms", "outcome", "events", "end_ms") })
	if ok || !strings.Contains(out, "少了 quality") || !strings.Contains(out, "联合合格数与 goodput") {
		t.Errorf("without quality: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Recomputable(tr, 1000, "attempt", "request", "outcome", "events", "end_ms", "quality") })
	if ok || !strings.Contains(out, "少了 start_ms") || !strings.Contains(out, "每一行都必须有它") {
		t.Errorf("without start_ms: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Recomputable(tr, 1000, "attempt", "start_time") })
	if ok || !strings.Contains(out, `没有叫 "start_time" 的字段`) {
		t.Errorf("a misspelt field: %v %q", ok, out)
	}
	out = stdout(t, func() { ok = Recomputable(tr, 1000) })
	if ok || !strings.Contains(out, "还没有挑字段") {
		t.Errorf("no choice yet: %v %q", ok, out)
	}
	noEnglishCode(t, "Recomputable", out)
}

// KeepOnly drops what was not kept: a dropped quality reads back unrated.
func TestKeepOnlyDropsFields(t *testing.T) {
	tr := readUnit(t)
	kept, err := KeepOnly(tr, []string{"attempt", "start_ms", "outcome", "events", "end_ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(kept.Attempts) != len(tr.Attempts) {
		t.Fatalf("%d attempts, want %d", len(kept.Attempts), len(tr.Attempts))
	}
	for _, a := range kept.Attempts {
		if a.Quality != trace.Unrated || a.InputTokens != 0 || a.Error != "" {
			t.Errorf("%s kept a dropped field: %+v", a.ID, a)
		}
	}
}
