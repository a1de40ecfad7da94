package review

import (
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
)

// ManualFile is the manual-review file report.Write writes and
// ReadManualFile reads back once a person has filled in the score column.
const ManualFile = "manual-review.csv"

// MaxManualBytes caps a manual-review file read back (it holds every
// learner's free-text answers): a longer one, a FIFO or a device is
// refused unread, naming the file.
const MaxManualBytes = 256 << 20

// TextSHA is the short hash of a free-text answer written next to it in
// the manual-review file: a score typed for one answer is not applied to
// a different answer (the learner resubmitted in between).
func TextSHA(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:6])
}

// KeyCell is the text_sha256 cell written for an answer: its TextSHA
// after the letter h, so that a spreadsheet never reads it as a number
// (Excel turns an all-digit 408566123456 into 4.08566E+11 and saves it
// so). ReadManualCSV also reads the older bare form.
func KeyCell(text string) string { return "h" + TextSHA(text) }

// uncell is a cell as typed: without the ' that safetext.CSVCell put in
// front of a formula-like text when grade wrote it back, so a learner's
// feedback shows the comment as the instructor typed it.
func uncell(c string) string {
	if t, ok := strings.CutPrefix(c, "'"); ok && safetext.CSVCell(t) == c {
		return t
	}
	return c
}

// parseKey is the TextSHA in a text_sha256 cell (h + 12 hex digits, or
// the older 12 hex digits), or ok false when the cell is neither (a
// spreadsheet mangled it).
func parseKey(cell string) (sha string, ok bool) {
	s := strings.ToLower(strings.TrimSpace(cell))
	s = strings.TrimPrefix(s, "'")
	s = strings.TrimPrefix(s, "h")
	if len(s) != 12 {
		return "", false
	}
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return "", false
		}
	}
	return s, true
}

// normText is an answer as compared when a row's key was mangled: line
// endings and the spaces around it do not count.
func normText(s string) string {
	return strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
}

// answers reports whether r was typed for the answer text: the same text
// hash, or, when a spreadsheet mangled the row's key (4.08566E+11), the
// same answer text in the row's text column (as written, or as grade
// neutralised it for spreadsheets).
func (r *ManualScore) answers(text string) bool {
	if !r.keyLost {
		return TextSHA(text) == r.TextSHA
	}
	t := normText(r.Text)
	return t != "" && (t == normText(text) || t == normText(safetext.CSVCell(text)) || t == normText(safetext.CSVCell(safetext.Text(text))))
}

// ManualScore is one filled-in row of the manual-review file.
type ManualScore struct {
	Pos       string // "manual-review.csv:12", for messages
	Learner   string
	Criterion string
	Score     float64
	TextSHA   string // textSHA of the answer the person read
	// The rest of the row as written, so that a row that cannot be applied
	// now (its learner is not in this batch) is written back unchanged.
	Title, Max, Keyword, Keywords, Text string
	// Previous is a score typed for an earlier answer of the learner
	// (column previous_score), kept until someone re-reads the new one.
	Previous string
	// Note, Comment and Extra are what the person typed into the note
	// and comment columns and into columns of their own (ExtraCols).
	Note, Comment string
	Extra         []string
	filled        bool // Score was typed (a Kept row has only Previous)
	// zeroKept is the score as typed, for a row whose criterion now has
	// a weight of 0 (Score is then 0): written back as typed, with its
	// typed maximum in Max, so that a restored weight applies it again.
	zeroKept string
	keyLost  bool // TextSHA is not a key (a spreadsheet mangled it): match by the answer text
	state    int  // how ApplyManual used the row: rowUnused, rowApplied, rowChanged
}

// apply gives criterion i of s the row's score; one kept through a
// weight of 0 (zeroKept) counts 0 and is shown as typed.
func (r *ManualScore) apply(s *grader.Submission, i int) {
	if r.zeroKept != "" {
		s.SetManualZeroWeight(i, r.zeroKept, r.Max, r.Pos)
		return
	}
	s.SetManual(i, r.Score, r.Pos)
}

