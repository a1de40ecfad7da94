package report

import (
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/review"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// WriteCSV writes grades.csv: one row per roster learner, with columns id,
// the roster's other columns (姓名, email, ...), total, max, one column per
// criterion (blank while waiting for a person), pending (points waiting
// for manual review) and status (total 0 for a file that is ungradable
// or not the learner's own, blank for no submission); then a row per learner graded by a signed
// release record who is not on the roster (status says so), and a row per
// file whose learner is unknown (no id; status names the file). No
// learner and no file is left out.
func WriteCSV(b *batch.Batch, w io.Writer) error {
	ids := criteria.CriterionIDs()
	if _, ok := b.Points[criteria.ExecutionID]; ok { // an executed batch
		ids = append(ids, criteria.ExecutionID)
	}
	// A UTF-8 BOM, so that a spreadsheet shows the roster's Chinese names.
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	head := append([]string{"id"}, b.Roster.Columns...)
	cw.Write(append(append(append(head, "total", "max"), ids...), "pending", "status"))
	blank := func(row []string, status string) []string {
		row = append(row, "", "") // total, max
		row = append(row, make([]string, len(ids))...)
		return append(row, "", status)
	}
	// A file handed in that cannot be graded, or is not the learner's own,
	// scores 0 (as in results.json and on Gradescope); only a learner who
	// handed in nothing has a blank total.
	var maxAll float64
	for _, id := range ids {
		maxAll += b.Points[id]
	}
	zero := func(row []string, status string) []string {
		row = append(row, "0", criteria.FmtPts(maxAll))
		row = append(row, make([]string, len(ids))...)
		return append(row, "", status)
	}
	for _, l := range b.Learners() {
		// The roster's cells as a spreadsheet shows them: a name or
		// email starting with = + - @ is text, not a formula, and its
		// control codes and bidi overrides are shown escaped.
		row := []string{l.ID}
		for _, x := range l.Extra {
			row = append(row, safetext.CSVCell(safetext.Name(x)))
		}
		row = append(row, make([]string, len(b.Roster.Columns)-len(l.Extra))...)
		s, ok := b.Chosen[l.ID]
		off := ""
		if !b.Roster.Has(l.ID) {
			off = "; not on the roster (名单可能过期): graded by the signed release record"
		}
		// A file whose name is another learner's than its signed record
		// (batch.markNamedFiles): both rows say what it is.
		if ok && s.NameSays != "" {
			how, _ := s.NameSaysHow()
			off += fmt.Sprintf("; the counted file %s is %s, its signed release record is %s's", s.Name, how, l.ID)
		}
		for _, o := range b.NamedAfter(l.ID) {
			how, _ := o.NameSaysHow()
			off += fmt.Sprintf("; %s, %s, holds %s's signed notebook: graded as %[3]s's", o.Name, how, o.Learner)
		}
		if ok && s.RecordHeld != "" {
			off += fmt.Sprintf("; %s, from LMS account %s (%q), holds %s's signed notebook: held, not graded, until the roster's lms_id is checked", s.Name, s.LMSNumber(), s.LMSPerson(), s.RecordHeld)
		}
		switch {
		case !ok:
			row = blank(row, "no submission"+off)
		case !Counted(s):
			row = blank(row, "ungradable: "+s.ReasonCode+"; not counted until the roster is fixed"+off)
		case !s.Gradable && s.Override != nil:
			// The instructor's decision on the total (overrides.csv).
			row = zero(row, fmt.Sprintf("ungradable: %s; instructor override: total %s (%s)", s.ReasonCode, criteria.FmtPts(s.Total), s.Override.From)+off)
			row[len(row)-len(ids)-4] = criteria.FmtPts(CountedTotal(s))
		case !s.Gradable:
			status := "ungradable: " + s.ReasonCode
			if len(b.Others[l.ID]) > 0 {
				status += "; also handed in, not graded: " + strings.Join(b.Others[l.ID], ", ")
			}
			if s.Late {
				status += "; late (LMS)"
			}
			row = zero(row, status+off)
		default:
			row = append(row, criteria.FmtPts(s.Total), criteria.FmtPts(s.Max))
			for _, id := range ids {
				x, ok := s.Score(id)
				switch {
				case !ok || x.Pending:
					row = append(row, "")
				default:
					row = append(row, criteria.FmtPts(x.Points))
				}
			}
			status := "graded"
			if !s.IntegrityOK() {
				status = "graded; integrity findings"
			}
			if len(b.Others[l.ID]) > 0 {
				status += "; also handed in, not graded: " + strings.Join(b.Others[l.ID], ", ")
			}
			if s.Late {
				status += "; late (LMS)"
			}
			row = append(row, criteria.FmtPts(s.Pending), status+off)
		}
		cw.Write(row)
	}
	for _, s := range b.Subs {
		if s.Learner != "" {
			continue
		}
		row := append([]string{""}, make([]string, len(b.Roster.Columns))...)
		cw.Write(zero(row, "unknown learner: "+s.ReasonCode+": "+safetext.CSVCell(s.Name)))
	}
	cw.Flush()
	return cw.Error()
}

// manualItems is every free-text answer of the graded submissions, by
// criterion and then by keyword-assist score (highest first), with the
// score a person gave it ("" while pending).
func manualItems(b *batch.Batch) (items []grader.ManualItem, scores []string) {
	type row struct {
		m     grader.ManualItem
		score string
	}
	var q []row
	for _, s := range b.Subs {
		if s.Gradable && b.Chosen[s.Learner] == s {
			for _, m := range s.Manual {
				r := row{m: m}
				if x, ok := s.Score(m.ID); ok && !x.Pending {
					r.score = criteria.FmtPts(x.Points)
				}
				q = append(q, r)
			}
		}
	}
	slices.SortStableFunc(q, func(x, y row) int {
		return cmp.Or(cmp.Compare(x.m.ID, y.m.ID), cmp.Compare(y.m.Keyword, x.m.Keyword), cmp.Compare(x.m.Learner, y.m.Learner))
	})
	for _, r := range q {
		items, scores = append(items, r.m), append(scores, r.score)
	}
	return items, scores
}

// ManualQueue is every free-text answer still waiting for a person, by
// criterion and then by keyword-assist score (highest first).
func ManualQueue(b *batch.Batch) []grader.ManualItem {
	items, scores := manualItems(b)
	var q []grader.ManualItem
	for i, m := range items {
		if scores[i] == "" {
			q = append(q, m)
		}
	}
	return q
}

// WriteManualCSV writes every free-text answer with a score column for the
// reader to fill in (scores already merged with --manual are kept), and
// text_sha256, the short hash of the answer, so that a score is never
// applied to an answer that changed since it was read. Nothing typed into
// the file read for this batch (Typed) is dropped: a score for an answer
// that changed since goes into previous_score next to the new answer, to
// be re-read; a row of a learner not graded in this batch is written back
// as it was, with a note.
func WriteManualCSV(b *batch.Batch, w io.Writer) error {
	items, scores := manualItems(b)
	return review.WriteReview(w, b.Typed, items, scores, sameAnswerNotes(b))
}

// Write puts every output under dir:
//
//	grades.csv              one row per roster learner (LMS upload)
//	manual-review.csv       the free-text queue, with a score column to fill
//	summary.md, summary.html
//	class.html              the class report: charts and tables, one offline page
//	grades.json             every submission in full (instructor only)
//	results/NAME.json       Gradescope results.json per submission
//	feedback/NAME.md, .html learner feedback in Chinese
//
// NAME is the learner id (unknown-N for the Nth file with no known
// learner; its feedback names the file). No file holds a machine
// path: submissions are named by base name only.
func Write(b *batch.Batch, dir string) error {
	_, err := WriteFiles(b, dir)
	return err
}

// WriteFiles is Write, returning every file it wrote (slash-separated,
// relative to dir) with its sha256, for the run record (Run.Files).
func WriteFiles(b *batch.Batch, dir string) (map[string]string, error) {
	files := map[string]string{}
	err := writeAll(b, dir, files)
	return files, err
}

func writeAll(b *batch.Batch, dir string, files map[string]string) error {
	for _, d := range []string{dir, filepath.Join(dir, "results"), filepath.Join(dir, "feedback")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	write := func(name string, f func(w io.Writer) error) error {
		fh, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		if err := f(io.MultiWriter(fh, h)); err != nil {
			fh.Close()
			return err
		}
		files[filepath.ToSlash(name)] = hex.EncodeToString(h.Sum(nil))
		return fh.Close()
	}
	str := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	of := func(f func(*batch.Batch, io.Writer) error) func(io.Writer) error {
		return func(w io.Writer) error { return f(b, w) }
	}
	if err := write("grades.csv", of(WriteCSV)); err != nil {
		return err
	}
	if err := write("manual-review.csv", of(WriteManualCSV)); err != nil {
		return err
	}
	sm := Summarize(b)
	if err := write("summary.md", str(sm.Markdown())); err != nil {
		return err
	}
	if err := write("summary.html", str(sm.HTML())); err != nil {
		return err
	}
	if err := write(ClassFile, of(ClassReport)); err != nil {
		return err
	}
	all, err := json.MarshalIndent(b.Subs, "", "  ")
	if err != nil {
		return err
	}
	// Learners' answers as \u escapes where a terminal or viewer would act on them.
	if err := write("grades.json", str(string(safetext.JSON(all))+"\n")); err != nil {
		return err
	}
	for i, s := range b.Subs {
		name := b.Names[i]
		gs, err := gradescopeResults(s, name)
		if err != nil {
			return err
		}
		if gs != nil {
			if err := write(filepath.Join("results", name+".json"), str(string(gs))); err != nil {
				return err
			}
		}
		if err := write(filepath.Join("feedback", name+".md"), str(feedback.FeedbackMarkdown(s))); err != nil {
			return err
		}
		if err := write(filepath.Join("feedback", name+".html"), str(feedback.FeedbackHTML(s))); err != nil {
			return err
		}
	}
	return nil
}

// gradescopeResults is s as Gradescope's results.json (results/NAME.json),
// or nil for a file held for a roster check and not decided (!Counted):
// a results.json must carry a score, and any score, 0 included, would be
// put on the account of the row the file is held in, which the roster
// puts in doubt. Canvas leaves that row out and Moodle blank; the
// learner's feedback says the file is held.
func gradescopeResults(s *grader.Submission, name string) ([]byte, error) {
	if !Counted(s) {
		return nil, nil
	}
	gs, err := gradescope.GradescopeJSON(s)
	if err != nil {
		return nil, err
	}
	if err := gradescope.ValidateResultsJSON(gs); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err) // a bug, not bad input
	}
	return gs, nil
}

// Counted reports whether s has a total yet. A file held for a roster
// check (grader.HoldForRoster) has none until the roster is fixed, unless
// the instructor decided its total: its learner's total is blank in
// grades.csv and the LMS files and out of the class's mean, as for no
// submission, never a 0 the learner did not earn.
func Counted(s *grader.Submission) bool { return s.RecordHeld == "" || s.Override != nil }

// CountedTotal is the total grades.csv holds for a learner whose counted
// file is s: its total when it was graded or the instructor decided it
// (overrides.csv), else 0 (a file that could not be graded). grades.csv,
// the LMS exports, class.html and summary.md all read it: one source.
func CountedTotal(s *grader.Submission) float64 {
	if s.Gradable || s.Override != nil {
		return s.Total
	}
	return 0
}
