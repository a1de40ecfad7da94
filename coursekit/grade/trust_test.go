package grade

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// releasedCardSource is the card cell of a notebook as released.
func releasedCardSource(t testing.TB, nb []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(nb, &m); err != nil {
		t.Fatal(err)
	}
	c := cellByRole(m["cells"].([]any), notebook.RoleCard)
	if c == nil {
		t.Fatal("the release has no card cell")
	}
	src, err := notebook.Multiline(mustJSON(t, c["source"]))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The released notebook, run without filling anything in, earns no
// machine points: nothing the release already contains (the pre-filled
// task and SLOs) and nothing an all-zero card satisfies (consistency
// between zeros, "no copy detected") scores. Checked on many variants,
// because a criterion that passes by coincidence passes for some of them.
func TestBlankReleaseEarnsNothing(t *testing.T) {
	ids := make([]string, 30)
	for i := range ids {
		ids[i] = fmt.Sprintf("learner%02d", i)
	}
	f := newFixture(t, ids...)
	for _, id := range ids {
		src := releasedCardSource(t, f.nb[id])
		blank, err := notebook.CardFromSource(src)
		if err != nil {
			t.Fatalf("the released card cell does not parse: %v", err)
		}
		s := f.g.Grade(id+".ipynb", fill(t, f.nb[id], src, payloadFor(t, blank, f.variants[id])))
		if !s.Gradable {
			t.Fatalf("%s: ungradable: %s", id, s.Reason)
		}
		var earned []string
		for _, x := range s.Scores {
			if x.Points != 0 || x.Pending {
				earned = append(earned, fmt.Sprintf("%s %s/%s", x.ID, criteria.FmtPts(x.Points), criteria.FmtPts(x.Max)))
			}
		}
		if s.Total != 0 || len(earned) > 0 {
			t.Fatalf("%s: the untouched release earns %s/%s: %s", id, criteria.FmtPts(s.Total), criteria.FmtPts(s.Max), strings.Join(earned, ", "))
		}
	}
}

// Hidden consistency checks and the own-variant check score only when the
// card states the numbers they relate: a card with the right path map and
// prose but no numbers gets nothing from them.
func TestHiddenChecksNeedStatedNumbers(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	c := correctCard(t, f.variants["alice"])
	c.Window.Seconds, c.SuccessSamples, c.Attempts = 0, 0, 0
	for i := range c.Conditions {
		slo := c.Conditions[i].SLO
		c.Conditions[i] = card.Condition{SLO: slo}
	}
	s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", c))
	for _, id := range append(card.HiddenIDs(), criteria.OwnVariantID, "conditions.slos") {
		if x, _ := s.Score(id); x.Points != 0 {
			t.Errorf("%s: %s/%s for a card without numbers (%s)", id, criteria.FmtPts(x.Points), criteria.FmtPts(x.Max), x.Message)
		}
	}
	// The right numbers earn every one of them.
	s = f.g.Grade("alice.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"])))
	for _, id := range append(card.HiddenIDs(), criteria.OwnVariantID, "conditions.slos") {
		if x, _ := s.Score(id); x.Points != x.Max {
			t.Errorf("%s: %s/%s for the right card (%s)", id, criteria.FmtPts(x.Points), criteria.FmtPts(x.Max), x.Message)
		}
	}
}

// The card cell's source is the card: saved output replaced by a better
// card gains nothing; the grade is the source's, and the mismatch is an
// integrity warning.
func TestForgedOutputGradesTheSource(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	v := f.variants["alice"]
	right, wrong := correctCard(t, v), mistakenCard(t, v)
	honest := f.g.Grade("alice.ipynb", fill(t, f.nb["alice"], goLiteral(wrong), payloadFor(t, wrong, v)))
	forged := f.g.Grade("alice.ipynb", fill(t, f.nb["alice"], goLiteral(wrong), payloadFor(t, right, v)))
	best := f.g.Grade("alice.ipynb", fill(t, f.nb["alice"], goLiteral(right), payloadFor(t, right, v)))
	if forged.Total != honest.Total || forged.Total >= best.Total {
		t.Errorf("forged output scores %s (the source's card scores %s, the forged card %s)", criteria.FmtPts(forged.Total), criteria.FmtPts(honest.Total), criteria.FmtPts(best.Total))
	}
	if !hasFinding(forged, integrity.FindInconsistent) || forged.IntegrityOK() {
		t.Errorf("forged output: findings %+v", forged.Integrity)
	}
}