// How ApplyManual used a row (ManualScore.state).
const (
	rowUnused  = iota // not applied: written back unchanged
	rowApplied        // its score counts
	rowChanged        // the answer changed: the score becomes the new answer's previous_score
)

// ManualScores is a filled-in manual-review file: the rows with a score.
// Rows whose score is blank are still waiting for a person; Blank counts
// them.
type ManualScores struct {
	Rows  []ManualScore
	Blank int
	// Kept are blank rows that carry a previous_score: an answer that
	// changed after it was scored and is still waiting to be re-read.
	Kept []ManualScore
	// ExtraCols are the columns the file has that grade does not write
	// (added by a person); every row's values are kept (ManualScore.Extra)
	// and written back.
	ExtraCols []string
	// Typed is every row (scored or not) by learner and criterion: its
	// comment, note and extra columns are written back, and its comment
	// reaches the learner's feedback.
	Typed map[[2]string]*ManualScore
	// Notes are warnings about rows read (a score rescaled to a new
	// maximum, or set aside), for the batch.
	Notes []grader.Warning
	// offRoster are the rows whose learner is not on the roster, for
	// CheckLearners.
	offRoster []offRosterRow
}

// CheckLearners is the error naming FILE:LINE for every row whose
// learner is not on the roster and not known; see BadRows.CheckLearners.
func (ms *ManualScores) CheckLearners(known func(id string) bool) error {
	if ms == nil {
		return nil
	}
	return (&BadRows{offRoster: ms.offRoster}).CheckLearners(known)
}

// manualColumns are the columns WriteReview writes, in order.
var manualColumns = []string{"id", "criterion", "title", "max", "keyword_assist", "keywords_found", "text", "text_sha256", "previous_score", "note", "score", "comment"}

// GradeNoteMark begins the notes grade writes into the note column of
// manual-review.csv (in Chinese, as summary.md and class.html speak to
// the instructor), and GradeNoteEnd ends them: what lies between is
// grade's, found wherever it is in the cell and written again (or
// dropped) by each run; everything else in the cell was typed by a
// person and is kept verbatim, whatever separates it.
const (
	GradeNoteMark = "〔评分程序〕"
	GradeNoteEnd  = "〔/评分程序〕"
)

// grade's notes in the note column (GradeNoteMark first).
const (
	// noteChanged: the answer changed since it was scored (the old
	// score, %s, is in previous_score).
	noteChanged = GradeNoteMark + "答案在评分之后改过，原来的 %s 分放在 previous_score：请重新阅读并打分"
	// keptNote: a row written back as it was, its learner not graded in
	// this batch.
	keptNote = GradeNoteMark + "这次评分没有这位学习者，这一行按上次原样保留"
	// noteRescaled: a typed score rescaled to a new maximum (typed/max →
	// new/max).
	noteRescaled = GradeNoteMark + "权重改了，分数按比例换算：%s/%s → %s/%s"
	// noteSetAside: a score typed against a maximum of 0, pending again.
	noteSetAside = GradeNoteMark + "这个分数是按满分 0 打的，无法换算，已放回等待评分：请重新打分"
	// zeroNote begins the note of a row kept as typed while its
	// criterion's weight is 0.
	zeroNote = GradeNoteMark + "权重为 0，分数按原样保留"
)

// Carried counts the rows the next manual-review.csv keeps although their
// score does not count in this batch: answers that changed since they were
// scored (previous_score), and learners not graded in this batch.
func (ms *ManualScores) Carried() (changed, absent int) {
	for _, r := range ms.Rows {
		switch r.state {
		case rowChanged:
			changed++
		case rowUnused:
			absent++
		}
	}
	return changed, absent
}

// ReadManualFile reads a filled-in manual-review file; see ReadManualCSV.
func ReadManualFile(path string, ro *roster.Roster, points map[string]float64) (*ManualScores, error) {
	return ReadManualFileWas(path, ro, points, nil)
}

