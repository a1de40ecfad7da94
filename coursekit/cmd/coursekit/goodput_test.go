package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// startSimCLI runs `coursekit sim ARGS --addr 127.0.0.1:0` in-process and
// returns its address; it stops when the test ends. Each sim has its own
// ctx, so the load tests that start one run side by side (t.Parallel): they
// mostly wait on the simulator's clock.
func startSimCLI(t *testing.T, args ...string) string {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	addr, done, _ := runSim(t, ctx, args...)
	t.Cleanup(func() {
		stop()
		<-done
	})
	return addr
}

// The acceptance run: a simulator wrong on a fifth of its answers,
// measured with the built-in arith dataset at 50 req/s for 5 s. The card's
// quality pass rate is 0.8 ± 0.1, no complete success is unrated, and
// goodput is above 0. A loaded machine may fail some attempts, so the
// assertions are over the rated complete successes.
func TestGoodputWithWrongAnswers(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t, "--wrong-answer-rate", "0.2")
	out := filepath.Join(t.TempDir(), "arith.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--dataset", "arith", "--rate", "50", "--duration", "5s", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "coursekit bench: quality: ") || !strings.Contains(errs, "judged (arith, exact; 1000 of 1000 prompts have an expectation)") {
		t.Errorf("bench stderr lacks the quality line:\n%s", errs)
	}
	code, js, errs := runCLI(t, "card", out, "--format", "json")
	if code != 0 {
		t.Fatalf("card exit %d: %s", code, errs)
	}
	var c metrics.Summary
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	rated := c.QualityPasses + c.QualityFails
	t.Logf("attempts %d, complete %d, rated %d, pass rate %v, unrated %d, goodput %g/s", c.Attempts, c.CompleteSuccess, rated, *c.QualityPassRate.Value, c.UnratedSuccesses, c.Conditions[0].GoodputPerS)
	if c.Attempts < 240 || c.CompleteSuccess < 100 || rated != c.CompleteSuccess || c.UnratedSuccesses != 0 {
		t.Errorf("%d attempts, %d complete successes, %d rated, %d unrated", c.Attempts, c.CompleteSuccess, rated, c.UnratedSuccesses)
	}
	if v := c.QualityPassRate.Value; v == nil || *v < 0.7 || *v > 0.9 {
		t.Errorf("quality pass rate %v, want 0.8 ± 0.1", v)
	}
	if g := c.Conditions[0].GoodputPerS; !(g > 0) || c.Conditions[0].NotQualified.QualityFail != c.QualityFails {
		t.Errorf("goodput %g/s, not qualified %+v", g, c.Conditions[0].NotQualified)
	}
	code, text, _ := runCLI(t, "card", out)
	// A loaded test machine may have made the client late, to wake or to
	// send (the card notes both): those notes are about the machine, not
	// about this run's ratings.
	text = regexp.MustCompile(`(?m)^注意：(测量客户端自己迟到了|发送比计划晚).*\n`).ReplaceAllString(text, "")
	if code != 0 || strings.Contains(text, "都没有质量评分") || strings.Contains(text, "注意：") {
		t.Errorf("the text card has a warning:\n%s", text)
	}
}

