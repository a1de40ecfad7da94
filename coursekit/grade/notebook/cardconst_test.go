package notebook

import (
	"os"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
)

// The card cell may name card's constants (card.NearestRank, ...): the
// grader reads them as their values, without compiling the cell. The
// reference card of the deliverable test uses them.
func TestCardFromSourceReadsCardConstants(t *testing.T) {
	src, err := os.ReadFile("../../../docker/test/testdata/reference-card.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	c, err := CardFromSource(string(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.Clock != "client" || c.Window.Kind != "fixed" || c.PercentileMethod != "nearest-rank" ||
		c.Streaming.Recorded != "event" || c.Conditions[0].SLO.Unit != "s" || c.Path.Task != card.InferenceTask {
		t.Fatalf("constants not read as their values: %+v", c)
	}
	if c.Uncertain == "" {
		t.Error("the Uncertain field is part of the card literal")
	}
	for name, v := range card.Constants {
		if cardConsts[name].typ != "" {
			continue // card.TrainingTask is a card.Task: in Clock (a string) it would not compile; TestCardConstTable puts typed ones in their fields
		}
		got, err := CardFromSource("var myCard = card.Card{Clock: card." + name + "}")
		if err != nil {
			t.Errorf("card.%s: %v", name, err)
		} else if got.Clock != v {
			t.Errorf("card.%s: %q, want %q", name, got.Clock, v)
		}
	}
}
