package main

import (
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// An open loop whose --max-concurrency leaves most arrivals waiting: the
// trace's header records what the schedule planned, sent and left unsent,
// and the send lag by nearest rank over the attempts' own stamps; every
// view (card text in both languages, Markdown, JSON, report, compare)
// shows the sends and notes the lost load. Lost load is never only on
// stderr.
func TestUnsentArrivalsInEveryView(t *testing.T) {
	addr := startSimCLI(t, "--decode-step", "20ms", "--max-tokens", "16")
	dir := t.TempDir()
	out := filepath.Join(dir, "capped.jsonl")
	code, _, errs := runCLI(t, "bench", "--url", "http://"+addr, "--rate", "40", "--arrival", "constant", "--max-concurrency", "1",
		"--duration", "1s", "--max-tokens", "16", "--out", out)
	if code != 0 {
		t.Fatalf("bench exit %d: %s", code, errs)
	}
	tr, err := trace.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	re, err := tr.Header.RunEnd()
	if err != nil || re == nil || re.Sends == nil {
		t.Fatalf("run_end %+v (%v): want its sends", re, err)
	}
	sn := re.Sends
	// The header agrees with the attempts it heads.
	var firsts int64
	var lags []float64
	for _, a := range tr.Attempts {
		if a.ID == a.Request {
			firsts++
		}
		var m struct {
			Scheduled float64 `json:"scheduled_ms"`
		}
		if err := json.Unmarshal(a.Meta, &m); err != nil {
			t.Fatal(err)
		}
		lags = append(lags, max(a.StartMS-m.Scheduled, 0))
	}
	slices.Sort(lags)
	n := len(lags)
	near := func(v, want float64) bool { return math.Abs(v-want) < 2e-3 }
	if sn.Sent != firsts || sn.Planned != sn.Sent+sn.Unsent || sn.Unsent == 0 || sn.LagN != int64(n) ||
		!near(sn.LagP50MS, lags[metrics.NearestRankIndex(n, 0.5)]) || !near(sn.LagP99MS, lags[metrics.NearestRankIndex(n, 0.99)]) || !near(sn.LagMaxMS, lags[n-1]) {
		t.Fatalf("sends %+v; the trace has %d first attempts and lags %v", *sn, firsts, lags)
	}
	// 40 arrivals planned a second, one slot, answers of ~350 ms.
	if sn.Planned < 35 || sn.Unsent < sn.Planned/2 {
		t.Errorf("sends %+v: want most of ~40 planned arrivals unsent", *sn)
	}

	views := map[string][]string{}
	cli := func(name string, args ...string) string {
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%s exit %d: %s", name, code, stderr)
		}
		return stdout
	}
	itoa := func(v int64) string { b, _ := json.Marshal(v); return string(b) }
	views["card text"] = []string{cli("card", "card", out), "计划的 " + itoa(sn.Planned) + " 次到达中有 " + itoa(sn.Unsent) + " 次没有发出", "计划到达 " + itoa(sn.Planned) + " 次", "发送延迟（实际发送 − 计划发送时刻"}
	views["card text en"] = []string{cli("card", "card", "--lang", "en", out), itoa(sn.Unsent) + " of the " + itoa(sn.Planned) + " planned arrivals were never sent", "Send lag (actual send − scheduled send"}
	views["card markdown"] = []string{cli("card", "card", "--format", "markdown", out), "**注意：计划的 " + itoa(sn.Planned) + " 次到达", "- 发送（开环的计划）：计划到达 " + itoa(sn.Planned)}
	report := filepath.Join(dir, "r.html")
	cli("report", "report", out, "-o", report)
	page, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	views["report"] = []string{html.UnescapeString(string(page)), "计划的 " + itoa(sn.Planned) + " 次到达中有 " + itoa(sn.Unsent) + " 次没有发出", "发送延迟（实际发送 − 计划发送时刻"}
	views["compare"] = []string{cli("compare", "compare", out, out), "计划的 " + itoa(sn.Planned) + " 次到达中有 " + itoa(sn.Unsent) + " 次没有发出"}
	for name, v := range views {
		for _, want := range v[1:] {
			if !strings.Contains(v[0], want) {
				t.Errorf("%s lacks %q:\n%s", name, want, v[0])
			}
		}
	}
	var js metrics.Summary
	if err := json.Unmarshal([]byte(cli("card", "card", "--format", "json", out)), &js); err != nil {
		t.Fatal(err)
	}
	if js.RunEnd == nil || js.RunEnd.Sends == nil || *js.RunEnd.Sends != *sn {
		t.Errorf("card JSON run_end %+v, want the header's sends %+v", js.RunEnd, *sn)
	}
	var cmp compare.Result
	if err := json.Unmarshal([]byte(cli("compare", "compare", "--format", "json", out, out)), &cmp); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(cmp.Warnings, func(w compare.Warning) bool { return w.Kind == compare.WarnSends }) {
		t.Errorf("compare warnings %+v lack %q", cmp.Warnings, compare.WarnSends)
	}
}
