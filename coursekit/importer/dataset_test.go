package importer

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// vllmResult builds a `vllm bench serve --save-detailed` result with one
// row per text; a row whose error is set failed.
func vllmResult(texts []any, errs []string) map[string]any {
	n := len(texts)
	r := map[string]any{"duration": 2.0, "completed": n, "generated_texts": texts}
	var ttfts, lats, starts, outLens []float64
	var itls [][]float64
	for i := range n {
		ttfts = append(ttfts, 0.1)
		if errs[i] != "" {
			ttfts[i] = 0
		}
		itls = append(itls, []float64{})
		lats = append(lats, 0.2)
		starts = append(starts, 100+0.1*float64(i))
		outLens = append(outLens, 1)
	}
	r["ttfts"], r["itls"], r["latencies"], r["start_times"], r["output_lens"], r["errors"] = ttfts, itls, lats, starts, outLens, errs
	return r
}

func importJSON(t *testing.T, v any, opt Options) (*trace.Trace, *Report, error) {
	t.Helper()
	raw, _ := json.Marshal(v)
	var out bytes.Buffer
	rep, err := ImportWith("vllm", bytes.NewReader(raw), "result.json", &out, opt)
	if err != nil {
		return nil, nil, err
	}
	tr, err := trace.Read(&out, "imported")
	if err != nil {
		t.Fatal(err)
	}
	return tr, rep, nil
}

// vLLM's saved texts are judged by prompt order, like a live run's.
func TestImportJudgesSavedTexts(t *testing.T) {
	set, err := dataset.Read(strings.NewReader(`{"prompt":"What is 2 + 2?","expect":{"exact":"4"}}
{"prompt":"What is 3 + 3?","expect":{"exact":"6"}}
{"prompt":"Say hi"}
{"prompt":"What is 5 + 5?","expect":{"exact":"10"}}
{"prompt":"What is 6 + 6?","expect":{"exact":"12"}}
{"prompt":"What is 7 + 7?","expect":{"regex":"^\\s*14\\b"}}
{"prompt":"spare line"}
`), "q.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	texts := []any{" 4\n", "7", "hi!", "", nil, "14 is the answer"}
	errs := []string{"", "", "", "Traceback: ClientPayloadError", "", ""}
	tr, rep, err := importJSON(t, vllmResult(texts, errs), Options{Dataset: set})
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Quality{trace.Pass, trace.Fail, trace.Unrated, trace.Unrated, trace.Unrated, trace.Pass}
	for i, a := range tr.Attempts {
		var m struct {
			Row    int
			Prompt string
			Judge  *struct{ Name, Reason string }
		}
		json.Unmarshal(a.Meta, &m)
		if a.Quality != want[i] || m.Row != i || m.Prompt != set.Items[i].Ref {
			t.Errorf("row %d: %s quality %s, want %s; meta %s", i, a.Outcome, a.Quality, want[i], a.Meta)
		}
		if (m.Judge != nil) != (i != 2 && i != 3) {
			t.Errorf("row %d: meta.judge %+v", i, m.Judge)
		}
	}
	var conds struct{ Quality string }
	json.Unmarshal(tr.Header.Conditions, &conds)
	notes := strings.Join(rep.NotesIn(lang.EN), "\n")
	if !strings.Contains(conds.Quality, "judged by prompt order against dataset q.jsonl") ||
		!strings.Contains(notes, "2 pass, 1 fail, 2 complete successes unrated") || !strings.Contains(notes, "--disable-shuffle") ||
		!strings.Contains(notes, "q.jsonl has 7 prompts, the file 6 responses") {
		t.Errorf("conditions %q, notes:\n%s", conds.Quality, notes)
	}
}

// Nothing is judged by guesswork: every mismatch is an error.
func TestImportDatasetErrors(t *testing.T) {
	set := dataset.Arith(1, 2)
	three := vllmResult([]any{"1", "2", "3"}, []string{"", "", ""})
	if _, _, err := importJSON(t, three, Options{Dataset: set}); err == nil || !strings.Contains(err.Error(), "has 2 prompts but result.json holds 3 responses") {
		t.Errorf("short dataset: %v", err)
	}
	set = dataset.Arith(1, 10)
	noTexts := vllmResult([]any{"1"}, []string{""})
	delete(noTexts, "generated_texts")
	if _, _, err := importJSON(t, noTexts, Options{Dataset: set}); err == nil || !strings.Contains(err.Error(), "result.json: generated_texts: missing: vLLM keeps the generated texts only with --save-result --save-detailed") {
		t.Errorf("no texts: %v", err)
	}
	if _, _, err := importJSON(t, noTexts, Options{}); err != nil {
		t.Errorf("without --dataset the texts are not needed: %v", err)
	}
	short := vllmResult([]any{"1", "2"}, []string{"", ""})
	short["generated_texts"] = []any{"1"}
	if _, _, err := importJSON(t, short, Options{Dataset: set}); err == nil || !strings.Contains(err.Error(), "generated_texts: has 1 entry but ttfts has 2") {
		t.Errorf("short texts: %v", err)
	}
	bad := vllmResult([]any{"1", 2}, []string{"", ""})
	if _, _, err := importJSON(t, bad, Options{Dataset: set}); err == nil || !strings.Contains(err.Error(), "generated_texts[1]: want a string, got the number 2") {
		t.Errorf("bad text: %v", err)
	}
	aiperf, _ := os.ReadFile("testdata/aiperf_profile_export.jsonl")
	if _, err := ImportWith("aiperf", bytes.NewReader(aiperf), "x.jsonl", &bytes.Buffer{}, Options{Dataset: set}); err == nil || !strings.Contains(err.Error(), "aiperf result files keep no generated texts") {
		t.Errorf("aiperf with --dataset: %v", err)
	}
}

// With several appended runs, the chosen run's texts are judged.
func TestImportDatasetPicksTheRun(t *testing.T) {
	set, _ := dataset.Read(strings.NewReader(`{"prompt":"a","expect":{"exact":"yes"}}`+"\n"), "q.jsonl")
	r1, _ := json.Marshal(vllmResult([]any{"no"}, []string{""}))
	r2, _ := json.Marshal(vllmResult([]any{"yes"}, []string{""}))
	var out bytes.Buffer
	if _, err := ImportWith("vllm", bytes.NewReader(append(append(r1, '\n'), r2...)), "runs.jsonl", &out, Options{Run: 2, Dataset: set}); err != nil {
		t.Fatal(err)
	}
	tr, _ := trace.Read(&out, "t")
	if tr.Attempts[0].Quality != trace.Pass {
		t.Errorf("run 2 judged %s", tr.Attempts[0].Quality)
	}
}
