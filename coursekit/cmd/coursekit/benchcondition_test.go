package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// bench --condition records a server-side condition in the header's
// conditions (a dotted key nests, a number stays a number), card's JSON
// echoes it and compare names it as the one changed condition; a key that
// bench records itself or coursekit reads is refused, in any case.
func TestBenchCondition(t *testing.T) {
	addr := startSimCLI(t)
	dir := t.TempDir()
	bench := func(out string, extra ...string) (int, string) {
		args := append([]string{"bench", "--url", "http://" + addr, "--concurrency", "1", "--duration", "1s", "--progress", "0", "--out", out}, extra...)
		code, _, errs := runCLI(t, args...)
		return code, errs
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if code, errs := bench(a, "--condition", "engine.parallel=1", "--condition", "server.build=b1"); code != 0 {
		t.Fatalf("bench: %s", errs)
	}
	if code, errs := bench(b, "--condition", "engine.parallel=4", "--condition", "server.build=b1"); code != 0 {
		t.Fatalf("bench: %s", errs)
	}
	code, out, errs := runCLI(t, "card", a, "--format", "json")
	if code != 0 {
		t.Fatalf("card: %s", errs)
	}
	var card struct {
		TraceConditions struct {
			Engine struct{ Parallel json.RawMessage } `json:"engine"`
			Server struct{ Build string }             `json:"server"`
		} `json:"trace_conditions"`
	}
	if err := json.Unmarshal([]byte(out), &card); err != nil || string(card.TraceConditions.Engine.Parallel) != "1" || card.TraceConditions.Server.Build != "b1" {
		t.Errorf("card's trace_conditions: %+v (%v)", card.TraceConditions, err)
	}
	code, out, errs = runCLI(t, "compare", a, b, "--format", "json")
	if code != 0 {
		t.Fatalf("compare: %s", errs)
	}
	var r compareJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, c := range r.ConditionsChanged {
		changed = append(changed, c.Name+"="+string(c.A)+"→"+string(c.B))
	}
	if strings.Join(changed, " ") != "engine.parallel=1→4" {
		t.Errorf("changed: %v, want engine.parallel alone", changed)
	}
	for _, c := range []struct{ flag, want string }{
		{"slo=1", `"slo" is a condition bench records itself`},
		{"Percentiles.x=1", `"Percentiles" is a condition bench records itself`},
		{"dataset=arith", `"dataset"`},
		{"model=other", `"model"`},
		{"engine", "want KEY=VALUE"},
		{"engine..x=1", "no empty part"},
	} {
		code, errs := bench(filepath.Join(dir, "x.jsonl"), "--condition", c.flag)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("--condition %s: exit %d, %s; want exit 2 saying %q", c.flag, code, errs, c.want)
		}
	}
	code, errs = bench(filepath.Join(dir, "x.jsonl"), "--condition", "engine=1", "--condition", "engine.parallel=4")
	if code != 2 || !strings.Contains(errs, "engine already has a value") {
		t.Errorf("engine and engine.parallel: exit %d, %s", code, errs)
	}
}
