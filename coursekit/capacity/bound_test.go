package capacity

import (
	"encoding/json"
	"testing"
)

// A search in which no rate met says so by name in bounded_by, as the
// docs list it, not with "" (the fifth engineer walk); an earlier search's
// JSON written with "" still reads as the same answer.
func TestNoRateMetIsNamed(t *testing.T) {
	steps := []Step{{Rate: 1, Verdict: Fails}}
	if got := boundedBy(steps, nil, 10); got != BoundNoRate {
		t.Errorf("no rate met: bounded_by %q, want %q", got, BoundNoRate)
	}
	cur := &Result{Target: 0.9, Method: "wilson", Steps: steps, BoundedBy: boundedBy(steps, nil, 10), MaxRate: 10}
	var old Result
	b, _ := json.Marshal(cur)
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	old.BoundedBy = "" // as written before it had a name
	if ag := Again(&old, cur); !ag.Same || ag.PreviousBound != BoundNoRate {
		t.Errorf("an older search with bounded_by \"\": same %v, previous bound %q", ag.Same, ag.PreviousBound)
	}
}
