package capacity

import (
	"encoding/json"
	"strings"
	"testing"
)

// Two searches with one --seed replayed the same arrival schedule at every
// rate both ran: Again says so (same_seed), whatever the answers; with
// different seeds, or beside a search saved before its seed was recorded,
// it says nothing (walk 35g, F2).
func TestAgainNamesTheSameSeed(t *testing.T) {
	seed := func(v uint64) *uint64 { return &v }
	fails := judged(0.5, 0, 5, 1)
	build := func(s *uint64) *Result {
		r := searched(fails)
		r.Seed = s
		return r
	}
	ag := Again(build(seed(1)), build(seed(1)))
	if !ag.Same || !ag.SameSeed || ag.Seed == nil || *ag.Seed != 1 {
		t.Fatalf("the same --seed 1 twice: same %v, same_seed %v, seed %v", ag.Same, ag.SameSeed, ag.Seed)
	}
	js, err := json.Marshal(ag)
	if err != nil || !strings.Contains(string(js), `"same_seed":true`) || !strings.Contains(string(js), `"seed":1`) {
		t.Errorf("JSON %s (%v) lacks same_seed true and the seed", js, err)
	}
	if ag := Again(build(seed(1)), build(seed(2))); ag.SameSeed || ag.Seed != nil {
		t.Errorf("--seed 1 then 2: same_seed %v, seed %v", ag.SameSeed, ag.Seed)
	}
	// A search saved before search_seed was recorded: its JSON lacks the
	// field, and the agreement says nothing of seeds.
	cur := build(seed(1))
	b, err := json.Marshal(build(nil))
	if err != nil || strings.Contains(string(b), "search_seed") {
		t.Fatalf("an old search's JSON %s (%v) carries a seed", b, err)
	}
	var old Result
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	if ag := Again(&old, cur); ag.SameSeed || ag.Seed != nil {
		t.Errorf("an old search without its seed: same_seed %v, seed %v", ag.SameSeed, ag.Seed)
	}
	// A new search's JSON carries its seed and reads back.
	b, _ = json.Marshal(cur)
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || back.Seed == nil || *back.Seed != 1 {
		t.Errorf("a new search's seed does not read back from %s (%v)", b, err)
	}
}

// A warm-up backlog: the walk's engine step (0.5 req/s, warm-up 2 s,
// where about 1 arrival was planned) drew 6 arrivals in its warm-up and
// started its window with 4 in flight where its own attempts give about
// 1.9. A warm-up within its Poisson spread, or a server that cleared the
// warm-up before the window, is no backlog (walk 35g, F2).
func TestWarmupBacklogged(t *testing.T) {
	for _, c := range []struct {
		name            string
		rate, warmupS   float64
		arrivals, start int64
		expected        float64
		want            bool
	}{
		{"walk 35g engine step", 0.5, 2, 6, 4, 1.9, true},
		{"warm-up within its spread", 0.5, 2, 3, 4, 1.9, false}, // 3 ≤ 1 + 1.96 + 1
		{"cleared before the window", 0.5, 2, 6, 1, 1.9, false},
		{"a busier step within its spread", 4, 2, 14, 9, 3, false}, // 14 ≤ 8 + 1.96·√8 + 1 = 14.5
		{"a busier step over it", 4, 2, 15, 9, 3, true},
		{"no warm-up", 4, 0, 3, 9, 3, false},
	} {
		if got := WarmupBacklogged(c.rate, c.warmupS, c.arrivals, c.start, c.expected); got != c.want {
			t.Errorf("%s: backlog %v, want %v", c.name, got, c.want)
		}
	}
}

// Every step met up to --max-rate: the JSON's max_rate_meeting is then a
// lower bound, and answer_is_lower_bound says so beside it; a rate bounded
// by a failing step is not (walk 35g, F11).
func TestAnswerIsLowerBound(t *testing.T) {
	meets := func(r float64) Step { return Step{Rate: r, Verdict: Meets} }
	at := &Result{Steps: []Step{meets(4), meets(8)}}
	at.settleAnswer(8)
	b, err := json.Marshal(at)
	if err != nil || !at.AnswerIsLowerBound || !strings.Contains(string(b), `"max_rate_meeting":8`) || !strings.Contains(string(b), `"answer_is_lower_bound":true`) {
		t.Errorf("every step met up to --max-rate 8: %s (%v)", b, err)
	}
	below := &Result{Steps: []Step{meets(4), {Rate: 8, Verdict: Fails}}}
	below.settleAnswer(8)
	if b, _ := json.Marshal(below); below.AnswerIsLowerBound || !strings.Contains(string(b), `"answer_is_lower_bound":false`) {
		t.Errorf("a failing step above the answer: %s", b)
	}
}

// A step that failed on attainment alone behind a warm-up backlog is run
// again with a longer window: its window judged the schedule's bunch, not
// the rate (walk 35i: 0 of 1 qualified after 6 warm-up arrivals where 1
// was planned). One that met despite a backlog, or failed on overload,
// stands; undecided steps and steps met without keeping up shown are run
// again as before.
func TestBackloggedFailureIsRunAgain(t *testing.T) {
	over, err := CheckLoad(LoadWindow{OfferedPerS: 20, WindowS: 3, Arrivals: 61, Completions: 39, InFlightStart: 13, InFlightEnd: 35, ExpectedInFlight: 25.6, Resolution: 5})
	if err != nil {
		t.Fatal(err)
	}
	notShown, _ := CheckLoad(LoadWindow{OfferedPerS: 2, WindowS: 10, Arrivals: 9, Completions: 9, Resolution: 1})
	for _, c := range []struct {
		name string
		s    Step
		want bool
	}{
		{"failed behind a backlog", Step{Verdict: Fails, WarmupBacklog: true}, true},
		{"failed, no backlog", Step{Verdict: Fails}, false},
		{"failed on overload behind a backlog", Step{Verdict: Fails, WarmupBacklog: true, Load: &over}, false},
		{"met behind a backlog", Step{Verdict: Meets, WarmupBacklog: true}, false},
		{"undecided", Step{Verdict: Undecided}, true},
		{"met, keeping up not shown", Step{Verdict: Meets, Load: &notShown}, true},
		{"interrupted", Step{Verdict: Interrupted, WarmupBacklog: true}, false},
	} {
		if got := c.s.runAgain(); got != c.want {
			t.Errorf("%s: run again %v, want %v", c.name, got, c.want)
		}
	}
}
