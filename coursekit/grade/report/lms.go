package report

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
)

// LMS export formats (grade --export FORMAT=FILE).
const (
	ExportCanvas = "canvas"
	ExportMoodle = "moodle"
)

// ExportFormats are the formats WriteLMS writes.
var ExportFormats = []string{ExportCanvas, ExportMoodle}

// DefaultLMSColumn is the grade column's name when none is given.
const DefaultLMSColumn = "06-deliverable"

// WriteLMS writes the class's totals as an LMS gradebook import file:
//
//   - canvas: Canvas's gradebook CSV: Student, ID, SIS User ID, SIS Login
//     ID, Section, then column (write it as Canvas's export names the
//     assignment, "Name (12345)", to update that assignment; a name
//     without the id makes Canvas create one), and a Points Possible row.
//     ID is the roster's lms_id (the Canvas user id), SIS User ID its
//     sis_user_id column or else the learner id, SIS Login ID and Section
//     its sis_login_id and section columns.
//   - moodle: Moodle's grade import CSV: Email address (map it to the
//     user's email address), Full name (ignore it), then column.
//
// A roster learner's total is the grades.csv one: 0 for a file that is
// ungradable or not their own, blank for no submission or a file held
// for a roster check (Counted). Learners the LMS cannot match (not on the roster, an unknown file, no email for
// Moodle) are left out, and notes says so, as it says when totals still
// wait for manual review (manual: the manual-review file where their
// scores are typed). The file has no BOM: it is for the LMS.
func WriteLMS(b *batch.Batch, w io.Writer, format, column, manual string) (notes []string, err error) {
	if !slices.Contains(ExportFormats, format) {
		return nil, fmt.Errorf("unknown export format %q (want one of %s)", format, strings.Join(ExportFormats, ", "))
	}
	if column = strings.TrimSpace(column); column == "" {
		column = DefaultLMSColumn
	}
	ids := criteria.CriterionIDs()
	if _, ok := b.Points[criteria.ExecutionID]; ok {
		ids = append(ids, criteria.ExecutionID)
	}
	var maxAll float64
	for _, id := range ids {
		maxAll += b.Points[id]
	}
	cw := csv.NewWriter(w)
	col := func(l roster.Learner, names ...string) string {
		for i, c := range b.Roster.Columns {
			if slices.Contains(names, strings.ToLower(c)) && i < len(l.Extra) {
				return strings.TrimSpace(l.Extra[i])
			}
		}
		return ""
	}
	switch format {
	case ExportCanvas:
		cw.Write([]string{"Student", "ID", "SIS User ID", "SIS Login ID", "Section", column})
		cw.Write([]string{"    Points Possible", "", "", "", "", criteria.FmtPts(maxAll)})
	case ExportMoodle:
		cw.Write([]string{"Email address", "Full name", column})
	}
	var pending, noLMS, off, mismatched, unsafeIDs []string
	held := rosterMismatches(b)
	for _, l := range b.Learners() {
		if !b.Roster.Has(l.ID) {
			off = append(off, l.ID)
			continue
		}
		if _, ok := held[l.ID]; ok && format == ExportCanvas {
			// The roster's lms_id for this learner is in doubt: the row
			// would put a grade on another learner's Canvas account.
			mismatched = append(mismatched, l.ID)
			continue
		}
		total := ""
		if s, ok := b.Chosen[l.ID]; ok && Counted(s) {
			// What grades.csv holds: 0 for a file that could not be
			// graded, unless the instructor decided its total.
			total = criteria.FmtPts(CountedTotal(s))
			if s.Gradable {
				if s.Pending > 0 {
					pending = append(pending, l.ID)
				}
			}
		}
		// Names are shown, so a spreadsheet reads them as text (the
		// LMS ignores them). Identifiers are what the LMS matches on: a
		// ' in front would match nobody, so they are written as they
		// are, and a row whose identifier a spreadsheet would take for
		// a formula is left out (unsafeIDs) rather than written.
		name := safetext.CSVCell(safetext.Name(cmpOr(l.Name, l.ID))) // control codes shown escaped
		switch format {
		case ExportCanvas:
			if l.LMSID == "" {
				noLMS = append(noLMS, l.ID)
			}
			sis, login := cmpOr(col(l, "sis_user_id", "sis user id"), l.ID), col(l, "sis_login_id", "sis login id")
			if bad := formulaLike(map[string]string{"SIS User ID": sis, "SIS Login ID": login}); bad != "" {
				unsafeIDs = append(unsafeIDs, l.ID+" ("+bad+")")
				continue
			}
			cw.Write([]string{name, l.LMSID, sis, login, safetext.CSVCell(safetext.Name(col(l, "section"))), total})
		case ExportMoodle:
			if l.Email == "" {
				noLMS = append(noLMS, l.ID)
				continue
			}
			if bad := formulaLike(map[string]string{"email": l.Email}); bad != "" {
				unsafeIDs = append(unsafeIDs, l.ID+" ("+bad+")")
				continue
			}
			cw.Write([]string{l.Email, name, total})
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return nil, err
	}
	unknown := 0
	for _, s := range b.Subs {
		if s.Learner == "" {
			unknown++
		}
	}
	if len(mismatched) > 0 {
		var why []string
		for _, id := range mismatched {
			why = append(why, id+" ("+held[id]+")")
		}
		notes = append(notes, fmt.Sprintf("LEFT OUT %s, %s: the roster's lms_id disagrees with the LMS names or the signed release records, so these rows could put a grade on another learner's Canvas account: %s. Fix lms_id in the roster, grade again and export again", lang.N(lang.EN, len(mismatched), "row", "rows"), strings.Join(mismatched, ", "), strings.Join(why, "; ")))
	}
	if len(unsafeIDs) > 0 {
		notes = append(notes, fmt.Sprintf("LEFT OUT %s identifier starts with = + - or @, which a spreadsheet would run as a formula and which the LMS would not match with a ' in front: %s. Correct the roster and export again, or enter these grades by hand", lang.N(lang.EN, len(unsafeIDs), "row whose", "rows whose"), strings.Join(unsafeIDs, ", ")))
	}
	if len(pending) > 0 {
		notes = append(notes, fmt.Sprintf("%s totals do not include the points still waiting for manual review (%s): type the blank scores of their rows in %s, grade again and export again", lang.N(lang.EN, len(pending), "learner's", "learners'"), strings.Join(pending, ", "), manual))
	}
	if len(noLMS) > 0 && format == ExportCanvas {
		notes = append(notes, fmt.Sprintf("%s no lms_id in the roster, so Canvas matches them by SIS User ID only (%s)", lang.N(lang.EN, len(noLMS), "learner has", "learners have"), strings.Join(noLMS, ", ")))
	}
	if len(noLMS) > 0 && format == ExportMoodle {
		notes = append(notes, fmt.Sprintf("%s no email in the roster and %s left out of the Moodle file (%s): add an email column", lang.N(lang.EN, len(noLMS), "learner has", "learners have"), isAre(len(noLMS)), strings.Join(noLMS, ", ")))
	}
	if len(off) > 0 {
		notes = append(notes, fmt.Sprintf("%s graded by their release record %s not on the roster and left out (%s): see grades.csv", lang.N(lang.EN, len(off), "learner", "learners"), isAre(len(off)), strings.Join(off, ", ")))
	}
	if unknown > 0 {
		notes = append(notes, fmt.Sprintf("%s with no known learner %s left out: see grades.csv", lang.N(lang.EN, unknown, "file", "files"), isAre(unknown)))
	}
	return notes, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// rosterMismatches are the learners whose roster lms_id a roster-mismatch
// finding puts in doubt (grader.FindRosterMismatch: an LMS account the
// roster gives one learner handed in another's signed notebook, which
// came in only there): the record's learner and the learner the roster
// gives the account, each with why.
func rosterMismatches(b *batch.Batch) map[string]string {
	held := map[string]string{}
	add := func(id, why string) {
		if id == "" {
			return
		}
		if held[id] != "" {
			held[id] += "; "
		}
		held[id] += why
	}
	for _, s := range b.Subs {
		if !slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRosterMismatch }) {
			continue
		}
		holder := b.Roster.ByLMSID(s.LMSNumber())
		// The record's learner: the file's, or the one a held file is for.
		record := cmp.Or(s.RecordHeld, s.Learner)
		why := fmt.Sprintf("account %s (%q), %s's by the roster, handed in %s's notebook", s.LMSNumber(), s.LMSPerson(), holder, record)
		if holder == "" {
			// An lms_id typo that matches nobody (batch.noteUnknownAccounts).
			why = fmt.Sprintf("account %s (%q), nobody's by the roster, handed in %s's notebook", s.LMSNumber(), s.LMSPerson(), record)
		}
		for _, id := range []string{s.Learner, record, holder} {
			if !strings.Contains(held[id], why) {
				add(id, why)
			}
		}
	}
	return held
}

// formulaLike names the first of the identifier cells (column → value)
// that a spreadsheet would read as a formula (safetext.CSVCell would put
// a ' in front), as "column value"; "" when none would.
func formulaLike(cells map[string]string) string {
	for _, c := range slices.Sorted(maps.Keys(cells)) {
		if v := cells[c]; safetext.CSVCell(v) != v {
			return fmt.Sprintf("%s %q", c, v)
		}
	}
	return ""
}

// isAre is the verb of a count in English: "is" for 1, "are" otherwise.
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
