package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

const importData = "../../importer/testdata/"

// The trace goes to stdout, the comparison to stderr: vLLM's linear p99
// beside our nearest-rank one, and the failure kept in our denominators.
func TestImportVLLMStdout(t *testing.T) {
	code, out, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", importData+"vllm_current.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	tr, err := trace.Read(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	s := metrics.Summarize(tr, metrics.Options{})
	if s.Attempts != 4 || s.Failures != 1 || s.TTFTMissing != 1 {
		t.Errorf("card: attempts %d failures %d missing %d", s.Attempts, s.Failures, s.TTFTMissing)
	}
	for _, want := range []string{"609.78", "620.3", "1/4 = 25%", "linear interpolation vs nearest-rank", "request_goodput", "(n=7 events)"} {
		if !strings.Contains(errs, want) {
			t.Errorf("comparison lacks %q:\n%s", want, errs)
		}
	}
}

// -o writes the file only after a whole import; card reads it.
func TestImportToFileThenCard(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, file string }{
		{"aiperf", "aiperf_profile_export.jsonl"}, {"genai-perf", "genai_perf_profile_export.json"},
		{"guidellm", "guidellm_v2.json"}, {"llmperf", "llmperf_individual_responses.json"}, {"vllm", "vllm_nan.json"},
		{"inference-perf", "inference_perf_per_request.json"},
	} {
		dst := filepath.Join(dir, c.from+".jsonl")
		code, out, errs := runCLI(t, "import", "--lang", "en", importData+c.file, "--from", c.from, "-o", dst)
		if code != 0 || out != "" {
			t.Fatalf("%s: exit %d, stdout %q: %s", c.from, code, out, errs)
		}
		if code, _, errs := runCLI(t, "card", dst, "--format", "json"); code != 0 {
			t.Errorf("%s: card exit %d: %s", c.from, code, errs)
		}
	}
	if _, errs := runCLIStderr(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf_profile_export.jsonl"); !strings.Contains(errs, "per-request average per token; ours: per event") {
		t.Errorf("AIPerf ITL difference not explained:\n%s", errs)
	}
}

func runCLIStderr(t *testing.T, args ...string) (int, string) {
	code, _, errs := runCLI(t, args...)
	return code, errs
}

// Bad input exits 2 with a located message and leaves no output file.
func TestImportBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n \"duration\": 1.0,\n \"ttfts\": [0.1,"), 0o644)
	dst := filepath.Join(dir, "out.jsonl")
	code, out, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", bad, "-o", dst)
	if code != 2 || out != "" || !strings.Contains(errs, "bad.json:3") {
		t.Errorf("truncated: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("output file written for a bad input")
	}
	nan := filepath.Join(dir, "nan.json")
	os.WriteFile(nan, []byte(`{"duration": 1, "ttfts": [0.1, NaN], "itls": [[], []]}`), 0o644)
	if code, _, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", nan); code != 2 || !strings.Contains(errs, "ttfts[1]: is NaN") {
		t.Errorf("NaN: exit %d, stderr %q", code, errs)
	}
	for _, args := range [][]string{
		{"import", "--from", "locust", bad},
		{"import", bad},
		{"import", "--from", "vllm"},
		{"import", "--from", "vllm", filepath.Join(dir, "absent.json")},
		{"import", "--from", "vllm", importData + "vllm_append.jsonl"},
		{"import", "--from", "vllm", "--run", "3", importData + "vllm_append.jsonl"},
	} {
		if code, out, errs := runCLI(t, args...); code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	if code, _, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", "--run", "2", importData+"vllm_append.jsonl"); code != 0 {
		t.Errorf("--run 2: exit %d: %s", code, errs)
	}
}

