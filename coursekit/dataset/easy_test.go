package dataset

import (
	"testing"
)

// data/datasets/easy.jsonl is the easy set the real engine (SmolLM2-135M)
// can partly answer: its judges pass a right answer however wordy, and fail
// a wrong one. The answers are SmolLM2's own, recorded from the engine.
func TestEasySetPassesAndFailsRealAnswers(t *testing.T) {
	set, err := ReadFile("../../data/datasets/easy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if set.Rated() != len(set.Items) || len(set.Items) < 12 {
		t.Fatalf("%d items, %d rated: every item needs an expectation", len(set.Items), set.Rated())
	}
	byID := map[string]Item{}
	for _, it := range set.Items {
		if it.ID == "" {
			t.Fatalf("%s has no id", it.Ref)
		}
		byID[it.ID] = it
	}
	cases := []struct {
		id, answer string
		pass       bool
	}{
		{"capital-france", "The capital of France is Paris.", true},
		{"capital-australia", "The capital of Australia is Canberra.", true},
		{"dog-legs", "The answer is 4. A dog has 4 legs.", true},
		{"week", "A week is 7 days.", true},
		{"add-2-2", "2 + 2 = 4", true},
		{"gold", "The chemical symbol for gold is Au. It is a metal", true},
		{"romeo", `The play "Romeo and Juliet" by William Shakespeare`, true},
		{"sky", "The sky on a clear day is a beautiful and romantic sight, but it's not a color.", false},
		{"add-10-5", "10 + 5 = 6.", false},
		{"add-12-19", "12 + 19 = 22.", false},
		{"sqrt-81", "The square root of 81 is 17.", false},
		{"ice", `The answer is "water".`, false},
		{"months", "A number is a number, and the answer is always a number.", false},
		// A number inside a longer one is not the answer.
		{"add-2-2", "2 + 2 = 42", false},
		{"week", "There are 17 days.", false},
	}
	for _, c := range cases {
		it, ok := byID[c.id]
		if !ok {
			t.Fatalf("no item %q", c.id)
		}
		if v := it.Judge.Judge(c.answer); v.Pass != c.pass {
			t.Errorf("%s (%s): %q: pass %v, want %v (%s)", c.id, it.Ref, c.answer, v.Pass, c.pass, v.Reason)
		}
	}
}