// Alice's notebook handed in from Bob's Gradescope account: the record
// decides, so it is not Bob's own work (no own submission, score 0) and a
// copy finding, exactly as the batch rules for the same file.
func TestGradescopeOtherAccountIsNotOwnWork(t *testing.T) {
	g, good := gsGrader(t)
	other, _ := gradescope.RunGradescope(g, gsRoot(t, gsMeta("bob", ""), map[string][]byte{"06-deliverable.ipynb": good}))
	if other.Sub.Learner != "bob" || other.Sub.Gradable || other.Sub.ReasonCode != grader.ReasonNotOwn || other.Sub.RecordOf != "alice" || !hasFinding(other.Sub, grader.FindRecordCopied) || len(other.Sub.Manual) != 0 {
		t.Errorf("other account: %+v", other.Sub)
	}
	var r gradescope.GSResults
	json.Unmarshal(other.Results, &r)
	if r.Score == nil || *r.Score != 0 || !strings.Contains(string(other.Results), "老师") {
		t.Errorf("results.json: %s", other.Results)
	}
}

// One graded submission per learner: the newest by the notebook's own
// saved time, whatever the order the files were collected in; every other
// file of that learner is listed on the row and in the summary.
func TestDuplicateSubmissionsNewestWins(t *testing.T) {
	f := newFixture(t, "alice", "bob")
	v := f.variants["alice"]
	withTime := func(nb []byte, at string) []byte { return checkedAt(t, nb, at) }
	newer := withTime(f.submitted(t, "alice", correctCard(t, v)), "2026-11-30T10:00:00Z")
	older := withTime(f.submitted(t, "alice", mistakenCard(t, v)), "2026-11-29T09:00:00Z")
	never := f.nb["alice"] // never run: nothing to grade
	subs := []*grader.Submission{
		f.g.Grade("in/alice/a.ipynb", newer),
		f.g.Grade("in/alice/b.ipynb", older),
		f.g.Grade("in/alice/c.ipynb", never),
	}
	want := subs[0].Total
	dir := t.TempDir()
	b := batch.NewBatch(f.roster, nil, subs)
	if err := report.Write(b, dir); err != nil {
		t.Fatal(err)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "grades.csv"))
	var row string
	for _, l := range strings.Split(string(csv), "\n") {
		if strings.HasPrefix(l, "alice,") {
			row = l
		}
	}
	if !strings.HasPrefix(row, "alice,"+criteria.FmtPts(want)+",") || !strings.Contains(row, "b.ipynb") || !strings.Contains(row, "c.ipynb") {
		t.Errorf("alice's row does not grade the newest file (total %s) and list the others:\n%s", criteria.FmtPts(want), row)
	}
	sum, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(sum), "b.ipynb") || !strings.Contains(string(sum), "c.ipynb") {
		t.Errorf("summary.md does not list the files that were not graded:\n%s", sum)
	}
	if len(b.Warnings) == 0 {
		t.Error("no batch warning for a learner with three files")
	}

	// Without a self-check time, the cell execution times that JupyterLab
	// and nbclient write decide.
	executedAt := func(nb []byte, at string) []byte {
		return edit(t, withTime(nb, ""), func(_ map[string]any, cells []any) []any {
			for _, c := range cells {
				if m := c.(map[string]any); m["cell_type"] == "code" {
					md := m["metadata"].(map[string]any)
					md["execution"] = map[string]any{"iopub.execute_input": at, "shell.execute_reply": at}
				}
			}
			return cells
		})
	}
	subs = []*grader.Submission{
		f.g.Grade("in/alice/a.ipynb", executedAt(f.submitted(t, "alice", correctCard(t, v)), "2026-11-30T10:00:00.000000Z")),
		f.g.Grade("in/alice/b.ipynb", executedAt(f.submitted(t, "alice", mistakenCard(t, v)), "2026-11-29T10:00:00.000000Z")),
	}
	if err := report.Write(batch.NewBatch(f.roster, nil, subs), dir); err != nil {
		t.Fatal(err)
	}
	csv, _ = os.ReadFile(filepath.Join(dir, "grades.csv"))
	if !strings.Contains(string(csv), "\nalice,"+criteria.FmtPts(subs[0].Total)+",") {
		t.Errorf("by cell execution time: the newer file is not graded:\n%s", csv)
	}
}