// ReadManualCSV reads the manual-review file as WriteReview wrote it,
// with the score column filled in by a person. It is strict, so that a
// typo never becomes a grade: every problem is reported as NAME:LINE, and
// any problem fails the whole file before anything is graded. A problem is
// a learner id that cannot be one, a criterion that is not free text, a score
// that is not a number or not in [0, max] (max from the rubric), a row for
// the same learner and criterion twice, or a scored row without its text
// hash. A blank score is still pending. A learner who is not on the roster
// is not an error here: a signed record graded for them makes rows for
// them, and ApplyManual warns about a row it cannot apply.
func ReadManualCSV(r io.Reader, name string, ro *roster.Roster, points map[string]float64) (*ManualScores, error) {
	return ReadManualCSVWas(r, name, ro, points, nil)
}

// ReadManualFileWas is ReadManualFile for a file written under the
// weights was (the previous run's, from OUT's run record); see
// ReadManualCSVWas.
func ReadManualFileWas(path string, ro *roster.Roster, points, was map[string]float64) (*ManualScores, error) {
	return readManualFile(path, ro, points, was, regfile.ReadNamed)
}

// ReadOutManualFileWas is ReadManualFileWas for OUT's own manual-review
// file: a folder others may change, so it is read as a learner's file is
// (regfile.Read), and a symlink or a FIFO there is refused, unread.
func ReadOutManualFileWas(path string, ro *roster.Roster, points, was map[string]float64) (*ManualScores, error) {
	return readManualFile(path, ro, points, was, regfile.Read)
}

func readManualFile(path string, ro *roster.Roster, points, was map[string]float64, read func(path, what string, limit int64) ([]byte, error)) (*ManualScores, error) {
	b, err := read(path, "a "+ManualFile, MaxManualBytes)
	if err != nil {
		return nil, err
	}
	return readManual(b, path, ro, points, was)
}

// ReadManualCSVWas is ReadManualCSV for a file written under the weights
// was (nil: points). A score typed in a row whose max column is the
// maximum was gave the criterion, and differs from the maximum in force
// now, is rescaled to the new maximum with a warning (Notes) and a note
// in the row; typed against a maximum of 0, it is set aside as pending.
// It is never applied as a part of the new maximum.
func ReadManualCSVWas(r io.Reader, name string, ro *roster.Roster, points, was map[string]float64) (*ManualScores, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return readManual(b, name, ro, points, was)
}

