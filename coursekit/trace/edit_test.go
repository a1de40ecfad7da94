package trace

import "testing"

func fig012() Attempt {
	return Attempt{ID: "T1", StartMS: 0, Outcome: OK, HasEnd: true, EndMS: 1000, OutputTokens: 3,
		Events: []Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 1}, {TMS: 950, Tokens: 1}}, Meta: []byte(`{"a":1}`)}
}

func TestCloneOwnsItsEvents(t *testing.T) {
	a := fig012()
	b := a.Clone()
	b.Events[1].Tokens = 3
	b.Meta[2] = 'b'
	if a.Events[1].Tokens != 1 || string(a.Meta) != `{"a":1}` {
		t.Fatalf("editing the clone changed the original: %+v %s", a.Events, a.Meta)
	}
	shared := a // the trap Clone exists for
	shared.Events[1].Tokens = 3
	if a.Events[1].Tokens != 3 {
		t.Fatal("plain assignment is expected to share events (else Clone is not needed)")
	}
}

func TestWithPauseMovesOnlyWhatComesAfter(t *testing.T) {
	a := fig012()
	b := a.WithPause(1, 2000)
	ttft, _ := b.TTFT()
	e2e, _ := b.E2E()
	gaps := b.EventIntervals(nil)
	if ttft != 700 || e2e != 3000 || gaps[0] != 2100 || gaps[1] != 150 {
		t.Fatalf("TTFT %v, E2E %v, gaps %v", ttft, e2e, gaps)
	}
	if a.Events[1].TMS != 800 || a.EndMS != 1000 {
		t.Fatal("WithPause changed the original")
	}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	c := a.WithPause(10, 50)
	if c.Events[2].TMS != 950 || c.EndMS != 1050 {
		t.Fatalf("a pause after the last event delays only the end: %+v", c)
	}
}

func TestWithoutFailuresDropsExactlyTheFailures(t *testing.T) {
	tr, err := ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	kept := tr.WithoutFailures()
	if len(kept.Attempts) != 8 || len(tr.Attempts) != 10 {
		t.Fatalf("kept %d of %d", len(kept.Attempts), len(tr.Attempts))
	}
	for _, a := range kept.Attempts {
		if a.Outcome != OK {
			t.Errorf("%s (%v) kept", a.ID, a.Outcome)
		}
	}
	kept.Attempts[0].Events[0].TMS = 1
	if tr.Attempts[0].Events[0].TMS != 200 {
		t.Fatal("WithoutFailures shares events with the original")
	}
}

// Packing tokens into one event changes the copy's event and its output
// length, never the original (notebooks 02 and 05 pack 3 tokens into the
// second event of figure 01.2's request).
func TestWithEventTokensPacksOneEvent(t *testing.T) {
	a := Attempt{ID: "R1", Outcome: OK, Events: []Event{{TMS: 700, Tokens: 1}, {TMS: 800, Tokens: 1}, {TMS: 950, Tokens: 1}}, EndMS: 1000, HasEnd: true}
	b := a.WithEventTokens(1, 3)
	if b.Events[1].Tokens != 3 || b.OutputTokens != 5 || b.StreamedTokens() != 5 {
		t.Errorf("packed copy: %+v", b)
	}
	if a.Events[1].Tokens != 1 || a.OutputTokens != 0 {
		t.Errorf("the original changed: %+v", a)
	}
	if tpot, ok := b.TPOT(); !ok || tpot != 62.5 {
		t.Errorf("TPOT over 4 token gaps: %v %v", tpot, ok)
	}
	if c := a.WithEventTokens(7, 3); c.StreamedTokens() != 3 {
		t.Errorf("an event that is not there: %+v", c)
	}
}