// Totals are rounded to 2 decimals in every output, manual scores included.
func TestTotalsRoundedEverywhere(t *testing.T) {
	f := newFixture(t, "alice")
	v := f.variants["alice"]
	dir := t.TempDir()
	many := regexp.MustCompile(`[0-9]\.[0-9]{3,}`)
	for _, scores := range [][2]float64{{0.1, 0.2}, {0.7, 0.1}, {1.1, 0.2}, {0.3, 0.6}} {
		s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", mistakenCard(t, v)))
		ms := &review.ManualScores{}
		for i, m := range s.Manual[:2] {
			ms.Rows = append(ms.Rows, review.ManualScore{Pos: "m.csv:2", Learner: "alice", Criterion: m.ID, Score: scores[i], TextSHA: review.TextSHA(m.Text)})
		}
		if w := review.ApplyManual([]*grader.Submission{s}, ms); len(w) > 0 {
			t.Fatal(w)
		}
		if err := report.Write(batch.NewBatch(f.roster, nil, []*grader.Submission{s}), dir); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"grades.json", "grades.csv", "summary.md", "results/alice.json", "feedback/alice.md"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if m := many.Find(b); m != nil {
				t.Errorf("manual %v: %s holds %s", scores, name, m)
			}
		}
	}
}

// Partial credit always says why, in Chinese.
func TestPartialCreditSaysWhy(t *testing.T) {
	f := newFixture(t, "alice")
	v := f.variants["alice"]
	c := correctCard(t, v)
	c.P95.Value *= 1.05 // wrong, within 10 %
	cards := []*card.Card{c, mistakenCard(t, v)}
	half := correctCard(t, v)
	half.Path.Steps = half.Path.Steps[:2]
	half.Path.SamplingPoint = half.Path.Steps[1].Name
	cards = append(cards, half)
	why := regexp.MustCompile(`部分得分[^：：]*[：：][^））]*\p{Han}[^））]*[））]`)
	n := 0
	for _, cd := range cards {
		s := f.g.Grade("alice.ipynb", f.submitted(t, "alice", cd))
		for _, x := range s.Scores {
			if x.Pending || x.Points <= 0 || x.Points >= x.Max {
				continue
			}
			n++
			if !why.MatchString(x.Message) {
				t.Errorf("%s %s/%s: no reason for the partial credit: %q", x.ID, criteria.FmtPts(x.Points), criteria.FmtPts(x.Max), x.Message)
			}
		}
	}
	if n < 3 {
		t.Fatalf("only %d partial scores: the test cards do not exercise partial credit", n)
	}
}

// checkedAt is nb with its self-check output stamped at (RFC 3339), or
// with no stamp for at "" (as an older coursekit wrote it).
func checkedAt(t testing.TB, nb []byte, at string) []byte {
	t.Helper()
	return edit(t, nb, func(_ map[string]any, cells []any) []any {
		out := cellByRole(cells, notebook.RoleSelfCheck)["outputs"].([]any)[0].(map[string]any)
		data := out["data"].(map[string]any)
		var p map[string]any
		json.Unmarshal([]byte(data[card.MIMEType].(string)), &p)
		p["checked_at"] = at
		if at == "" {
			delete(p, "checked_at")
		}
		data[card.MIMEType] = string(mustJSON(t, p))
		return cells
	})
}

