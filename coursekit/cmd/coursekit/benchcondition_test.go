package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// bench --condition records a server-side condition in the header's
// conditions (a dotted key nests, a number stays a number), card's JSON
// echoes it and compare names it as the one changed condition; a key that
// bench records itself or coursekit reads is refused, in any case.
func TestBenchCondition(t *testing.T) {
	t.Parallel()
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

// --condition keys are read in any case, so two that differ only by case
// (Engine.x beside engine.x, at any level) are refused, not both recorded;
// and what --condition copies into the header is bounded: a value over the
// cap is refused with the cap named, and conditions at the caps, in
// characters JSON escapes, give a trace that card reads back.
func TestBenchConditionTwinsAndBounds(t *testing.T) {
	addr := startSimCLI(t)
	dir := t.TempDir()
	bench := func(out string, conds ...string) (int, string) {
		args := []string{"bench", "--url", "http://" + addr, "--concurrency", "1", "--duration", "300ms", "--progress", "0", "--out", out}
		for _, c := range conds {
			args = append(args, "--condition", c)
		}
		code, _, errs := runCLI(t, args...)
		return code, errs
	}
	for _, c := range []struct {
		conds []string
		want  string
	}{
		{[]string{"Engine.x=1", "engine.x=2"}, `"Engine" and "engine" differ only in case`},
		{[]string{"engine.X=1", "engine.x=2"}, `"X" and "x" differ only in case`},
		{[]string{"server.build=b1", "SERVER=b2"}, `"server" and "SERVER" differ only in case`},
		{[]string{"note=" + strings.Repeat("v", 2<<20)}, "at most 4096 bytes"},
	} {
		code, errs := bench(filepath.Join(dir, "x.jsonl"), c.conds...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%.60q: exit %d, %.300s; want exit 2 saying %q", c.conds, code, errs, c.want)
		}
	}
	var many []string
	for i := 0; len(strings.Join(many, "")) < 60<<10; i++ {
		kv := fmt.Sprintf("pad.k%02d=", i)
		many = append(many, kv+strings.Repeat("<\u0001\u202e", (4096-len(kv))/6))
	}
	out := filepath.Join(dir, "many.jsonl")
	if code, errs := bench(out, many...); code != 0 {
		t.Fatalf("%d conditions at the cap: exit %d, %s", len(many), code, errs)
	}
	if code, _, errs := runCLI(t, "card", out, "--format", "json"); code != 0 {
		t.Errorf("card of a trace bench wrote: exit %d, %.300s", code, errs)
	}
	if code, errs := bench(filepath.Join(dir, "y.jsonl"), append(many, "pad.more="+strings.Repeat("v", 4000))...); code != 2 || !strings.Contains(errs, "at most 65536 bytes") {
		t.Errorf("past the total cap: exit %d, %.300s", code, errs)
	}
}
