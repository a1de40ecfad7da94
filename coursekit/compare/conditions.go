package compare

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// The conditions of a run, read off its trace's header:
//
//   - every value under conditions (model, api, max_tokens, prompt and
//     prefix_reuse, arrival, loop, concurrency or rate_per_s, warmup_ms,
//     duration_ms, timeout_ms, slo, dataset, the lab's engine settings,
//     …), nested objects by dotted names (engine.parallel), lists whole;
//     but for run_end and metrics_sidecar, which say how this run ended
//     and where its scrapes are, not what it measured;
//   - clock, and window_s, the length of the measured window, for a trace
//     that records no run_end (a hand-made or imported one, whose window
//     is all it says of what was measured). A live run's window is an
//     outcome, not a condition: its plan is duration_ms (from run_end's
//     planned_duration_ms when the conditions lack it) and, from run_end,
//     num_requests; when the run ended (the last answer of
//     --num-requests, an interrupt) and what it sent are outcomes, which
//     the card and compare's warnings show;
//   - server, the origin (scheme://host:port) of the URL bench was pointed
//     at (meta.url), whatever else the conditions say (engine settings
//     describe a server, not which one was measured), unless the
//     conditions name their own server (the lab's engine, started on
//     whatever port is free, names itself).
var perRun = map[string]bool{"run_end": true, "metrics_sidecar": true}

// ConditionDiff is a condition whose values differ between the sides. A
// and B are the side's value, or the list of its runs' distinct values
// when they differ among themselves (see RunsDiffer); null when no run of
// the side records it.
//
// A condition is one entry however many of its keys differ: when several
// keys under one top-level condition differ (prefix_reuse, a string in
// one bench mode and an object in dataset mode), Name is that condition,
// A and B its whole values, and Keys the dotted keys that differ.
type ConditionDiff struct {
	Name string          `json:"name"`
	A    json.RawMessage `json:"a"`
	B    json.RawMessage `json:"b"`
	Keys []string        `json:"keys,omitempty"`
}

// RunsDiffer is a condition key on which the runs of one side differ, one
// entry a key (engine.parallel and engine.threads apart): Values holds
// every run's value in order (null where a run records none; the whole
// object where a run records the key as one, its members under their own
// keys).
type RunsDiffer struct {
	Side   string            `json:"side"`
	Name   string            `json:"name"`
	Values []json.RawMessage `json:"values"`
}

// Conditions are the conditions of a run, by name, each as compact JSON.
func Conditions(s *metrics.Summary) map[string]string {
	out := map[string]string{
		"clock":    canonical(mustJSON(s.Clock)),
		"window_s": strconv.FormatFloat(s.WindowS, 'f', -1, 64),
	}
	var cond map[string]json.RawMessage
	raw := bytes.TrimSpace(s.TraceConditions)
	switch {
	case len(raw) == 0:
	case raw[0] == '{' && json.Unmarshal(raw, &cond) == nil:
		for k, v := range cond {
			if !perRun[k] {
				flatten(out, k, v)
			}
		}
	default:
		out["conditions"] = canonical(raw)
	}
	// A live run's window is what the run achieved, not what it was asked:
	// its plan is duration_ms, and the request cap when it had one.
	if s.RunEnd != nil {
		delete(out, "window_s")
		if _, ok := out["duration_ms"]; !ok { // the plan, where the conditions do not say it
			out["duration_ms"] = strconv.FormatFloat(s.RunEnd.PlannedDurationMS, 'f', -1, 64)
		}
		if n := s.RunEnd.NumRequests; n > 0 {
			out["num_requests"] = strconv.FormatInt(n, 10)
		}
	} else if d, ok := out["duration_ms"]; ok {
		// A trace that says its planned duration but not how it ended: one
		// condition, not two, when the window is that duration.
		if ms, err := strconv.ParseFloat(d, 64); err == nil && ms/1000 == s.WindowS {
			delete(out, "window_s")
		}
	}
	if _, ok := out["server"]; !ok {
		var meta struct {
			URL *string `json:"url"`
		}
		if json.Unmarshal(s.TraceMeta, &meta) == nil && meta.URL != nil {
			out["server"] = canonical(mustJSON(origin(*meta.URL)))
		}
	}
	return out
}