// readManual is ReadManualCSVWas for the file's bytes b. Saved by a
// spreadsheet as GB18030 (Excel's "CSV (逗号分隔)" on Chinese Windows),
// the file is decoded, with a warning first in Notes.
func readManual(b []byte, name string, ro *roster.Roster, points, was map[string]float64) (*ManualScores, error) {
	if points == nil {
		points = criteria.DefaultPoints()
	}
	t, err := readCSV(b, name, []string{"id", "criterion", "text_sha256", "score"},
		map[string]string{"text_sha256": "written by an older coursekit: grade again and fill in the new file"})
	if err != nil {
		return nil, err
	}
	if t.header == nil {
		return nil, fmt.Errorf("%s: empty; want the %s that coursekit grade wrote, with the score column filled in", name, ManualFile)
	}
	header := t.header
	ms := &ManualScores{Typed: map[[2]string]*ManualScore{}}
	if t.note != nil {
		ms.Notes = append(ms.Notes, *t.note)
	}
	var extraIdx []int
	for i, h := range header {
		if !slices.Contains(manualColumns, strings.ToLower(h)) && h != "" {
			ms.ExtraCols = append(ms.ExtraCols, h)
			extraIdx = append(extraIdx, i)
		}
	}
	var errs BadRows
	seen := map[[2]string]int{}
	if err := t.each(func(row []string, line int, pos string) {
		get := func(c string) string { return t.cell(row, c) }
		bad := func(format string, a ...any) { errs.add(line, pos, format, a...) }
		if len(row) != len(header) {
			bad("%s, the header has %d (a comma in an unquoted score or answer?)", lang.N(lang.EN, len(row), "field", "fields"), len(header))
			return
		}
		id, crit, score, sha := get("id"), get("criterion"), get("score"), get("text_sha256")
		if !roster.ValidID.MatchString(id) {
			bad("learner id %q: use 1-64 letters, digits and . _ @ + -", id)
			return
		}
		// A learner not on the roster is judged once the batch is read
		// (CheckLearners), whatever else is wrong with the row.
		note := get("note")
		errs.noteOffRoster(ro, line, pos, id, notePart(note, keptNote) != "" || strings.Contains(note, "kept from an earlier run"))
		if !criteria.ManualIDs[crit] && crit != criteria.OwnVariantID {
			bad("criterion %q is not a free-text criterion or %s (want one of %s)", crit, criteria.OwnVariantID, strings.Join(manualCriteria(), ", "))
			return
		}
		key := [2]string{id, crit}
		if first, dup := seen[key]; dup {
			bad("%s %s appears twice (first on line %d)", id, crit, first)
			return
		}
		seen[key] = line
		keyLost := false
		if k, ok := parseKey(sha); ok {
			sha = k
		} else if sha != "" {
			keyLost = true // e.g. 4.08566E+11: matched by the answer text
		}
		row0 := ManualScore{Pos: pos, Learner: id, Criterion: crit, TextSHA: sha, keyLost: keyLost, Title: get("title"), Max: get("max"),
			Keyword: get("keyword_assist"), Keywords: get("keywords_found"), Text: t.raw(row, "text"), Previous: get("previous_score"),
			Note: get("note"), Comment: uncell(get("comment"))}
		for _, i := range extraIdx {
			row0.Extra = append(row0.Extra, row[i])
		}
		ms.Typed[key] = &row0
		if score == "" {
			ms.Blank++
			if row0.Previous != "" {
				// A score set aside under other weights keeps the maximum
				// it was typed against: "2/2", not a bare 2 beside a max
				// of 4 that reads as half marks.
				if m, err := strconv.ParseFloat(row0.Max, 64); err == nil && was != nil && m == was[crit] && m != points[crit] && !strings.Contains(row0.Previous, "/") {
					row0.Previous += "/" + row0.Max
				}
				ms.Kept = append(ms.Kept, row0)
			}
			return
		}
		v, err := parseScore(score)
		max := points[crit]
		// The score was typed against the row's max; when the maximum in
		// force differs (other weights), it is rescaled below, never
		// applied as a part of the new maximum.
		typedMax := max
		if m, err := strconv.ParseFloat(row0.Max, 64); err == nil && was != nil && (m == was[crit] || was[crit] == 0 && m > 0 && notePart(row0.Note, zeroNote) != "") {
			// The max column is the maximum the score was typed against
			// (or, for a row kept through a weight of 0, the one it was
			// typed against before).
			typedMax = m
		}
		switch {
		case err != nil:
			bad("%s %s: score %q is not a number (write e.g. 1.5, with a dot)", id, crit, score)
			return
		case v < 0:
			bad("%s %s: score %s is negative", id, crit, score)
			return
		case v > typedMax:
			bad("%s %s: score %s is above the maximum %s", id, crit, score, criteria.FmtPts(typedMax))
			return
		case sha == "":
			bad("%s %s: no text_sha256, so the answer the score was given for is unknown (use the file coursekit grade wrote)", id, crit)
			return
		}
		if typedMax != max {
			if max == 0 {
				// A weight of 0 takes the criterion out of the total: the
				// score counts 0 now, but is kept as typed (never
				// rescaled through 0), and counts again when a weight
				// is restored.
				if was == nil || was[crit] != 0 {
					ms.Notes = append(ms.Notes, grader.Warnf("%s：%s 的 %s 的权重现在是 0：按满分 %s 打的 %s 分原样保留，现在计 0 分，恢复权重后重新计入",
						"%s: %s %s: the weight is now 0: the score %s/%s is kept as typed and counts 0 until the weight is restored", pos, id, crit, criteria.FmtPts(v), criteria.FmtPts(typedMax)))
				}
				row0.zeroKept = criteria.FmtPts(v)
				row0.Max = criteria.FmtPts(typedMax)
				row0.Note = joinNote(fmt.Sprintf("%s：%s/%s（权重恢复前计 0 分）", zeroNote, criteria.FmtPts(v), criteria.FmtPts(typedMax)), row0.Note)
				v = 0
			} else if typedMax == 0 {
				ms.Notes = append(ms.Notes, grader.Warnf("%s：%s 的 %s 是按满分 0 打的 %s 分，现在满分是 %s：无法换算，这一项放回等待评分，请重新打分",
					"%s: %s %s: score %s was typed against a maximum of 0, the maximum is now %s: it cannot be rescaled, so the answer is pending again (set aside: type a new score)", pos, id, crit, score, criteria.FmtPts(max)))
				ms.Blank++
				row0.Previous = score + "/0"
				row0.Note = joinNote(noteSetAside, row0.Note)
				ms.Kept = append(ms.Kept, row0)
				return
			} else {
				nv := criteria.Round2(v * max / typedMax)
				ms.Notes = append(ms.Notes, grader.Warnf("%s：%s 的 %s 是按满分 %s 打的 %s 分，现在满分是 %s：按比例换算为 %s 分",
					"%s: %s %s: score %s was typed against a maximum of %s, the maximum is now %s: rescaled to %s", pos, id, crit, score, criteria.FmtPts(typedMax), criteria.FmtPts(max), criteria.FmtPts(nv)))
				row0.Note = joinNote(fmt.Sprintf(noteRescaled, criteria.FmtPts(v), criteria.FmtPts(typedMax), criteria.FmtPts(nv), criteria.FmtPts(max)), row0.Note)
				row0.Max, v = criteria.FmtPts(max), nv
			}
		}
		row0.Score, row0.filled = v, true
		ms.Rows = append(ms.Rows, row0)
		*ms.Typed[key] = row0
	}); err != nil {
		errs.addRead(err)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	ms.offRoster = errs.offRoster
	return ms, nil
}

// WriteReview writes the manual-review file (see report.WriteManualCSV):
// items are the free-text answers, scores[i] the score items[i] already
// has ("" while pending), notes a note for the reader per learner and
// criterion, and typed the file read for this batch (nil: none).
func WriteReview(w io.Writer, typed *ManualScores, items []grader.ManualItem, scores []string, notes map[[2]string]string) error {
	// A UTF-8 BOM: Excel opens the file as UTF-8 (not the Chinese as
	// mojibake); ReadManualCSV skips it.
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	var extraCols []string
	if typed != nil {
		extraCols = typed.ExtraCols
	}
	cw.Write(append(slices.Clone(manualColumns), extraCols...))
	type key [2]string
	// typedOf is what a person typed into a row besides its score: the
	// comment, their part of the note, and their own columns.
	typedOf := func(k key) (note, comment string, extra []string) {
		extra = make([]string, len(extraCols))
		if typed == nil || typed.Typed[k] == nil {
			return "", "", extra
		}
		// Written back as text: a typed =HYPERLINK(…) stays inert.
		r := typed.Typed[k]
		for i, x := range r.Extra {
			if i < len(extra) {
				extra[i] = safetext.CSVCell(x)
			}
		}
		return r.Note, safetext.CSVCell(r.Comment), extra
	}
	prev := map[key]ManualScore{}
	var carried []ManualScore
	if typed != nil {
		for _, r := range typed.Kept {
			prev[key{r.Learner, r.Criterion}] = r
		}
		for _, r := range typed.Rows {
			switch r.state {
			case rowChanged:
				r.Previous = criteria.FmtPts(r.Score)
				prev[key{r.Learner, r.Criterion}] = r
			case rowUnused:
				carried = append(carried, r)
			}
		}
	}
	for i, m := range items {
		p, note := "", notes[key{m.Learner, m.ID}]
		if r, ok := prev[key{m.Learner, m.ID}]; ok {
			delete(prev, key{m.Learner, m.ID})
			if scores[i] == "" {
				p, note = r.Previous, addNote(fmt.Sprintf(noteChanged, r.Previous), note)
			}
		}
		tnote, comment, extra := typedOf(key{m.Learner, m.ID})
		max, score := criteria.FmtPts(m.Max), scores[i]
		if r := typedRow(typed, m.Learner, m.ID); r != nil && r.filled && score != "" {
			if r.zeroKept != "" {
				// Kept as typed through a weight of 0.
				max, score = r.Max, r.zeroKept
				note = addNote(note, notePart(r.Note, zeroNote))
			} else if p := notePart(r.Note, noteRescaled[:strings.Index(noteRescaled, "%")]); strings.HasSuffix(p, " → "+score+"/"+max) {
				// The rescaled score, as long as it is the one grade made.
				note = addNote(note, p)
			}
		}
		cw.Write(append([]string{m.Learner, m.ID, m.Title, max, criteria.FmtPts(m.Keyword), safetext.CSVCell(strings.Join(m.Keywords, " ")), safetext.CSVCell(safetext.Text(m.Text)), KeyCell(m.Text), p, joinNote(note, tnote), score, comment}, extra...))
	}
	// Previous scores with no answer here now: kept, still to be re-read.
	for _, k := range slices.SortedFunc(maps.Keys(prev), func(x, y key) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }) {
		r := prev[k]
		r.filled = false
		carried = append(carried, r)
	}
	for _, r := range carried {
		score := ""
		if r.filled {
			score = criteria.FmtPts(r.Score)
		}
		tnote, comment, extra := typedOf(key{r.Learner, r.Criterion})
		key := r.TextSHA
		if !r.keyLost && key != "" {
			key = "h" + key
		}
		cw.Write(append([]string{r.Learner, r.Criterion, r.Title, r.Max, r.Keyword, r.Keywords, r.Text, key, r.Previous, joinNote(keptNote, tnote), score, comment}, extra...))
	}
	cw.Flush()
	return cw.Error()
}

