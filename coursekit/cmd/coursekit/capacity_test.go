package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// A search against a simulator of known capacity (8 slots × 10 tokens ×
// 2 ms: 400 req/s; idle enough at the 40 req/s start to meet the 100 ms
// SLO on a loaded, race-instrumented machine) prints the JSON, and every step's trace
// recomputes with `coursekit card` to that step's attempts and qualified.
// The first step (40 req/s, far below saturation) may lose an attempt to a
// scheduling hiccup on a loaded machine; then it is undecided and gets one
// extension (--step-max-duration 2s), with which it decides.
func TestCapacityJSONAndTracesRecompute(t *testing.T) {
	t.Parallel()
	addr := startSimCLI(t, "--max-batch", "8", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "10")
	dir := t.TempDir()
	ds := filepath.Join(dir, "any.jsonl")
	if err := os.WriteFile(ds, []byte(`{"prompt": "say anything", "expect": {"regex": "\\S"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "steps")
	code, stdout, stderr := runCLI(t, "capacity", "--url", "http://"+addr, "--dataset", ds, "--max-tokens", "10", "--slo-ttft", "100ms",
		"--target", "0.9", "--start-rate", "40", "--max-rate", "1600", "--resolution", "120", "--warmup", "200ms",
		"--step-duration", "1s", "--step-max-duration", "2s", "--format", "json", "--out", out, "--chart", filepath.Join(dir, "capacity.html"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	page, err := os.ReadFile(filepath.Join(dir, "capacity.html"))
	if err != nil || !strings.Contains(string(page), `id="capacity_attainment"`) || !strings.Contains(string(page), "结论：") {
		t.Errorf("--chart page (%v):\n%.300s", err, page)
	}
	var res struct {
		Target     float64  `json:"target"`
		SLO        float64  `json:"slo_ttft_ms"`
		Confidence float64  `json:"confidence"`
		Method     string   `json:"method"`
		MaxRate    *float64 `json:"max_rate_meeting"`
		Steps      []struct {
			Rate                          float64
			Attempts, Qualified, InFlight int64
			Verdict, Trace, Reason        string
			BusyMean                      *float64 `json:"busy_mean"`
			BusyReads                     int      `json:"busy_reads"`
			BusyMethod                    string   `json:"busy_method"`
			Metrics                       string   `json:"metrics"`
		} `json:"steps"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Target != 0.9 || res.SLO != 100 || res.Confidence != 0.95 || res.Method != "wilson" || len(res.Steps) == 0 {
		t.Fatalf("result header %+v", res)
	}
	// Under a heavy load (the flake hunt saw load average 20 on 2 cores) even the first step can
	// miss a 100 ms SLO: then the search stops there with no answer, which is right, and what is
	// left to check is that its one step recomputes. Otherwise it went up, and its answer is
	// below saturation.
	if res.Steps[0].Verdict == "meets" {
		if len(res.Steps) < 2 || res.MaxRate == nil || *res.MaxRate >= 400 {
			t.Errorf("first step met, then %d steps, answer %v; want a search that goes on and answers below the saturation of 400 req/s", len(res.Steps), res.MaxRate)
		}
	} else {
		t.Logf("the first step did not meet the SLO on this machine (%s): only its recomputation is checked", res.Steps[0].Verdict)
		if res.MaxRate != nil {
			t.Errorf("the first step %s, yet the answer is %v", res.Steps[0].Verdict, *res.MaxRate)
		}
	}
	for _, s := range res.Steps {
		code, card, errs := runCLI(t, "card", "--slo-ttft", "100ms", "--format", "json", s.Trace)
		if code != 0 {
			t.Fatalf("card %s: %s", s.Trace, errs)
		}
		var c struct {
			Attempts   int64 `json:"attempts"`
			Conditions []struct {
				Qualified int64 `json:"qualified"`
			} `json:"conditions"`
		}
		if err := json.Unmarshal([]byte(card), &c); err != nil {
			t.Fatal(err)
		}
		// A step stopped early on overload (seen at load average 10+, the
		// client too slow for 160 req/s) leaves the attempts its stop cut
		// off out of its count and names them in_flight; the card counts
		// them among its attempts, not qualified (capacity.Step.InFlight).
		want := s.Attempts
		if strings.HasPrefix(s.Reason, "stopped early: ") {
			want += s.InFlight
		}
		if c.Attempts != want || c.Conditions[0].Qualified != s.Qualified {
			t.Errorf("step %g: card says %d/%d, search says %d/%d with %d cut off in flight (%s)", s.Rate, c.Conditions[0].Qualified, c.Attempts, s.Qualified, s.Attempts, s.InFlight, s.Reason)
		}
		if !strings.HasPrefix(s.Trace, out) {
			t.Errorf("trace %s outside --out", s.Trace)
		}
		// The default --busy-gauge is the simulator's busy-seconds counter.
		// Its rate needs two reads in the window: a machine at load average
		// 10+ left a 1 s window with fewer (the scrape every 250 ms ran
		// late), and then the share is null, not a guess.
		if s.BusyMean == nil && s.BusyReads < 2 && s.BusyMethod == "counter_rate" && s.Metrics == s.Trace+".metrics.jsonl" {
			t.Logf("step %g: %d counter reads in its window: busy share null", s.Rate, s.BusyReads)
			continue
		}
		if s.BusyMean == nil || s.BusyMethod != "counter_rate" || s.Metrics != s.Trace+".metrics.jsonl" {
			t.Errorf("step %g: busy %v by %q, sidecar %q; want a share from the counter's rate beside the trace", s.Rate, s.BusyMean, s.BusyMethod, s.Metrics)
			continue
		}
		hi := busyShareBound(t, s.Trace, s.Metrics)
		t.Logf("step %g: busy share %.4f (bound from its scrapes %.4f)", s.Rate, *s.BusyMean, hi)
		if *s.BusyMean < 0 || *s.BusyMean > hi {
			t.Errorf("step %g: busy share %.4f outside [0, %.4f]", s.Rate, *s.BusyMean, hi)
		}
	}
}

// --busy-gauge "" reads no /metrics: no sidecar, and the text says the busy
// share is unknown (无) rather than 0.
func TestCapacityNoBusyGauge(t *testing.T) {
	addr := startSimCLI(t, "--max-batch", "8", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "10")
	out := filepath.Join(t.TempDir(), "steps")
	code, stdout, stderr := runCLI(t, "capacity", "--url", "http://"+addr, "--max-tokens", "10", "--slo-ttft", "100ms", "--slo-e2e", "1s",
		"--start-rate", "20", "--max-rate", "40", "--resolution", "10", "--warmup", "100ms",
		"--step-duration", "300ms", "--step-max-duration", "300ms", "--busy-gauge", "", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "设备忙碌 服务器未报告") || strings.Contains(stdout, "设备忙碌 0") {
		t.Errorf("text without a busy reading:\n%s", stdout)
	}
	side, _ := filepath.Glob(filepath.Join(out, "*.metrics.jsonl"))
	if len(side) != 0 {
		t.Errorf("--busy-gauge \"\" wrote sidecars %v", side)
	}
}

// Bad input is refused before any load: a target outside (0, 1], a
// resolution wider than the range, a search in which nothing can qualify
// (no judge and no latency SLO beyond TTFT), a server that is down.
func TestCapacityBadInput(t *testing.T) {
	dir := t.TempDir()
	// Prompts without one expected answer: nothing to judge.
	unjudged := filepath.Join(t.TempDir(), "prompts.jsonl")
	if err := os.WriteFile(unjudged, []byte(`{"prompt":"hello"}`+"\n"+`{"prompt":"two"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--target", "0", "--out", dir}, "outside (0, 1]"},
		{[]string{"--resolution", "5000", "--out", dir}, "not smaller than the searched range"},
		{[]string{"--out", dir}, "nothing can qualify"},
		{[]string{"--dataset", unjudged, "--out", dir}, "prompts.jsonl: none of its 2 prompts has an expected answer"},
		{[]string{"--dataset", unjudged, "--slo-e2e", "10s", "--out", dir}, "none of its 2 prompts has an expected answer"},
		{[]string{"--url", "http://127.0.0.1:1", "--slo-e2e", "10s", "--out", dir}, "pre-flight: nothing answers at http://127.0.0.1:1"},
		{[]string{"--chart", filepath.Join(dir, "no", "such", "c.html"), "--slo-e2e", "10s", "--out", dir}, "--chart"},
	} {
		code, _, errs := runCLI(t, append([]string{"capacity"}, c.args...)...)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errs, c.want)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("%d files written before the error", len(files))
	}
}

// busyShareBound is the highest busy share the step's scrapes allow. Each
// scrape reads the busy-seconds counter at an unknown instant within its own
// duration, and the share is timed from the scrapes' midpoints, so on a
// loaded machine, where a scrape takes tens of ms, a saturated device can read
// a little above 1 (seen: test-under-load, 320 req/s): by at most the
// bounding scrapes' durations over the time between them.
func busyShareBound(t *testing.T, tracePath, sidecar string) float64 {
	t.Helper()
	tr, err := trace.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	scrapes, err := trace.ReadScrapesFile(sidecar)
	if err != nil {
		t.Fatal(err)
	}
	w := tr.Header.Window
	var in []trace.Scrape
	for _, sc := range scrapes {
		if mid := sc.TMS + sc.DurMS/2; sc.Error == "" && mid >= w.StartMS && mid <= w.EndMS {
			in = append(in, sc)
		}
	}
	if len(in) < 2 {
		t.Fatalf("%s: %d scrapes inside the window [%g, %g] ms", sidecar, len(in), w.StartMS, w.EndMS)
	}
	first, last := in[0], in[len(in)-1]
	return (last.TMS + last.DurMS - first.TMS) / (last.TMS + last.DurMS/2 - first.TMS - first.DurMS/2)
}

// The model's name comes from the server: --format json writes its C1
// controls and bidi overrides as \u escapes, and reads back the same.
func TestCapacityJSONEscapesServerModelName(t *testing.T) {
	const model = "m\u009b2J\u202eok\u2066"
	var b strings.Builder
	if err := writeCapacityJSON(&b, &capacity.Result{Model: model, SLOTTFTMS: 1000}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(b.String(), "\u009b\u202e\u2066") || !strings.Contains(b.String(), `m\u009b2J\u202eok\u2066`) {
		t.Errorf("the model's name is not escaped:\n%s", b.String())
	}
	var got struct{ Model string }
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil || got.Model != model {
		t.Errorf("read back %q, %v; want %q", got.Model, err, model)
	}
}

// The same search twice (--previous the first's JSON): the second says
// whether its answer is the first's, and when it is not, gives a reason
// from what the searches recorded. Each step records the machine's load
// average. A --previous that is not a search's JSON is refused before any
// load.
func TestCapacityTwiceSaysWhyNot(t *testing.T) {
	t.Setenv(lang.EnvVar, "")
	addr := startSimCLI(t, "--max-batch", "8", "--decode-step", "2ms", "--decode-per-seq", "0", "--prefill-per-token", "0", "--max-tokens", "10")
	dir := t.TempDir()
	flags := []string{"--url", "http://" + addr, "--max-tokens", "10", "--slo-ttft", "100ms", "--slo-e2e", "1s", "--target", "0.5",
		"--start-rate", "20", "--max-rate", "80", "--resolution", "20", "--warmup", "100ms", "--step-duration", "300ms", "--step-max-duration", "300ms", "--busy-gauge", ""}
	code, first, stderr := runCLI(t, append([]string{"capacity", "--format", "json", "--out", filepath.Join(dir, "a")}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	prev := filepath.Join(dir, "first.json")
	os.WriteFile(prev, []byte(first), 0o644)
	code, second, stderr := runCLI(t, append([]string{"capacity", "--format", "json", "--previous", prev, "--out", filepath.Join(dir, "b")}, flags...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var a, b capacity.Result
	if err := json.Unmarshal([]byte(first), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(second), &b); err != nil {
		t.Fatal(err)
	}
	if a.Resolution != 20 || a.StartRate != 20 || a.StepDurationS != 0.3 || a.Again != nil {
		t.Errorf("the first search records its flags %+v and no comparison %v", a, a.Again)
	}
	for _, s := range append(a.Steps, b.Steps...) {
		if s.LoadAvg == nil {
			t.Errorf("step %g records no load average", s.Rate)
		}
	}
	ag := b.Again
	if ag == nil || ag.Previous != prev {
		t.Fatalf("no comparison with the previous search: %s", second)
	}
	// Both ran with the default --seed 1: the same schedules (walk 35g, F2).
	if a.Seed == nil || *a.Seed != 1 || !ag.SameSeed || ag.Seed == nil || *ag.Seed != 1 {
		t.Errorf("search seed %v, same_seed %v, seed %v; want 1, true, 1", a.Seed, ag.SameSeed, ag.Seed)
	}
	for _, s := range append(a.Steps, b.Steps...) {
		if want := s.Rate * 0.1; !s.BeforeWindow && s.WarmupArrivalsPlanned != want {
			t.Errorf("step %g: warm-up arrivals planned %g, want %g", s.Rate, s.WarmupArrivalsPlanned, want)
		}
	}
	// Two searches without an answer agree only when both are undecided or
	// neither is: "no rate meets" (a step failed) is not "undecided" (every
	// step still undecided at its longest window).
	bound := func(r capacity.Result) string {
		if r.MaxRateMeeting == nil && r.Undecided {
			return "undecided"
		}
		return r.BoundedBy
	}
	if ag.Same != (fmt.Sprint(deref(a.MaxRateMeeting)) == fmt.Sprint(deref(b.MaxRateMeeting)) && bound(a) == bound(b)) || (!ag.Same && len(ag.Reasons) == 0) {
		t.Errorf("answers %v (%s) then %v (%s): same %v, reasons %+v", deref(a.MaxRateMeeting), bound(a), deref(b.MaxRateMeeting), bound(b), ag.Same, ag.Reasons)
	}
	text := capacityTextIn(lang.EN, &b)
	if want := "Against the previous search (" + prev + "): "; !strings.Contains(text, want) || (!ag.Same && !strings.Contains(text, "Why:\n  - ")) {
		t.Errorf("text lacks %q or its reasons:\n%s", want, text)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"attempts": 3}`), 0o644)
	code, _, stderr = runCLI(t, append([]string{"capacity", "--previous", bad, "--out", filepath.Join(dir, "c")}, flags...)...)
	if code != 2 || !strings.Contains(stderr, "not a capacity search's JSON") {
		t.Errorf("a bad --previous: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "c")); !os.IsNotExist(err) {
		t.Errorf("a bad --previous sent load (%v)", err)
	}
}

// capacity --format json printed "p95_ttft_ms": 22.151999999999134 where
// the card's JSON writes 22.152: it writes its floats as the JSON card does.
func TestCapacityJSONWithoutFloatNoise(t *testing.T) {
	p95, busy := 22.151999999999134, 1.0005737952891944
	var b strings.Builder
	if err := writeCapacityJSON(&b, &capacity.Result{Target: 0.9, SLOTTFTMS: 1000,
		Steps: []capacity.Step{{Rate: 5, P95TTFTMS: &p95, BusyMax: &busy}}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"p95_ttft_ms": 22.152,`) || strings.Contains(b.String(), "9999") {
		t.Errorf("capacity's JSON keeps float noise:\n%s", b.String())
	}
	if !strings.Contains(b.String(), `"busy_max": 1.000574,`) {
		t.Errorf("capacity's JSON does not round as the card does:\n%s", b.String())
	}
}