// origin is the server a URL names: scheme://host:port, without user
// information, path, query or fragment (a path is an API's, not another
// server; the rest may hold secrets). A URL that does not parse is kept
// as written (bench redacts it before it reaches the trace).
func origin(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return u
	}
	return p.Scheme + "://" + p.Host
}

// flatten puts v under name, and an object's members under name.key.
func flatten(out map[string]string, name string, v json.RawMessage) {
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(v); len(t) > 0 && t[0] == '{' && json.Unmarshal(t, &obj) == nil && len(obj) > 0 {
		for k, w := range obj {
			flatten(out, name+"."+k, w)
		}
		return
	}
	out[name] = canonical(v)
}

// canonical is v re-encoded: keys sorted, no space, numbers the short way.
func canonical(v []byte) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return string(bytes.TrimSpace(v))
	}
	return string(mustJSON(x))
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// ReplicateKey is the condition that tells replicates apart: bench's
// --seed draws each repeat's arrival schedule (the same seed replays the
// same schedule), so a different seed per run is how independent
// replicates are made. It is never a changed condition, nor one on which
// a side's runs differ; the report lists the seeds once (Seeds).
const ReplicateKey = "seed"

// replicateKey reports whether a condition is the seed: ReplicateKey, or
// a seed under another condition (bench --dataset arith records the same
// --seed as dataset.seed, which draws its questions).
func replicateKey(name string) bool {
	return name == ReplicateKey || strings.HasSuffix(name, "."+ReplicateKey)
}

// noneValues are the values a condition records for "nothing" (compact
// JSON): "none", gen's "无", false and the empty string. They compare as
// one value (sameValue), so that the practice trace's "无" is not a change
// from the teaching trace's "none".
var noneValues = map[string]bool{`"none"`: true, `"无"`: true, `false`: true, `""`: true}

// sameValue is the one place condition values are normalised before they
// are compared: a value meaning none is `"none"`; "" (not recorded) stays.
func sameValue(v string) string {
	if noneValues[v] {
		return `"none"`
	}
	return v
}