// typedRow is the row typed for learner and criterion, or nil.
func typedRow(ms *ManualScores, learner, crit string) *ManualScore {
	if ms == nil {
		return nil
	}
	return ms.Typed[[2]string{learner, crit}]
}

// manualCriteria are the criteria a person may score: the free text, and
// the own-variant check when it waits for review (a notebook handed in
// from another learner's account).
func manualCriteria() []string {
	var ids []string
	for _, id := range card.CriterionIDs() {
		if criteria.ManualIDs[id] {
			ids = append(ids, id)
		}
	}
	return append(ids, criteria.OwnVariantID)
}

// ApplyManual puts the scores a person typed into the submissions: the
// criterion gets its points and stops being pending, and the total and the
// status line follow. A row is applied to each gradable submission of its
// learner whose answer is still the one the person read (same text hash).
// Every row that cannot be applied comes back as a warning, and its
// criterion stays pending: the learner has no gradable submission, the
// answer changed since (resubmitted), or the criterion is no longer
// waiting for a person.
func ApplyManual(subs []*grader.Submission, ms *ManualScores) (warnings []grader.Warning) {
	return ApplyManualCounted(subs, nil, ms)
}

// ApplyManualCounted is ApplyManual for a batch where counts says which
// submission counts for its learner (the duplicate rule's; nil: every
// one). A row is applied to, and judged against, the file that counts: a
// score typed for an older file's answer that the counted file changed
// is not applied there, and goes to the new answer's previous_score, as
// when a file is replaced. A learner's other files (not counted) get the
// score, silently, only where their answer is the one the person read:
// their feedback agrees with the counted file's, and they never decide
// what happens to the score.
func ApplyManualCounted(subs []*grader.Submission, counts func(*grader.Submission) bool, ms *ManualScores) (warnings []grader.Warning) {
	if ms == nil {
		return nil
	}
	if counts == nil {
		counts = func(*grader.Submission) bool { return true }
	}
	warnings = append(warnings, ms.Notes...)
	warnings = append(warnings, applyComments(subs, counts, ms)...)
	for k := range ms.Rows {
		row := &ms.Rows[k]
		row.state = rowUnused
		found := false
		// A learner's other file (a duplicate) with no such answer is
		// worth a warning only when the score went nowhere.
		var notWaiting []grader.Warning
		for _, s := range subs {
			if !s.Gradable || s.Learner != row.Learner {
				continue
			}
			if !counts(s) {
				i := slices.IndexFunc(s.Scores, func(x criteria.Score) bool { return x.ID == row.Criterion })
				j := slices.IndexFunc(s.Manual, func(m grader.ManualItem) bool { return m.ID == row.Criterion })
				if i >= 0 && s.Scores[i].Pending && j >= 0 && row.answers(s.Manual[j].Text) {
					row.apply(s, i)
				}
				continue
			}
			found = true
			i := slices.IndexFunc(s.Scores, func(x criteria.Score) bool { return x.ID == row.Criterion })
			j := slices.IndexFunc(s.Manual, func(m grader.ManualItem) bool { return m.ID == row.Criterion })
			if i < 0 || !s.Scores[i].Pending || j < 0 {
				notWaiting = append(notWaiting, grader.Warnf("%s：%s 的 %s 在 %s 里已经不等人工评分（现在没有这个答案），这个分数没有应用",
					"%s: %s %s: not waiting for a person in %s (no answer there now); score not applied (kept in the new manual-review.csv)", row.Pos, row.Learner, row.Criterion, cmp.Or(s.Name, s.File)))
				continue
			}
			if now := TextSHA(s.Manual[j].Text); !row.answers(s.Manual[j].Text) {
				warnings = append(warnings, grader.Warning{
					Text: fmt.Sprintf("%s: %s %s: the answer in %s changed since it was scored (text_sha256 %s, now %s); score not applied, still pending", row.Pos, row.Learner, row.Criterion, cmp.Or(s.Name, s.File), row.TextSHA, now),
					Zh:   fmt.Sprintf("%s：%s 的 %s 在 %s 里的答案在评分之后改过，这个分数没有应用，仍等待评分", row.Pos, row.Learner, row.Criterion, cmp.Or(s.Name, s.File))})
				if row.state != rowApplied {
					row.state = rowChanged
				}
				continue
			}
			row.apply(s, i)
			row.state = rowApplied
		}
		if row.state != rowApplied {
			warnings = append(warnings, notWaiting...)
		}
		if !found {
			warnings = append(warnings, grader.Warnf("%s：%[2]s 在这批提交里没有可评分的笔记本，%[3]s 的分数这次没有应用，保留在新的 manual-review.csv 里",
				"%s: %[2]s %[3]s: %[2]s has no gradable submission in this batch; score not applied, kept in the new manual-review.csv", row.Pos, row.Learner, row.Criterion))
		}
	}
	return warnings
}

