package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Without a dataset, latency SLOs give a goodput above 0: the run's SLO
// set is in the header, and its card uses it without flags.
func TestBenchLatencySLOWithoutJudge(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t)
	out := filepath.Join(t.TempDir(), "slo.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "20", "--duration", "2s", "--progress", "0",
		"--slo-ttft", "5s", "--slo-e2e", "20s", "--slo-itl-p95", "5s", "--slo-tpot", "5s", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	set, err := metrics.HeaderSLO(&tr.Header)
	want := metrics.SLOSet{TTFTMS: []float64{5000}, LatencySLO: metrics.LatencySLO{E2EMS: 20000, ITLP95MS: 5000, TPOTMS: 5000}}
	if err != nil || set == nil || set.TTFTMS[0] != 5000 || set.LatencySLO != want.LatencySLO {
		t.Fatalf("header conditions.slo = %+v, %v; want %+v", set, err, want)
	}
	code, js, errs := runCLI(t, "card", out, "--format", "json")
	if code != 0 {
		t.Fatalf("card exit %d: %s", code, errs)
	}
	var c metrics.Summary
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	k := c.Conditions[0]
	if k.QualityRule != metrics.QualityNotJudged || k.SLOTTFTMS != 5000 || k.LatencySLO != want.LatencySLO {
		t.Errorf("condition %+v", k)
	}
	d := k.NotQualified
	if k.Qualified == 0 || k.Qualified+d.NotComplete+d.QualityFail+d.QualityUnrated+d.TTFTOverSLO+d.E2EOverSLO+d.ITLOverSLO+d.TPOTOverSLO != c.Attempts {
		t.Errorf("qualified %d + drops %+v must be all %d attempts, some qualified", k.Qualified, d, c.Attempts)
	}
	code, txt, _ := runCLI(t, "card", out)
	if code != 0 || !strings.Contains(txt, "未评质量：只按时延判定") || !strings.Contains(txt, "逐次判定：") {
		t.Errorf("text card does not say quality was not judged:\n%s", txt)
	}
}

func TestCardLatencySLOFlags(t *testing.T) {
	code, js, errs := runCLI(t, "card", "../../../data/unit01/trace.jsonl", "--format", "json", "--slo-e2e", "1s", "--slo-itl-p95", "70ms")
	if code != 0 {
		t.Fatalf("card exit %d: %s", code, errs)
	}
	var c metrics.Summary
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	// The unit's trace is rated, so quality is still required; TTFT takes its default.
	k := c.Conditions[0]
	if len(c.Conditions) != 1 || k.SLOTTFTMS != 1000 || k.QualityRule != metrics.QualityJudged || k.LatencySLO.E2EMS != 1000 || k.LatencySLO.ITLP95MS != 70 {
		t.Errorf("conditions %+v", c.Conditions)
	}
	if k.Qualified >= 5 { // 5 qualify on TTFT alone; the extra SLOs can only remove some
		t.Errorf("qualified %d with E2E and ITL SLOs, want < 5", k.Qualified)
	}
	for _, bad := range [][]string{{"--slo-e2e", "0s"}, {"--slo-tpot", "fast"}, {"--slo-itl-p95", "-5ms"}} {
		code, _, errs := runCLI(t, append([]string{"card", "../../../data/unit01/trace.jsonl"}, bad...)...)
		if code != 2 || !strings.Contains(errs, bad[0]) {
			t.Errorf("%v: exit %d, %s", bad, code, errs)
		}
	}
}

// capacity passes the same SLO set: without a dataset, a step qualifies on
// latency alone, and each step's card recomputes it from conditions.slo.
func TestCapacityLatencySLOWithoutJudge(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t, "--max-tokens", "10")
	out := filepath.Join(t.TempDir(), "steps")
	code, stdout, stderr := runCLI(t, "capacity", "--url", "http://"+addr, "--max-tokens", "10", "--slo-ttft", "5s", "--slo-e2e", "10s", "--slo-tpot", "1s",
		"--target", "0.5", "--start-rate", "10", "--max-rate", "40", "--resolution", "20", "--warmup", "0s",
		"--step-duration", "1s", "--step-max-duration", "1s", "--format", "json", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		metrics.LatencySLO
		Steps []struct {
			Attempts, Qualified int64
			InFlight            int64 `json:"in_flight"`
			Reason, Trace       string
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.LatencySLO != (metrics.LatencySLO{E2EMS: 10000, TPOTMS: 1000}) || len(res.Steps) == 0 {
		t.Fatalf("result %s", stdout)
	}
	if res.Steps[0].Qualified == 0 {
		t.Errorf("first step: 0 of %d qualified on latency alone", res.Steps[0].Attempts)
	}
	for _, s := range res.Steps {
		code, js, errs := runCLI(t, "card", "--format", "json", s.Trace)
		if code != 0 {
			t.Fatalf("card %s: %s", s.Trace, errs)
		}
		var c metrics.Summary
		if err := json.Unmarshal([]byte(js), &c); err != nil {
			t.Fatal(err)
		}
		// A step stopped early leaves out the attempts the stop cut off,
		// which its trace keeps in flight (docs/capacity.md).
		want := s.Attempts
		if strings.HasPrefix(s.Reason, "stopped early") {
			want += s.InFlight
		}
		if c.Attempts != want || c.Conditions[0].Qualified != s.Qualified || c.Conditions[0].QualityRule != metrics.QualityNotJudged {
			t.Errorf("step card %d/%d (%s), search %d/%d", c.Conditions[0].Qualified, c.Attempts, c.Conditions[0].QualityRule, s.Qualified, s.Attempts)
		}
	}
}

// --num-requests ends a bench run, and the card says which bound ended it.
func TestBenchNumRequestsCardSaysWhichEnded(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t)
	dir := t.TempDir()
	capped, bounded := filepath.Join(dir, "n.jsonl"), filepath.Join(dir, "w.jsonl")
	if code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "100", "--duration", "1m", "--num-requests", "12", "--progress", "0", "--out", capped); code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	if code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "10", "--duration", "300ms", "--num-requests", "500", "--progress", "0", "--out", bounded); code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	_, txt, _ := runCLI(t, "card", capped)
	if !strings.Contains(txt, "全部尝试：12 次") || !strings.Contains(txt, "结束方式：发满 --num-requests 12 个请求") {
		t.Errorf("capped card:\n%s", txt)
	}
	_, txt, _ = runCLI(t, "card", bounded)
	if !strings.Contains(txt, "结束方式：计划窗口先到，没有发满 --num-requests 500 个请求") {
		t.Errorf("window-bounded card:\n%s", txt)
	}
	if code, _, errs := runCLI(t, "bench", "--rate", "1", "--num-requests", "-1"); code != 2 || !strings.Contains(errs, "number of requests") {
		t.Errorf("--num-requests -1: exit %d, %s", code, errs)
	}
}

