package nb

import (
	"bytes"
	"encoding/gob"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/llmperf-course/course/coursekit/card"
)

var unitTrace = filepath.Join("..", "..", "data", "unit01", "trace.jsonl")

// partCard is a half-filled card: some rows pass, some fail.
func partCard() *card.Card {
	return &card.Card{
		Clock:            "client",
		Window:           card.Window{Seconds: 10, Kind: "fixed"},
		PercentileMethod: "nearest-rank",
		CounterEvidence:  "</script><script>alert(1)</script>",
	}
}

func TestSelfCheckBundle(t *testing.T) {
	bundle, r := SelfCheckBundle(partCard(), unitTrace)
	if r.Error != "" || r.Passed == 0 || r.Failed == 0 {
		t.Fatalf("report: %+v", r)
	}
	for _, mime := range []protocol.MIMEType{protocol.MIMETextHTML, protocol.MIMETextPlain, card.MIMEType} {
		if _, ok := bundle[mime].(string); !ok {
			t.Errorf("bundle lacks %s as a string", mime)
		}
	}
	htm := bundle[protocol.MIMETextHTML].(string)
	if !strings.Contains(htm, r.StatusLine()) || strings.Contains(htm, "<script>") {
		t.Errorf("HTML: status missing or learner text unescaped")
	}
	p, err := card.ParsePayload([]byte(bundle[card.MIMEType].(string)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Card.CounterEvidence != partCard().CounterEvidence || p.Trace.Path != "../../data/unit01/trace.jsonl" || len(p.Trace.SHA256) != 64 {
		t.Errorf("payload: %+v", p.Trace)
	}
	if p.Report.Passed != r.Passed || p.Report.Hidden != r.Hidden {
		t.Errorf("payload report differs")
	}

	// GoNB sends the bundle to the kernel with gob; it must encode, and
	// decode with only the types the kernel registers.
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&protocol.DisplayData{Data: bundle}); err != nil {
		t.Fatalf("gob: %v", err)
	}
	var back protocol.DisplayData
	if err := gob.NewDecoder(&buf).Decode(&back); err != nil {
		t.Fatalf("gob decode: %v", err)
	}
	if back.Data[card.MIMEType] != bundle[card.MIMEType] {
		t.Errorf("payload changed through gob")
	}
}

func TestSelfCheckBundleMissingTrace(t *testing.T) {
	bundle, r := SelfCheckBundle(partCard(), "no-such-trace.jsonl")
	if r.Error == "" || r.AllPublicPassed() {
		t.Fatalf("missing trace should fail: %+v", r)
	}
	if !strings.Contains(bundle[protocol.MIMETextHTML].(string), "no-such-trace.jsonl") {
		t.Errorf("the error should name the path the learner gave")
	}
	// The card still travels, so the grader sees what was submitted.
	if _, err := card.ParsePayload([]byte(bundle[card.MIMEType].(string))); err != nil {
		t.Errorf("payload: %v", err)
	}
}

func TestSelfCheckBundleNaN(t *testing.T) {
	c := partCard()
	c.Window.Seconds = math.Inf(1)
	bundle, _ := SelfCheckBundle(c, unitTrace)
	if _, ok := bundle[card.MIMEType]; ok {
		t.Errorf("a card JSON cannot hold should not be embedded")
	}
	if !strings.Contains(bundle[protocol.MIMETextHTML].(string), "window.seconds") {
		t.Errorf("the HTML should say which number is wrong")
	}
}

func TestSelfCheckOutsideNotebookPrintsText(t *testing.T) {
	// go test is not a notebook: SelfCheck prints and returns the report.
	r := SelfCheck(partCard(), unitTrace)
	if r.Passed == 0 {
		t.Errorf("report: %+v", r)
	}
}
