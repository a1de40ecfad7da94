package compare

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/lang"
)

// compare --format json writes a trace's strings as every other JSON output
// of coursekit does: the C1 controls and the bidi marks a terminal acts on
// as \u escapes, and the values decode unchanged.
func TestJSONEscapesWhatATerminalActsOn(t *testing.T) {
	hostile := "v1\u202e\u2067\u200f\u009b31m"
	quoted, _ := json.Marshal(hostile)
	r := &Result{ConditionsChanged: []ConditionDiff{{Name: "model" + hostile, A: quoted, B: json.RawMessage(`"v2"`)}}}
	var out bytes.Buffer
	if err := Write(&out, r, cardfmt.JSON, lang.EN); err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{"\u202e", "\u2067", "\u200f", "\u009b"} {
		if strings.Contains(out.String(), raw) {
			t.Errorf("compare's JSON holds %q raw:\n%s", raw, out.String())
		}
	}
	var back Result
	if err := json.Unmarshal(out.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	var a string
	if c := back.ConditionsChanged; len(c) != 1 || c[0].Name != "model"+hostile || json.Unmarshal(c[0].A, &a) != nil || a != hostile {
		t.Errorf("decoded %+v, want the values as written", c)
	}
}