// applyComments puts each row's comment (the comment column) next to the
// learner's answer, for their feedback: only onto the answer the person
// read (same text hash); a comment on an answer that changed since is a
// warning and stays in manual-review.csv.
func applyComments(subs []*grader.Submission, counts func(*grader.Submission) bool, ms *ManualScores) (warnings []grader.Warning) {
	for _, k := range slices.SortedFunc(maps.Keys(ms.Typed), func(x, y [2]string) int { return cmp.Or(cmp.Compare(x[0], y[0]), cmp.Compare(x[1], y[1])) }) {
		row := ms.Typed[k]
		if row.Comment == "" {
			continue
		}
		for _, s := range subs {
			if !s.Gradable || s.Learner != row.Learner {
				continue
			}
			j := slices.IndexFunc(s.Manual, func(m grader.ManualItem) bool { return m.ID == row.Criterion })
			if j < 0 {
				continue
			}
			if !row.answers(s.Manual[j].Text) {
				if !counts(s) {
					continue // a file that does not count: nothing to say
				}
				warnings = append(warnings, grader.Warnf("%s：%s 的 %s 在 %s 里的答案在写评语之后改过，评语没有放进反馈（仍保留在 manual-review.csv 里）",
					"%s: %s %s: the answer in %s changed since the comment was written; comment not shown in the feedback (kept in manual-review.csv)", row.Pos, row.Learner, row.Criterion, cmp.Or(s.Name, s.File)))
				continue
			}
			s.Manual[j].Comment = row.Comment
		}
	}
	return warnings
}

// parseScore reads a typed score: a plain decimal number only
// (criteria.ParseDecimal), as weights are.
func parseScore(s string) (float64, error) { return criteria.ParseDecimal(s) }