// englishWord is a run of Latin letters that is not a known identifier.
var englishWord = regexp.MustCompile(`[A-Za-z]{3,}`)

// allowedLatin are the words the Chinese text uses as terms, ids and
// file names.
var allowedLatin = map[string]bool{"trace": true, "TTFT": true, "goodput": true, "nbformat": true, "ipynb": true, "json": true, "jsonl": true, "csv": true, "LMS": true, "ITL": true, "SLO": true, "ECharts": true, "Gradescope": true, "JSON": true, "GPU": true, "UTC": true}

// chineseOnly reports the English words of text that are not ids, file
// names or terms (known lists the test passes in).
func chineseOnly(text string, known ...string) []string {
	known = slices.Clone(known)
	slices.SortFunc(known, func(a, b string) int { return len(b) - len(a) }) // "figures.qualified_rate" before "figures.qualified"
	for _, k := range known {
		text = strings.ReplaceAll(text, k, " ")
	}
	text = regexp.MustCompile(`\b[0-9a-f]{12}\b`).ReplaceAllString(text, " ") // cell ids
	text = regexp.MustCompile("`[^`]*`").ReplaceAllString(text, " ")          // code spans: criterion ids
	var bad []string
	for _, w := range englishWord.FindAllString(text, -1) {
		if !allowedLatin[w] {
			bad = append(bad, w)
		}
	}
	return bad
}

// The summary is in Chinese, the copy detail included.
func TestSummaryInChinese(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	subs := []*grader.Submission{
		f.g.Grade("bob.ipynb", f.submitted(t, "bob", correctCard(t, f.variants["alice"]))),   // a copy
		f.g.Grade("carol.ipynb", f.submitted(t, "carol", correctCard(t, f.public))),          // the worked example
		f.g.Grade("alice.ipynb", f.nb["alice"]),                                              // never run
		f.g.Grade("zed.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"]))), // a stray file
	}
	sm := report.Summarize(batch.NewBatch(f.roster, nil, subs))
	md := sm.Markdown()
	if !strings.Contains(md, "疑似抄袭") {
		t.Fatalf("no copy section:\n%s", md)
	}
	// File names (grades.csv, overrides.csv) are not English prose.
	known := []string{"alice", "bob", "carol", "zed", "grades", "overrides"}
	for _, m := range sm.Manual { // the learners' own answers are theirs
		known = append(known, feedback.MDEscape(m.Text))
	}
	if bad := chineseOnly(md, known...); len(bad) > 0 {
		t.Errorf("summary.md has English words %q:\n%s", bad, md)
	}
}

// Every reason and finding code has a Chinese name for the summary and
// the class report (read from the grading packages' own constants).
func TestEveryCodeHasAChineseName(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	for _, dir := range gradeDirs(t) {
		pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			for _, f := range p.Files {
				files = append(files, f)
			}
		}
	}
	n := 0
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok {
						continue
					}
					code, _ := strconv.Unquote(lit.Value)
					switch {
					case strings.HasPrefix(name.Name, "Reason"):
						n++
						if _, ok := report.ReasonZh[code]; !ok {
							t.Errorf("%s (%s) has no Chinese name in reasonZh", name.Name, code)
						}
					case strings.HasPrefix(name.Name, "Find"):
						n++
						if _, ok := report.FindingZh[code]; !ok {
							t.Errorf("%s (%s) has no Chinese name in findingZh", name.Name, code)
						}
					}
				}
			}
		}
	}
	if n < 30 {
		t.Fatalf("found only %d codes: the test does not read the constants", n)
	}
}

// gradeDirs are the folders of the grading packages: this folder's
// subfolders that hold Go files.
func gradeDirs(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("*", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no grading packages here (%v)", err)
	}
	var dirs []string
	for _, f := range files {
		if d := filepath.Dir(f); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	return dirs
}
