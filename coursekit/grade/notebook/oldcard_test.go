package notebook

import (
	"strings"
	"testing"
)

// A card cell in the old layout (P95 and FailureRate inside a condition)
// would not compile in GoNB; read from its source it is refused the same
// way, with the cell's line and where the fields went.
func TestCardFromSourceRefusesTheOldLayoutWithItsLine(t *testing.T) {
	src := `var myCard = card.Card{
	Attempts: 10,
	Conditions: []card.Condition{
		{
			SLO: card.Figure{Value: 0.5, Unit: card.Seconds},
			P95: card.Figure{Value: 2, Unit: card.Seconds},
		},
	},
}`
	_, err := CardFromSource(src)
	if err == nil {
		t.Fatal("a P95 inside a condition was accepted")
	}
	for _, want := range []string{"line 6", "card.Condition has no field P95", "the card's own fields", "SuccessSamples"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// The new layout reads.
	c, err := CardFromSource(`var myCard = card.Card{
	P95:         card.Figure{Value: 2, Unit: card.Seconds},
	FailureRate: card.Ratio{Num: 2, Den: 10, Unit: "失败尝试/全部尝试"},
	Conditions:  []card.Condition{{SLO: card.Figure{Value: 0.5, Unit: card.Seconds}, Qualified: 4}},
}`)
	if err != nil || c.P95.Value != 2 || c.FailureRate.Den != 10 || c.Conditions[0].Qualified != 4 {
		t.Errorf("new layout: %+v, %v", c, err)
	}
	// Another unknown field keeps the plain message, with its line.
	if _, err := CardFromSource("var myCard = card.Card{\n\tAttempt: 10,\n}"); err == nil || !strings.Contains(err.Error(), "line 2: card.Card has no field Attempt") || strings.Contains(err.Error(), "old card layout") {
		t.Errorf("unknown field: %v", err)
	}
}