// --summary puts the tool's real numbers in the table: no "*" recomputed
// column, and the file they came from is named.
func TestImportSummaryFlag(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		from, summary, rows string
		want                []string
	}{
		{"aiperf", "aiperf_profile_export_aiperf.json", "aiperf_profile_export.jsonl",
			[]string{"aiperf's own numbers (from aiperf_profile_export_aiperf.json)", "250.292", "1.167", "27.940   27.940", "both population std"}},
		{"genai-perf", "genai_perf_profile_export_genai_perf.json", "genai_perf_profile_export.json",
			[]string{"(from genai_perf_profile_export_genai_perf.json)", "30.25", "per-request average per token"}},
		{"llmperf", "llmperf_summary.json", "llmperf_individual_responses.json",
			[]string{"(from llmperf_summary.json)", "348.32", "3197.1", "not an ITL"}},
	} {
		dst := filepath.Join(dir, c.from+".jsonl")
		code, out, errs := runCLI(t, "import", "--lang", "en", "--from", c.from, "--summary", importData+c.summary, "-o", dst, importData+c.rows)
		if code != 0 || out != "" {
			t.Fatalf("%s: exit %d, stdout %q: %s", c.from, code, out, errs)
		}
		for _, w := range append(c.want, "request counts agree with the rows") {
			if !strings.Contains(errs, w) {
				t.Errorf("%s: comparison lacks %q:\n%s", c.from, w, errs)
			}
		}
		if strings.Contains(errs, "the file holds no summary") {
			t.Errorf("%s: numbers still marked as recomputed:\n%s", c.from, errs)
		}
	}
}

// inference-perf through the CLI, with its summary: the per-token ITL and
// the success-only goodput percentage are explained beside ours.
func TestImportInferencePerf(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "ip.jsonl")
	code, _, errs := runCLI(t, "import", "--lang", "en", "--from", "inference-perf", "-o", dst, "--slo-e2e", "60s",
		"--summary", importData+"inference_perf_summary_lifecycle_metrics.json", importData+"inference_perf_per_request.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"4 attempts (2 failed)", "tool: per token, 0 inside a chunk; ours: per event",
		"TTFT ≤ 1 s ∧ E2E ≤ 60 s: qualified 2/4 attempts = 50% [2]", "[2] goodput_percentage, ours nearest-rank: qualified means complete success ∧ TTFT ≤ 1 s ∧ E2E ≤ 60 s; quality not judged: latency only", "tool: good / successes", "schedule_lag_ms", "9.76", "per_token_zero_fill"} {
		if !strings.Contains(errs, w) {
			t.Errorf("comparison lacks %q:\n%s", w, errs)
		}
	}
	raw, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(strings.NewReader(string(raw)), dst)
	if err != nil {
		t.Fatal(err)
	}
	if s := metrics.Summarize(tr, metrics.Options{}); s.Attempts != 4 || s.Failures != 2 || s.ITL.N != 3 {
		t.Errorf("card: attempts %d failures %d ITL n=%d", s.Attempts, s.Failures, s.ITL.N)
	}
}

// A summary that does not belong to the rows is said out loud; a bad or
// misplaced --summary stops the import before anything is written.
func TestImportSummaryProblems(t *testing.T) {
	dir := t.TempDir()
	rows := importData + "inference_perf_per_request.json"
	other := filepath.Join(dir, "stage_1_lifecycle_metrics.json")
	os.WriteFile(other, []byte(`{"successes": {"count": 40}, "failures": {"count": 0}}`), 0o644)
	code, _, errs := runCLI(t, "import", "--lang", "en", "--from", "inference-perf", "--summary", other, rows, "-o", filepath.Join(dir, "ok.jsonl"))
	if code != 0 || !strings.Contains(errs, "COUNT MISMATCH: stage_1_lifecycle_metrics.json says completed = 40 (successes.count) but the rows give 2") {
		t.Errorf("mismatch: exit %d:\n%s", code, errs)
	}

	bad := filepath.Join(dir, "summary.json")
	os.WriteFile(bad, []byte("{\"successes\": {\"count\": 2},\n \"failures\": {\"count\": NaN}}"), 0o644)
	dst := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--from", "inference-perf", "--summary", bad, rows}, "summary.json: failures.count: is NaN"},
		{[]string{"--from", "llmperf", "--summary", importData + "aiperf_profile_export_aiperf.json", importData + "llmperf_individual_responses.json"}, "no summary number found"},
		{[]string{"--from", "vllm", "--summary", bad, importData + "vllm_current.json"}, "--summary: vllm writes no separate summary file"},
		{[]string{"--from", "guidellm", "--summary", bad, importData + "guidellm_v2.json"}, "--summary is for aiperf"},
		{[]string{"--from", "aiperf", "--summary", filepath.Join(dir, "absent.json"), importData + "aiperf_profile_export.jsonl"}, "absent.json"},
	} {
		code, out, errs := runCLI(t, append(append([]string{"import"}, c.args...), "-o", dst)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, errs, c.want)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Fatalf("%v: output written although the import failed", c.args)
		}
	}
}

