package grader

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// The key and the public trace of the end-to-end tests (../fixture_test.go).
var (
	testKey    = []byte("test-instructor-key-0123456789abcdef")
	publicPath = filepath.Join("..", "..", "..", "data", "unit01", "trace.jsonl")
)

// cardOf is a card carrying just the key figures of fp.
func cardOf(fp criteria.Fingerprint) *card.Card {
	c := &card.Card{Window: card.Window{Seconds: fp[0], Kind: "fixed"}, P95: card.Figure{Value: fp[1], Unit: "ms"}}
	c.Conditions = []card.Condition{
		{SLO: card.Figure{Value: 1, Unit: "s"}, Qualified: int(fp[2]), CostPer1000: card.Figure{Value: fp[4], Unit: "元/千次合格"}},
		{SLO: card.Figure{Value: 0.5, Unit: "s"}, Qualified: int(fp[3])},
	}
	return c
}

// Honest slips in one's own numbers are not taken for copying, in a class
// of 300; copied numbers are.
func TestVariantCheckFalsePositives(t *testing.T) {
	ids := make([]string, 300)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%03d", i)
	}
	ro, _ := roster.NewRoster(ids...)
	pub, _ := os.ReadFile(publicPath)
	g, err := NewGrader(Options{Key: testKey, Roster: ro, Public: pub})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.prepare(); err != nil {
		t.Fatal(err)
	}
	slips := []func(fp *criteria.Fingerprint){
		func(fp *criteria.Fingerprint) { fp[0] = 10 },            // the worked example's window
		func(fp *criteria.Fingerprint) { fp[0] += 3 },            // a misread window
		func(fp *criteria.Fingerprint) { fp[1] += 100 },          // P95 off by a rank
		func(fp *criteria.Fingerprint) { fp[2]--; fp[3]-- },      // ≤ read as <
		func(fp *criteria.Fingerprint) { fp[4] *= 1.25 },         // cost from the wrong count
		func(fp *criteria.Fingerprint) { fp[0] = 10; fp[4] = 4 }, // window and cost from the example
	}
	copied := 0
	for i, id := range ids {
		own := g.variants[id]
		for j, slip := range slips {
			fp := own.fp
			slip(&fp)
			if x, _ := g.ownVariant(cardOf(fp), own); x.Status != card.Pass {
				t.Errorf("%s, slip %d: flagged as copied: %s", id, j, x.Detail)
			}
		}
		other := g.variants[ids[(i+1)%len(ids)]]
		if x, _ := g.ownVariant(cardOf(other.fp), own); x.Status == card.Fail {
			copied++
		}
	}
	if copied < len(ids)*98/100 {
		t.Errorf("only %d of %d copied cards caught", copied, len(ids))
	}
}