// conditions lists the conditions that differ between the sides, and
// those on which a side's runs differ among themselves, by name. Values
// are compared normalised (sameValue) and shown as the runs wrote them.
//
// The recorded SLOs (slo, slo.*) are a judgement, not a condition of the
// run: every run is judged under one SLO set whatever it recorded. They
// are returned apart (slos), one entry per key whose values differ between
// the sides or among a side's runs, never as changed conditions.
func conditions(a, b []*metrics.Summary) (changed []ConditionDiff, differ []RunsDiffer, slos []ConditionDiff) {
	ca, cb := runConditions(a), runConditions(b)
	names := map[string]bool{}
	for _, c := range slices.Concat(ca, cb) {
		for k := range c {
			if !replicateKey(k) {
				names[k] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		va, vb := values(ca, name), values(cb, name)
		if recordedSLO(name) {
			if !slices.Equal(distinctSame(va), distinctSame(vb)) || len(distinctSame(va)) > 1 || len(distinctSame(vb)) > 1 {
				slos = append(slos, ConditionDiff{Name: name, A: sideValue(distinct(va)), B: sideValue(distinct(vb))})
			}
			continue
		}
		for _, s := range []struct {
			side string
			vs   []string
		}{{"a", va}, {"b", vb}} {
			if len(distinctSame(s.vs)) > 1 {
				rd := RunsDiffer{Side: s.side, Name: name}
				runs, conds := a, ca
				if s.side == "b" {
					runs, conds = b, cb
				}
				for i, v := range s.vs {
					if v == "" && recordsUnder(conds[i], name) {
						v = nestedValue(runs[i], name)
					}
					rd.Values = append(rd.Values, raw(v))
				}
				differ = append(differ, rd)
			}
		}
		if !slices.Equal(distinctSame(va), distinctSame(vb)) {
			changed = append(changed, ConditionDiff{Name: name, A: sideValue(distinct(va)), B: sideValue(distinct(vb))})
		}
	}
	return foldDerived(onceEach(changed, a, b)), differ, slos
}

// derivedFrom are the conditions bench derives from others, each with the
// conditions that produce it, in the order tried: conditions.prompt
// describes the prompt that prompt_tokens and prefix_reuse make
// (--prompt-reuse same changes both prefix_reuse and prompt;
// --prompt-tokens 64 both prompt_tokens and prompt); metrics_scrape
// describes the scrapes of metrics_url (bench's --metrics-url sets both).
var derivedFrom = map[string][]string{
	"prompt":         {"prefix_reuse", "prompt_tokens"},
	"metrics_scrape": {"metrics_url"},
}

// foldDerived counts a derived condition that differs together with a
// condition producing it as part of that one: one change, its keys
// listed (prompt_tokens (itself, prompt)), as a condition's own keys are.
func foldDerived(changed []ConditionDiff) []ConditionDiff {
	for derived, producers := range derivedFrom {
		at := slices.IndexFunc(changed, func(c ConditionDiff) bool { return c.Name == derived })
		if at < 0 {
			continue
		}
		for _, p := range producers {
			i := slices.IndexFunc(changed, func(c ConditionDiff) bool { return c.Name == p })
			if i < 0 {
				continue
			}
			if len(changed[i].Keys) == 0 {
				changed[i].Keys = []string{p}
			}
			changed[i].Keys = append(changed[i].Keys, derived)
			changed = slices.Delete(changed, at, at+1)
			break
		}
	}
	return changed
}

// recordedSLO reports whether a condition is a recorded SLO: slo or a key
// under it.
func recordedSLO(name string) bool { return name == "slo" || strings.HasPrefix(name, "slo.") }

// recordsUnder reports whether a run's conditions hold keys under name
// (name.key): the run records name as an object.
func recordsUnder(c map[string]string, name string) bool {
	for k := range c {
		if strings.HasPrefix(k, name+".") {
			return true
		}
	}
	return false
}

// nestedValue is run s's object at the dotted name (as flatten names its
// members), as compact JSON; "" when it has none. A side's runs that
// record a condition in two shapes (prefix_reuse "itself" in one, an
// object {"mode": …} in another) differ in the condition itself: the run
// with the object shows it whole there, not "(not recorded)".
func nestedValue(s *metrics.Summary, name string) string {
	var walk func(v json.RawMessage, prefix string) string
	walk = func(v json.RawMessage, prefix string) string {
		if prefix == name {
			return canonical(v)
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(v, &obj) != nil {
			return ""
		}
		for k, w := range obj {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			if p == name || strings.HasPrefix(name, p+".") {
				if out := walk(w, p); out != "" {
					return out
				}
			}
		}
		return ""
	}
	return walk(s.TraceConditions, "")
}

// distinctSame is the sorted set of vs normalised (sameValue).
func distinctSame(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = sameValue(v)
	}
	return distinct(out)
}

// Seeds are each run's recorded seed (ReplicateKey) on each side, as
// written ("" where a run records none); nil when no run records one.
func (r *Result) Seeds() (a, b []string) {
	any := false
	for _, side := range []struct {
		runs []*metrics.Summary
		out  *[]string
	}{{r.A.runs, &a}, {r.B.runs, &b}} {
		for _, s := range side.runs {
			v := Conditions(s)[ReplicateKey]
			any = any || v != ""
			*side.out = append(*side.out, v)
		}
	}
	if !any {
		return nil, nil
	}
	return a, b
}

// seededSchedule reports whether run s draws its arrival schedule from
// its seed: an open loop on a generated schedule (not a closed loop, whose
// users send when their previous request ends, nor a replay of a recorded
// schedule).
func seededSchedule(s *metrics.Summary) bool {
	c := Conditions(s)
	return c["loop"] == `"open"` && c["arrival"] != `"replay"`
}

// closedLoop reports whether run s ran a closed loop.
func closedLoop(s *metrics.Summary) bool { return Conditions(s)["loop"] == `"closed"` }

// SameSeed is a seed two or more open-loop runs of one side share: they
// replay one arrival schedule. Side is "a" or "b", Runs the runs' names.
type SameSeed struct {
	Side, Seed string
	Runs       []string
}

// SameSeeds are, per side, the seeds shared by two or more runs that draw
// their arrival schedule from it (seededSchedule), in run order.
func (r *Result) SameSeeds() []SameSeed {
	var out []SameSeed
	for _, side := range []struct {
		name string
		s    Side
	}{{"a", r.A}, {"b", r.B}} {
		bySeed := map[string][]string{}
		var order []string
		for i, s := range side.s.runs {
			v := Conditions(s)[ReplicateKey]
			if v == "" || !seededSchedule(s) {
				continue
			}
			if bySeed[v] == nil {
				order = append(order, v)
			}
			bySeed[v] = append(bySeed[v], side.s.Traces[i])
		}
		for _, v := range order {
			if len(bySeed[v]) > 1 {
				out = append(out, SameSeed{Side: side.name, Seed: v, Runs: bySeed[v]})
			}
		}
	}
	return out
}

// PairedSeeds are the seeds that open-loop runs of A and of B share, in
// A's run order: the sides replay one arrival schedule, a paired design
// (intended; a seed shared within a side is not: SameSeeds).
func (r *Result) PairedSeeds() []string {
	inB := map[string]bool{}
	for _, s := range r.B.runs {
		if v := Conditions(s)[ReplicateKey]; v != "" && seededSchedule(s) {
			inB[v] = true
		}
	}
	var out []string
	for _, s := range r.A.runs {
		if v := Conditions(s)[ReplicateKey]; inB[v] && seededSchedule(s) && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// onceEach merges the changed keys under one top-level condition into one
// entry, with the condition's whole values on each side.
func onceEach(changed []ConditionDiff, a, b []*metrics.Summary) []ConditionDiff {
	top := func(name string) string { t, _, _ := strings.Cut(name, "."); return t }
	var out []ConditionDiff
	for i := 0; i < len(changed); {
		j := i + 1
		for j < len(changed) && top(changed[j].Name) == top(changed[i].Name) {
			j++
		}
		if j-i == 1 {
			out = append(out, changed[i])
		} else {
			t := top(changed[i].Name)
			c := ConditionDiff{Name: t, A: sideValue(distinct(topValues(a, t))), B: sideValue(distinct(topValues(b, t)))}
			for _, d := range changed[i:j] {
				c.Keys = append(c.Keys, d.Name)
			}
			out = append(out, c)
		}
		i = j
	}
	return out
}

// topValues is every run's value of the top-level condition name, as
// compact JSON; "" where a run has none.
func topValues(runs []*metrics.Summary, name string) []string {
	out := make([]string, len(runs))
	for i, s := range runs {
		var cond map[string]json.RawMessage
		if json.Unmarshal(s.TraceConditions, &cond) == nil {
			if v, ok := cond[name]; ok {
				out[i] = canonical(v)
			}
		}
	}
	return out
}

func runConditions(runs []*metrics.Summary) []map[string]string {
	out := make([]map[string]string, len(runs))
	for i, s := range runs {
		out[i] = Conditions(s)
	}
	return out
}

// values is every run's value of name; "" where a run has none.
func values(runs []map[string]string, name string) []string {
	out := make([]string, len(runs))
	for i, c := range runs {
		out[i] = c[name]
	}
	return out
}

// distinct is the sorted set of vs.
func distinct(vs []string) []string {
	out := slices.Clone(vs)
	slices.Sort(out)
	return slices.Compact(out)
}

// raw is a value as JSON: null when absent.
func raw(v string) json.RawMessage {
	if v == "" {
		return json.RawMessage("null")
	}
	return json.RawMessage(v)
}

// sideValue is a side's one value, or the list of its distinct values.
func sideValue(vs []string) json.RawMessage {
	if len(vs) == 1 {
		return raw(vs[0])
	}
	list := make([]json.RawMessage, len(vs))
	for i, v := range vs {
		list[i] = raw(v)
	}
	return mustJSON(list)
}
