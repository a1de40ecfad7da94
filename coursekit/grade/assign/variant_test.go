package assign

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/trace"
)

var testKey = []byte("0123456789abcdef0123456789abcdef")

// englishWord is a run of three or more ASCII letters: a word of English
// prose, unless it is a unit or a term the course keeps in English.
var englishWord = regexp.MustCompile(`[A-Za-z]{3,}`)

var keptWords = map[string]bool{"token": true, "TTFT": true, "SLO": true, "HTTP": true}

// learnerText fails when a condition value a learner reads in their own
// trace is English prose: every value must carry Chinese and no English
// word but units and kept terms.
func learnerText(t *testing.T, where string, conds json.RawMessage) {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(conds, &m); err != nil {
		t.Fatalf("%s: conditions: %v", where, err)
	}
	if len(m) == 0 {
		t.Fatalf("%s: no conditions", where)
	}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			continue
		}
		han := strings.IndexFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) }) >= 0
		if !han {
			t.Errorf("%s: condition %s = %q has no Chinese", where, k, s)
		}
		for _, w := range englishWord.FindAllString(s, -1) {
			if !keptWords[w] {
				t.Errorf("%s: condition %s = %q has the English word %q", where, k, s, w)
			}
		}
	}
}

// A class release's variants write their conditions in Chinese, as
// `coursekit gen` does: the learner opens this trace in the deliverable.
func TestVariantConditionsAreChinese(t *testing.T) {
	for _, id := range []string{"alice", "bob"} {
		b, err := Variant(testKey, id)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := trace.Read(strings.NewReader(string(b)), VariantTraceName)
		if err != nil {
			t.Fatal(err)
		}
		learnerText(t, "variant of "+id, tr.Header.Conditions)
	}
}

// A class released before the conditions were Chinese is still graded: the
// earlier bytes are regenerated exactly (their sha256 is what the learner's
// self-check recorded), and differ from the current ones only in the header.
func TestLegacyVariantKeepsTheAttempts(t *testing.T) {
	now, err := Variant(testKey, "alice")
	if err != nil {
		t.Fatal(err)
	}
	old, err := LegacyVariant(testKey, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if string(now) == string(old) {
		t.Fatal("the legacy variant is the current one")
	}
	if !strings.Contains(string(old), `"source":"per-learner teaching variant of unit 01; not the performance of any engine"`) {
		t.Errorf("the legacy header is not the one released before:\n%s", strings.SplitN(string(old), "\n", 2)[0])
	}
	nowLines, oldLines := strings.SplitN(string(now), "\n", 2), strings.SplitN(string(old), "\n", 2)
	if nowLines[1] != oldLines[1] {
		t.Error("the attempts differ between the legacy and the current variant")
	}
}
