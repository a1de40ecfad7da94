package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/web"
)

// pageText is the page at path without its inlined ECharts library (whose
// own locale tables are Chinese, whatever the page's language).
func pageText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(b), web.InlineEChartsScript(), "", 1)
	if len(page) == len(b) {
		t.Fatal("the page does not inline ECharts as expected")
	}
	return page
}

// noCJK fails the test on the first Chinese character or full-width mark.
func noCJK(t *testing.T, what, out string) {
	t.Helper()
	if i, r := lang.FirstCJK(out); i >= 0 {
		t.Errorf("%s: %q in English output: …%s…", what, r, out[max(i-150, 0):min(i+150, len(out))])
	}
}

// `card --lang en` prints the card in English, text and Markdown, with
// latency SLOs and throughput rows; JSON is the same in both languages.
func TestCardLangEnglish(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	for _, extra := range [][]string{nil, {"--slo-e2e", "2s", "--slo-itl-p95", "100ms"}, {"--percentiles", "50,99.9"}} {
		for _, f := range []string{"text", "markdown"} {
			args := append([]string{"card", "--lang", "en", "--format", f, unitTrace}, extra...)
			code, out, errs := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, errs)
			}
			noCJK(t, strings.Join(args, " "), out)
			if !strings.Contains(out, "Failure rate: 2 / 10 = 20%") || !strings.Contains(out, "Throughput") {
				t.Errorf("%v: not the English card:\n%s", args, out)
			}
		}
	}
	_, zh, _ := runCLI(t, "card", "--format", "json", unitTrace)
	_, en, _ := runCLI(t, "card", "--lang", "en", "--format", "json", unitTrace)
	if zh == "" || zh != en {
		t.Error("the JSON card changes with --lang")
	}
}

// The default is Chinese even under an English locale; COURSEKIT_LANG
// switches it, and --lang wins over it.
func TestCardLangDefault(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv(lang.EnvVar, "")
	if _, out, _ := runCLI(t, "card", unitTrace); !strings.Contains(out, "指标口径卡") {
		t.Errorf("an English locale changed the default:\n%s", out)
	}
	t.Setenv(lang.EnvVar, "en")
	_, out, _ := runCLI(t, "card", unitTrace)
	noCJK(t, "COURSEKIT_LANG=en card", out)
	if _, out, _ := runCLI(t, "card", "--lang", "zh", unitTrace); !strings.Contains(out, "指标口径卡") {
		t.Errorf("--lang zh lost to COURSEKIT_LANG=en:\n%s", out)
	}
}

// An unknown language is refused with exit 2, naming the flag (or the
// variable) and the valid values.
func TestLangRefused(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	for _, cmd := range [][]string{{"card", unitTrace}, {"report", unitTrace}} {
		args := append(cmd[:1:1], append([]string{"--lang", "fr"}, cmd[1:]...)...)
		code, out, errs := runCLI(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "--lang") || !strings.Contains(errs, "want zh or en") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q", args, code, len(out), errs)
		}
	}
	t.Setenv(lang.EnvVar, "fr")
	if code, _, errs := runCLI(t, "card", unitTrace); code != 2 || !strings.Contains(errs, lang.EnvVar) {
		t.Errorf("COURSEKIT_LANG=fr: exit %d, %q", code, errs)
	}
}

// `report --lang en` is English everywhere the page speaks: title, header,
// card, chart titles, axes, legends, tooltips, captions and footer (the
// inlined ECharts library itself is left out of the check).
func TestReportLangEnglish(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	for _, tr := range []string{unitTrace, "../../../data/unit01/practice.jsonl", "../../../data/unit01/timeline.jsonl"} {
		out := filepath.Join(t.TempDir(), "r.html")
		code, _, errs := runCLI(t, "report", "--lang", "en", tr, "-o", out, "--slo-ttft", "1s", "--slo-ttft", "500ms")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		page := pageText(t, out)
		// The embedded summary is data, the same JSON in every language
		// (as card --format json), and carries the trace's own strings.
		page = regexp.MustCompile(`(?s)<script type="application/json" id="coursekit-summary">.*?</script>`).ReplaceAllString(page, "")
		noCJK(t, "report --lang en "+tr, page)
		for _, want := range []string{`<html lang="en">`, "Metrics card", "Denominator funnel", "All attempts", "TTFT distribution", "Changing the TTFT SLO", "Client timeline of one request"} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: English report lacks %q", tr, want)
			}
		}
	}
}

// A bench trace with failures of several kinds and latency SLOs reads in
// English end to end: the card (text and Markdown) and the report.
func TestBenchTraceEnglish(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	addr := startSimCLI(t, "--decode-step", "1ms", "--fail-503", "0.2", "--fail-reset", "0.2", "--fail-no-first-token", "0.2", "--seed", "3")
	dir := t.TempDir()
	out := filepath.Join(dir, "bench.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "40", "--duration", "1s", "--progress", "0", "--timeout", "2s",
		"--max-tokens", "6", "--slo-ttft", "1s", "--slo-e2e", "2s", "--slo-itl-p95", "200ms", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	for _, f := range []string{"text", "markdown"} {
		code, card, errs := runCLI(t, "card", "--lang", "en", "--format", f, out)
		if code != 0 {
			t.Fatalf("card exit %d: %s", code, errs)
		}
		noCJK(t, "bench trace card "+f, card)
		for _, want := range []string{"HTTP error", "stream broken", "timeout ", "E2E over SLO"} {
			if !strings.Contains(card, want) {
				t.Errorf("%s card lacks %q:\n%s", f, want, card)
			}
		}
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errs := runCLI(t, "report", "--lang", "en", out, "-o", html); code != 0 {
		t.Fatalf("report exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(b), web.InlineEChartsScript(), "", 1)
	// charts.Label draws braces in the trace's own strings (here the
	// server's JSON error body) as full-width look-alikes, so that ECharts
	// does not read them as {a}/{b} templates: data, not our text.
	page = strings.NewReplacer("｛", "{", "｝", "}").Replace(page)
	noCJK(t, "bench trace report", page)
}
