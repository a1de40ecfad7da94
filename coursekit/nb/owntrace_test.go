package nb

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// released makes a class of one learner with `coursekit assign`'s code and
// returns the learner's trace path.
func released(t *testing.T, learner string) string {
	t.Helper()
	dir := t.TempDir()
	release, err := os.ReadFile(filepath.Join("..", "..", "notebooks", "unit01", "06-deliverable.ipynb"))
	if err != nil {
		t.Fatal(err)
	}
	roster, err := roster.ReadRoster(strings.NewReader("id\n" + learner + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	as, err := assign.Assign([]byte("owntrace-test-key-0123456789"), roster, release, "06-deliverable.ipynb", dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, as[0].Trace)
}

func referenceCard(t *testing.T) *card.Card {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "card", "testdata", "reference.card.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c card.Card
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

func TestWhoseTraceCourse(t *testing.T) {
	o := WhoseTrace(unitTrace)
	if !o.Course || o.Learner != "" || o.Err != nil {
		t.Fatalf("%+v", o)
	}
	if !strings.Contains(o.Text(), "课程 trace") {
		t.Errorf("text: %s", o.Text())
	}
}

func TestWhoseTraceNamesTheLearnerOfAReleasedCopy(t *testing.T) {
	o := WhoseTrace(released(t, "s007"))
	if o.Course || o.Learner != "s007" {
		t.Fatalf("%+v", o)
	}
	for _, want := range []string{"s007", "trace.jsonl", "不同", "用我的 trace 计算"} {
		if !strings.Contains(o.Text(), want) {
			t.Errorf("text lacks %q: %s", want, o.Text())
		}
	}
	// assign allows only plain ids, but the note escapes whatever it shows.
	o.Learner = "<b>x</b>"
	if h := o.HTML(); strings.Contains(h, "<b>") || !strings.Contains(h, "&lt;b&gt;x") {
		t.Errorf("learner id not escaped: %s", h)
	}
}

func TestWhoseTraceOfAMissingFile(t *testing.T) {
	o := WhoseTrace(filepath.Join(t.TempDir(), "trace.jsonl"))
	if o.Err == nil || strings.Contains(o.Text(), string(filepath.Separator)+"tmp") {
		t.Fatalf("want an error naming only the file: %+v %s", o, o.Text())
	}
}

func TestSelfCheckSaysWhenACardHasTheCourseNumbers(t *testing.T) {
	ref := referenceCard(t)
	own := released(t, "alice")
	_, r := SelfCheckBundle(ref, own)
	p95, ok := r.Result("figures.p95")
	if !ok || p95.Status != card.Fail || p95.Hint != ownTraceHint {
		t.Fatalf("the course's P95 on alice's trace: %+v", p95)
	}
	for _, x := range r.Results {
		if x.Hint == ownTraceHint && strings.ContainsAny(x.Hint, "0123456789") && !strings.Contains(x.Hint, "01–05") {
			t.Errorf("hint carries a value: %s", x.Hint)
		}
	}
	// The same card on the course trace: nothing to say.
	_, r = SelfCheckBundle(ref, unitTrace)
	for _, x := range r.Results {
		if x.Hint == ownTraceHint {
			t.Errorf("%s: own-trace hint on the course trace", x.ID)
		}
	}
	// A blank card fails on both traces: it keeps its usual hint.
	_, r = SelfCheckBundle(&card.Card{}, own)
	for _, x := range r.Results {
		if x.Hint == ownTraceHint {
			t.Errorf("%s: a blank card did not copy the course's numbers", x.ID)
		}
	}
}
