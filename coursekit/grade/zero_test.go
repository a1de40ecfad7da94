package grade

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// A file handed in that is not the learner's own, or cannot be graded,
// scores 0 in grades.csv as in results.json (and on Gradescope); only a
// learner who handed in nothing has a blank total.
func TestGradesCSVZeroNotBlank(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol", "dave")
	subs := []*grader.Submission{
		f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))),
		f.g.Grade("bob.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))), // alice's record from bob
		f.g.Grade("carol.ipynb", f.nb["carol"]),                                              // self-check never run
	}
	b := batch.NewBatch(f.roster, nil, subs)
	if subs[1].ReasonCode != grader.ReasonNotOwn || subs[2].Gradable {
		t.Fatalf("premise: bob %s, carol gradable %v", subs[1].ReasonCode, subs[2].Gradable)
	}
	out := t.TempDir()
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(read(t, out, "grades.csv"), "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	want := map[string][2]string{"bob": {"0", "48"}, "carol": {"0", "48"}, "dave": {"", ""}}
	for _, r := range rows[1:] {
		w, ok := want[r[col["id"]]]
		if !ok {
			continue
		}
		if r[col["total"]] != w[0] || r[col["max"]] != w[1] {
			t.Errorf("%s: total %q max %q, want %q %q (%s)", r[col["id"]], r[col["total"]], r[col["max"]], w[0], w[1], r[col["status"]])
		}
		if w[0] == "0" {
			var gs gradescope.GSResults
			json.Unmarshal([]byte(read(t, out, "results", r[col["id"]]+".json")), &gs)
			if gs.Score == nil || *gs.Score != 0 {
				t.Errorf("%s results.json score %v", r[col["id"]], gs.Score)
			}
		}
	}
}
