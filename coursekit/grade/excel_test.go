package grade

import (
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// The files a person opens in a spreadsheet start with a UTF-8 BOM (so
// Excel shows the Chinese), and the answer key is text Excel never reads
// as a number. A manual-review.csv saved back by Excel (BOM, CRLF, keys
// turned into 4.08566E+11) still applies every typed score: a key Excel
// mangled falls back to learner, criterion and the answer text.
func TestManualReviewSurvivesExcel(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	_, dir := gradedBatch(t, f)
	for _, name := range []string{"grades.csv", review.ManualFile} {
		if s := read(t, dir, name); !strings.HasPrefix(s, "\ufeff") {
			t.Errorf("%s has no UTF-8 BOM: %q", name, s[:min(len(s), 20)])
		}
	}
	filled := fillScores(t, dir, map[[2]string]string{
		{"alice", "text.counter_evidence"}: "2",
		{"alice", "text.denominator"}:      "1.5",
		{"bob", "text.outputs"}:            "1",
	})
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(filled, "\ufeff"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	sha := slices.Index(rows[0], "text_sha256")
	for _, r := range rows[1:] {
		if k := r[sha]; k == "" || k[0] < 'a' || k[0] > 'z' {
			t.Errorf("key %q does not start with a letter: Excel may read it as a number", k)
		}
	}
	// Excel's save-as-CSV: BOM, CRLF, and every key read as a number
	// (as an all-digit key would be).
	score := slices.Index(rows[0], "score")
	for i, r := range rows[1:] {
		if i%2 == 0 || r[score] != "" {
			r[sha] = "4.08566E+11"
		}
	}
	var sb strings.Builder
	w := csv.NewWriter(&sb)
	w.UseCRLF = true
	w.WriteAll(rows)
	excel := "\ufeff" + sb.String()
	ms, err := review.ReadManualCSV(strings.NewReader(excel), review.ManualFile, f.roster, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms.Rows) != 3 {
		t.Fatalf("%d scored rows, want 3", len(ms.Rows))
	}
	subs, _ := gradedBatch(t, f)
	if w := review.ApplyManual(subs, ms); len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
	for _, c := range []struct {
		i    int
		crit string
		pts  float64
	}{{0, "text.counter_evidence", 2}, {0, "text.denominator", 1.5}, {1, "text.outputs", 1}} {
		if x, _ := subs[c.i].Score(c.crit); x.Pending || x.Points != c.pts {
			t.Errorf("%s %s: %+v, want %v applied", subs[c.i].Learner, c.crit, x, c.pts)
		}
	}
	// A mangled key whose answer changed since: still not applied.
	ms, err = review.ReadManualCSV(strings.NewReader(excel), review.ManualFile, f.roster, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := correctCard(t, f.variants["alice"])
	c.CounterEvidence = "重新写过的答案：排队和超时说明用户在等待。"
	c.DenominatorError = "重新写过：分母是全部尝试。"
	alice := f.g.Grade("alice.ipynb", f.submitted(t, "alice", c))
	if w := review.ApplyManual([]*grader.Submission{alice}, ms); len(w) != 3 || !strings.Contains(w[1].Text, "changed since it was scored") || !strings.Contains(w[0].Text, "changed since it was scored") {
		t.Errorf("warnings %v", w)
	}
	for _, crit := range []string{"text.counter_evidence", "text.denominator"} {
		if x, _ := alice.Score(crit); !x.Pending {
			t.Errorf("%s applied to a changed answer: %+v", crit, x)
		}
	}
}