// On a real AIPerf 0.13 run with faults: the comparison calls AIPerf's std
// what it is (population, as ours), shows its inter_chunk_latency beside
// the card's per-event ITL with the method named, warns that AIPerf counts
// malformed streams as successes, and the summary given as FILE points to
// --summary.
func TestImportAIPerf013Comparison(t *testing.T) {
	code, errs := runCLIStderr(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf013_faults_profile_export.jsonl",
		"--summary", importData+"aiperf013_faults_profile_export_aiperf.json", "-o", filepath.Join(t.TempDir(), "t.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	row := func(prefix string) string {
		for _, l := range strings.Split(errs, "\n") {
			if strings.HasPrefix(l, prefix) {
				return l
			}
		}
		t.Errorf("no row %q in:\n%s", prefix, errs)
		return ""
	}
	if r := row("ttft_ms                                  std"); !strings.Contains(r, "4.412   4.412") || !strings.Contains(r, "both population std") {
		t.Errorf("TTFT std row: %q", r)
	}
	if strings.Contains(errs, "sample std") || strings.Contains(errs, "t-digest") {
		t.Errorf("the comparison still says sample std or t-digest:\n%s", errs)
	}
	// numpy linear p99 of the 140 per-event gaps: AIPerf's and ours agree.
	if r := row("itl_ms (inter_chunk_latency, per event)  p99"); !strings.Contains(r, "13.240  13.265 (n=140 events)  13.240") || !strings.Contains(r, "numpy linear") {
		t.Errorf("inter_chunk_latency p99 row: %q", r)
	}
	// The counts agree (AIPerf's verdicts are kept): the rows say so and
	// blame nothing; the malformed-SSE caveat is a note.
	for _, m := range []string{"completed", "failed"} {
		if r := row(m); !strings.HasSuffix(r, "the same count") || strings.Contains(r, "malformed") {
			t.Errorf("%s row: %q", m, r)
		}
	}
	if !strings.Contains(errs, "malformed SSE message as a success") || !strings.Contains(errs, "AIPerf recorded an error on 12 records: ") {
		t.Errorf("the notes lack the malformed-SSE caveat or what AIPerf recorded:\n%s", errs)
	}
	checkAIPerfRates(t, errs, row, filepath.Join(t.TempDir(), "t.jsonl"))
	code, errs = runCLIStderr(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf013_faults_profile_export_aiperf.json")
	if code != 2 || !strings.Contains(errs, "this is AIPerf's summary") || !strings.Contains(errs, "--summary") {
		t.Errorf("summary as FILE: exit %d: %s", code, errs)
	}
}

// On a real guidellm 0.8.1 run with faults, the total TTFT row says what
// it holds and ours over the same attempts agrees.
func TestImportGuidellm081Total(t *testing.T) {
	code, errs := runCLIStderr(t, "import", "--lang", "en", "--from", "guidellm", importData+"guidellm081_faults_benchmarks.json", "-o", filepath.Join(t.TempDir(), "t.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := "ttft_ms (total: successes + errored with a first token)  mean    17.721    17.721 (n=32)"
	if !strings.Contains(errs, want) || !strings.Contains(errs, "errored requests that got a first token, the others left out") || strings.Contains(errs, "errored as 0") {
		t.Errorf("comparison lacks %q or says errored as 0:\n%s", want, errs)
	}
}

// A tool's strings (a model id, an error text) with C1 controls and bidi
// overrides: the imported trace on stdout writes them as \u escapes, and
// reads back the same strings.
func TestImportStdoutEscapesSpoofingCharacters(t *testing.T) {
	b, err := os.ReadFile(importData + "vllm_current.json")
	if err != nil {
		t.Fatal(err)
	}
	const evil = `\u009b2J\u202eok\u2066`
	s := strings.Replace(string(b), `"model_id": "Qwen/Qwen3-8B"`, `"model_id": "Qwen`+evil+`"`, 1)
	s = strings.Replace(s, `"Traceback (most recent call last)`, `"Traceback`+evil, 1)
	if s == string(b) {
		t.Fatal("the fixture changed: nothing replaced")
	}
	p := filepath.Join(t.TempDir(), "vllm.json")
	os.WriteFile(p, []byte(s), 0o644)
	code, out, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(out, "\u009b\u202e\u2066") {
		t.Errorf("the imported trace holds them raw:\n%s", out)
	}
	tr, err := trace.Read(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(tr.Header.Conditions)+string(tr.Header.Meta), `Qwen\u009b2J\u202eok\u2066`) || !strings.HasPrefix(tr.Attempts[2].Error, "Traceback\u009b2J\u202eok\u2066") {
		t.Errorf("read back: conditions %s, error %q", tr.Header.Conditions, tr.Attempts[2].Error)
	}
}

// A vLLM result with a shadow "TTFTS" beside its "ttfts" exits 2 naming
// the file and the key, and writes no trace.
func TestImportCaseTwinCLI(t *testing.T) {
	raw, err := os.ReadFile(importData + "vllm_current.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "shadow.json")
	os.WriteFile(bad, []byte(strings.Replace(string(raw), `"ttfts":`, `"TTFTS": [0.5, 0.5, 0.5, 0.5], "ttfts":`, 1)), 0o644)
	dst := filepath.Join(dir, "out.jsonl")
	code, out, errs := runCLI(t, "import", "--lang", "en", "--from", "vllm", bad, "-o", dst)
	if code != 2 || out != "" || !strings.Contains(errs, "shadow.json: TTFTS: differs from the key \"ttfts\" only in case") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Error("a trace was written for a refused file")
	}
}

// The SLOs given to import are recorded in the trace's header as bench
// records them, so that card of the imported trace judges by them, and the
// comparison's goodput row is the card's own condition: every SLO named,
// the card's qualified count, never a TTFT-only count of its own.
func TestImportRecordsSLOs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, file string }{
		{"vllm", "vllm_current.json"}, {"aiperf", "aiperf_profile_export.jsonl"}, {"genai-perf", "genai_perf_profile_export.json"},
		{"guidellm", "guidellm_v2.json"}, {"llmperf", "llmperf_individual_responses.json"},
		{"inference-perf", "inference_perf_per_request.json"},
	} {
		dst := filepath.Join(dir, c.from+".jsonl")
		code, _, errs := runCLI(t, "import", "--lang", "en", "--from", c.from, "--slo-ttft", "1s", "--slo-e2e", "3s", "-o", dst, importData+c.file)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.from, code, errs)
		}
		code, out, cerrs := runCLI(t, "card", dst, "--format", "json")
		if code != 0 {
			t.Fatalf("%s: card exit %d: %s", c.from, code, cerrs)
		}
		var card struct {
			Conditions []struct {
				TTFT        float64 `json:"slo_ttft_ms"`
				E2E         float64 `json:"slo_e2e_ms"`
				QualityRule string  `json:"quality_rule"`
				Qualified   *int64  `json:"qualified"`
			} `json:"conditions"`
		}
		if err := json.Unmarshal([]byte(out), &card); err != nil {
			t.Fatalf("%s: %v", c.from, err)
		}
		if len(card.Conditions) != 1 || card.Conditions[0].TTFT != 1000 || card.Conditions[0].E2E != 3000 || card.Conditions[0].Qualified == nil {
			t.Fatalf("%s: card of the imported trace does not judge by the SLOs given to import: %s", c.from, out)
		}
		if c.from == "vllm" {
			want := fmt.Sprintf("TTFT ≤ 1 s ∧ E2E ≤ 3 s: qualified %d", *card.Conditions[0].Qualified)
			if !strings.Contains(errs, want) {
				t.Errorf("vllm: goodput row is not the card's condition (want %q):\n%s", want, errs)
			}
		}
	}
	// Without a latency SLO and without a judge the card cannot tell which
	// successes qualify: the row says so, where it used to say "qualified 0".
	_, errs := runCLIStderr(t, "import", "--lang", "en", "--from", "vllm", "-o", filepath.Join(dir, "ttft.jsonl"), importData+"vllm_current.json")
	if strings.Contains(errs, "qualified 0") || !strings.Contains(errs, "TTFT ≤ 1 s: qualified unknown") {
		t.Errorf("unrated goodput row:\n%s", errs)
	}
}