// Without a dataset the run still works, and both the bench summary and
// the card say why goodput is 0 and how to get a judge.
func TestGoodputZeroExplained(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "1ms")
	out := filepath.Join(t.TempDir(), "plain.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "40", "--duration", "300ms", "--max-tokens", "4", "--out", out)
	if code != 0 || !strings.Contains(errs, "quality: not judged (no --dataset)") || !strings.Contains(errs, "--dataset arith") {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	code, text, _ := runCLI(t, "card", out)
	if code != 0 || !strings.Contains(text, "都没有质量评分") || !strings.Contains(text, "coursekit bench --dataset arith") {
		t.Errorf("card exit %d:\n%s", code, text)
	}
}

// A bad dataset stops bench before anything is sent, naming FILE:LINE.
func TestBenchBadDataset(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "q.jsonl")
	writeFile(t, bad, `{"prompt":"ok","expect":{"exact":"1"}}`+"\n"+`{"prompt":"x","expect":{"regex":"(("}}`+"\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--dataset", bad}, bad + ":2: expect.regex: regex"},
		{[]string{"--dataset", "arithmetic"}, `no built-in dataset of that name (built in: arith)`},
		{[]string{"--dataset", filepath.Join(dir, "missing.jsonl")}, "no such file"},
		{[]string{"--dataset", "arith", "--prompt-tokens", "8"}, "--prompt-tokens applies to generated prompts"},
	} {
		code, _, errs := runCLI(t, append([]string{"bench", "--url", "http://127.0.0.1:1", "--rate", "5", "--duration", "1s"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %s", c.args, code, errs)
		}
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// `coursekit import --dataset` judges vLLM's saved texts by prompt order,
// against the committed arith file vLLM would have been given.
func TestImportDatasetCLI(t *testing.T) {
	dir := t.TempDir()
	items := dataset.Arith(1, 20).Items
	var texts []any
	var ttfts, lats, starts []float64
	var itls [][]float64
	var errs []string
	for i, it := range items {
		v, _ := dataset.SolveArith(it.Prompt)
		if i%5 == 4 {
			v++ // every fifth answer wrong
		}
		texts = append(texts, " "+strconv.FormatInt(v, 10))
		ttfts, lats, starts = append(ttfts, 0.05), append(lats, 0.08), append(starts, float64(i)*0.1)
		itls, errs = append(itls, []float64{}), append(errs, "")
	}
	raw, _ := json.Marshal(map[string]any{"duration": 2.0, "request_goodput": 10.0, "ttfts": ttfts, "itls": itls, "latencies": lats, "start_times": starts, "errors": errs, "generated_texts": texts})
	res := filepath.Join(dir, "vllm.json")
	writeFile(t, res, string(raw))
	out := filepath.Join(dir, "t.jsonl")
	code, _, stderr := runCLI(t, "import", "--lang", "en", "--from", "vllm", res, "--dataset", filepath.Join("..", "..", "..", "data", "datasets", "arith.jsonl"), "-o", out)
	if code != 0 || !strings.Contains(stderr, "16 pass, 4 fail, 0 complete successes unrated") || !strings.Contains(stderr, "qualified 16/2 s = 8/s [1]") || !strings.Contains(stderr, "[1] request_goodput, ours nearest-rank: qualified means complete success ∧ quality pass ∧ TTFT ≤ 1 s") {
		t.Fatalf("import exit %d:\n%s", code, stderr)
	}
	code, js, _ := runCLI(t, "card", out, "--format", "json")
	var c metrics.Summary
	json.Unmarshal([]byte(js), &c)
	if code != 0 || c.QualityPasses != 16 || c.QualityFails != 4 || c.UnratedSuccesses != 0 || !(c.Conditions[0].GoodputPerS > 0) {
		t.Errorf("card %d: %d pass, %d fail, %d unrated", code, c.QualityPasses, c.QualityFails, c.UnratedSuccesses)
	}
	// "arith" names the same file; a bad dataset is exit 2 with FILE:LINE.
	if code, _, stderr := runCLI(t, "import", "--lang", "en", "--from", "vllm", res, "--dataset", "arith", "-q", "-o", out); code != 0 {
		t.Errorf("--dataset arith: exit %d %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	writeFile(t, bad, `{"prompt":"p","expect":{"json_schema":{"type":"objekt"}}}`+"\n")
	if code, _, stderr := runCLI(t, "import", "--lang", "en", "--from", "vllm", res, "--dataset", bad); code != 2 || !strings.Contains(stderr, bad+":1: expect.json_schema") {
		t.Errorf("bad dataset: exit %d %s", code, stderr)
	}
}