func TestBenchMaxConcurrencyNeedsOpenLoop(t *testing.T) {
	code, _, errs := runCLI(t, "bench", "--concurrency", "4", "--max-concurrency", "2")
	if code != 2 || !strings.Contains(errs, "--max-concurrency caps an open loop") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

func TestCardPercentilesFlag(t *testing.T) {
	code, txt, errs := runCLI(t, "card", "../../../data/unit01/trace.jsonl", "--percentiles", "50,99.9")
	if code != 0 || !strings.Contains(txt, "P50 500 ms · P95 2000 ms · P99.9 2000 ms · 最大 2000 ms") { // P95 always (cardfmt.P95Kept)
		t.Errorf("exit %d (%s):\n%s", code, errs, txt)
	}
	for _, bad := range []string{"99.9.9", "0", "100.5"} {
		code, _, errs := runCLI(t, "card", "../../../data/unit01/trace.jsonl", "--percentiles", bad)
		if code != 2 || !strings.Contains(errs, "--percentiles") || !strings.Contains(errs, bad) {
			t.Errorf("%q: exit %d, %s", bad, code, errs)
		}
	}
}

// bench records --percentiles in the header; the run's card shows them.
func TestBenchPercentilesAreTheCardsDefault(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t)
	out := filepath.Join(t.TempDir(), "p.jsonl")
	if code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "50", "--duration", "500ms", "--percentiles", "50,99.9", "--progress", "0", "--out", out); code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	code, js, errs := runCLI(t, "card", out, "--format", "json")
	if code != 0 {
		t.Fatalf("card exit %d: %s", code, errs)
	}
	var c metrics.Summary
	if err := json.Unmarshal([]byte(js), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.TTFT.Chosen) != 2 || c.TTFT.Chosen[1].P != 0.999 || c.TTFT.Chosen[1].Value == nil {
		t.Errorf("TTFT levels %+v", c.TTFT.Chosen)
	}
	if code, _, errs := runCLI(t, "bench", "--rate", "1", "--percentiles", "100.5"); code != 2 || !strings.Contains(errs, "--percentiles") {
		t.Errorf("bad --percentiles: exit %d, %s", code, errs)
	}
}

// --metrics-url scrapes the server's /metrics into a sidecar named in the
// header, on the trace's clock; a failed scrape is a line with its error.
// Every line of the good URL has values: stopping at the run's end starts no
// scrape after it (a tick ready with the stop once started one cancelled,
// whose line held only "context canceled"; see loadgen's startScrapes).
func TestBenchMetricsSidecar(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t)
	dir := t.TempDir()
	for _, c := range []struct{ path, want string }{{"/metrics", "values"}, {"/nope", "error"}} {
		out := filepath.Join(dir, strings.Trim(c.path, "/")+".jsonl")
		code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "20", "--duration", "1s", "--progress", "0",
			"--metrics-url", "http://"+addr+c.path, "--metrics-interval", "100ms", "--out", out)
		if code != 0 {
			t.Fatalf("bench exit %d: %s", code, errs)
		}
		tr, err := trace.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var cond struct {
			Sidecar string `json:"metrics_sidecar"`
		}
		if err := json.Unmarshal(tr.Header.Conditions, &cond); err != nil || cond.Sidecar != filepath.Base(out)+".metrics.jsonl" {
			t.Fatalf("header names sidecar %q (%v)", cond.Sidecar, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, cond.Sidecar))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		last := -1.0
		for _, l := range lines {
			var s map[string]json.RawMessage
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			var tms, dur float64
			json.Unmarshal(s["t_ms"], &tms)
			json.Unmarshal(s["dur_ms"], &dur)
			if _, ok := s[c.want]; !ok || tms < last || !(dur > 0) {
				t.Errorf("%s: line %s lacks %s, goes back in time or has no duration", c.path, l, c.want)
			}
			last = tms
		}
		if len(lines) < 5 {
			t.Errorf("%s: %d scrapes in a 1 s run at 100 ms", c.path, len(lines))
		}
	}
	if code, _, errs := runCLI(t, "bench", "--rate", "1", "--metrics-url", "http://127.0.0.1:1/metrics"); code != 2 || !strings.Contains(errs, "needs --out FILE") {
		t.Errorf("--metrics-url to stdout: exit %d, %s", code, errs)
	}
}