// checkAIPerfRates: the duration row says what each duration measures,
// and ours over the successes alone is AIPerf's benchmark_duration; the
// throughput rows show ours, the card's rates of the imported trace.
func checkAIPerfRates(t *testing.T, errs string, row func(string) string, trace string) {
	t.Helper()
	cols := func(r string) []string { return strings.Fields(r) }
	d := row("duration_s")
	if c := cols(d); len(c) < 4 || !strings.Contains(d, "over the records without an error") || !strings.Contains(d, "ours over the successes alone: "+c[2]+" s") {
		t.Errorf("duration_s row does not say why the durations differ, or ours over the successes is not AIPerf's: %q", d)
	}
	code, _ := runCLIStderr(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf013_faults_profile_export.jsonl", "-q", "-o", trace)
	if code != 0 {
		t.Fatalf("import -o: exit %d", code)
	}
	var card metrics.Summary
	if err := json.Unmarshal([]byte(cliOut(t, "card", trace, "--format", "json")), &card); err != nil {
		t.Fatal(err)
	}
	for m, v := range map[string]*float64{"request_throughput": card.Throughput.CompleteSuccesses.Value, "output_throughput": card.Throughput.OutputTokens.Value} {
		r := row(m)
		if c := cols(r); v == nil || len(c) < 5 || c[3] != numfmt.Num(*v) || !strings.Contains(r, "/ window second") {
			t.Errorf("%s row: ours is not the card's %v /s, or the row does not say what it counts: %q", m, v, r)
		}
	}
}

// `import --lang en` prints the comparison in English, nothing Chinese in
// it; without --lang it is Chinese, as card and report are (the default
// language), with the same numbers in its rows; the trace is the same.
func TestImportLang(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	args := []string{"--from", "aiperf", importData + "aiperf013_faults_profile_export.jsonl", "--summary", importData + "aiperf013_faults_profile_export_aiperf.json"}
	codeEN, outEN, en := runCLI(t, append([]string{"import", "--lang", "en"}, args...)...)
	codeZH, outZH, zh := runCLI(t, append([]string{"import"}, args...)...)
	if codeEN != 0 || codeZH != 0 {
		t.Fatalf("exit %d, %d: %s %s", codeEN, codeZH, en, zh)
	}
	noCJK(t, "import --lang en", en)
	if !strings.Contains(zh, "自己的数字") || !strings.Contains(zh, "为什么不同") {
		t.Errorf("import without --lang is not Chinese:\n%s", zh)
	}
	if outEN != outZH {
		t.Error("the trace changes with --lang")
	}
	// A row's columns are two or more spaces apart; a metric column may
	// describe its key ("itl_ms (inter_chunk_latency, per event)", in
	// Chinese under zh): the key, the stat and the tool's number compare.
	gap := regexp.MustCompile(`\s{2,}`)
	rows := func(s string) (out []string) {
		for _, l := range strings.Split(s, "\n") {
			f := gap.Split(strings.TrimSpace(l), -1)
			if len(f) < 3 {
				continue
			}
			key, _, _ := strings.Cut(strings.Replace(f[0], "（", " ", 1), " ")
			if strings.HasSuffix(key, "_ms") || key == "completed" || key == "duration_s" {
				out = append(out, key+" "+f[1]+" "+f[2])
			}
		}
		return out
	}
	if r := rows(en); len(r) < 10 || strings.Join(r, "\n") != strings.Join(rows(zh), "\n") {
		t.Errorf("the rows' numbers differ by language:\n%v\n%v", r, rows(zh))
	}
	// The importers' notes follow --lang too: every note line is Chinese
	// under zh, English under en, as many in both.
	for _, c := range [][]string{
		args,
		{"--from", "inference-perf", importData + "inference_perf_per_request.json"},
		{"--from", "llmperf", importData + "llmperf_individual_responses.json"},
		{"--from", "vllm", importData + "vllm_old.json"},
		{"--from", "guidellm", importData + "guidellm_v03.json"},
	} {
		_, en := runCLIStderr(t, append([]string{"import", "--lang", "en", "-o", filepath.Join(t.TempDir(), "t.jsonl")}, c...)...)
		_, zh := runCLIStderr(t, append([]string{"import", "--lang", "zh", "-o", filepath.Join(t.TempDir(), "t.jsonl")}, c...)...)
		noCJK(t, "import --lang en "+strings.Join(c, " "), en)
		nEN, nZH := noteLines(t, en, "notes:"), noteLines(t, zh, "导入说明：")
		if len(nZH) == 0 || len(nZH) != len(nEN) {
			t.Errorf("%s: %d notes in Chinese, %d in English:\n%s\n%s", c[1], len(nZH), len(nEN), zh, en)
		}
		for _, n := range nZH {
			if i, _ := lang.FirstCJK(n); i < 0 {
				t.Errorf("%s: import --lang zh prints a note with no Chinese in it: %q", c[1], n)
			}
		}
	}
}

// noteLines are the "  - " lines under heading in import's output.
func noteLines(t *testing.T, out, heading string) []string {
	t.Helper()
	_, after, ok := strings.Cut(out, "\n"+heading+"\n")
	if !ok {
		t.Errorf("no %q heading in:\n%s", heading, out)
		return nil
	}
	var notes []string
	for _, l := range strings.Split(after, "\n") {
		n, ok := strings.CutPrefix(l, "  - ")
		if !ok {
			break
		}
		notes = append(notes, n)
	}
	return notes
}

// The comparison's tool and ours columns print a measured value at one
// precision, three decimals: "e2e_ms mean 70.746 | 70.750", never 70.75
// beside 70.746, which reads as a rounding of its own (walk 35f 4).
func TestImportColumnsAtOnePrecision(t *testing.T) {
	code, _, en := runCLI(t, "import", "--lang", "en", "--from", "aiperf", importData+"aiperf013_faults_profile_export.jsonl",
		"--summary", importData+"aiperf013_faults_profile_export_aiperf.json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, en)
	}
	decimals := func(s string) int {
		if i := strings.IndexByte(s, '.'); i >= 0 {
			return len(s) - i - 1
		}
		return 0
	}
	seen := 0
	for _, l := range strings.Split(en, "\n") {
		f := strings.Fields(l)
		if len(f) > 4 && strings.HasPrefix(f[1], "(") {
			f = append(f[:1], f[4:]...) // itl_ms (inter_chunk_latency, per event)
		}
		if len(f) < 4 || f[1] == "count" || !(strings.HasSuffix(f[0], "_ms") || strings.HasSuffix(f[0], "_throughput") || f[0] == "duration_s") {
			continue
		}
		seen++
		if decimals(f[2]) != 3 || decimals(f[3]) != 3 {
			t.Errorf("%q: tool %s, ours %s: want both at three decimals", l, f[2], f[3])
		}
	}
	if seen < 10 || !strings.Contains(en, "70.746  70.750") {
		t.Errorf("%d rows of measured values, want the e2e mean as 70.746 beside 70.750:\n%s", seen, en)
	}
}
