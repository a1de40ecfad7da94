package review

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// OverridesFile is the file in OUT where the instructor overrides an
// automatic score: grade reads it on every run and never writes it, so
// it is carried forward like any file the instructor added.
//
//	id,criterion,score,reason
//	s08,total,20,编译错误只差一个逗号，其余都对：给 20 分
//	s03,figures.goodput,2,四舍五入造成的差别，不扣分
//
// criterion is a machine-graded criterion (figures.goodput, ...), whose
// points it replaces in the learner's counted file, or "total" for a
// file that could not be graded (a compile error, ...), whose total it
// sets. Free-text criteria are scored in manual-review.csv. reason is
// shown to the learner as the instructor's decision.
const OverridesFile = "overrides.csv"

// OverrideTotalID is the criterion column's value for an override of the
// total of a file that could not be graded.
const OverrideTotalID = "total"

// Override is one row of the overrides file.
type Override struct {
	Pos       string // FILE:LINE
	Learner   string
	Criterion string // a criterion id, or OverrideTotalID
	Score     float64
	Reason    string
}

// Overrides is a read overrides file.
type Overrides struct {
	Rows []Override
	// Notes are warnings about the file read (decoded from GB18030),
	// for the batch.
	Notes     []grader.Warning
	offRoster []offRosterRow
	total     float64            // the rubric's maximum, for a total
	points    map[string]float64 // the rubric in force
}

// ReadOverridesFile reads the overrides file at path (named so in every
// message); nil, nil when there is none. Like the manual-review file it
// is strict: an unknown criterion (or a free-text one), a score that is
// not a number or outside [0, max], a row without a reason, or a learner
// and criterion twice fails the whole file, with FILE:LINE for each.
// points is the rubric in force (the total's maximum is its sum). The file
// is in OUT, so it is read as a learner's file is (regfile.Read): a
// symlink or a FIFO there is refused, unread.
func ReadOverridesFile(path string, ro *roster.Roster, points map[string]float64) (*Overrides, error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	b, err := regfile.Read(path, "an "+OverridesFile, MaxManualBytes)
	if err != nil {
		return nil, err
	}
	return readOverrides(b, path, ro, points)
}

// ReadOverrides is ReadOverridesFile for r, named name in messages.
func ReadOverrides(r io.Reader, name string, ro *roster.Roster, points map[string]float64) (*Overrides, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return readOverrides(b, name, ro, points)
}

// readOverrides is ReadOverrides for the file's bytes b.
func readOverrides(b []byte, name string, ro *roster.Roster, points map[string]float64) (*Overrides, error) {
	if points == nil {
		points = criteria.DefaultPoints()
	}
	t, err := readCSV(b, name, []string{"id", "criterion", "score", "reason"}, nil)
	if err != nil {
		return nil, err
	}
	if t.header == nil {
		return &Overrides{}, nil
	}
	total := 0.0 // the rubric's maximum (execution is in points only with --execute)
	for _, p := range points {
		total += p
	}
	total = criteria.Round2(total)
	ov := &Overrides{total: total, points: points}
	if t.note != nil {
		ov.Notes = append(ov.Notes, *t.note)
	}
	var errs BadRows
	seen := map[[2]string]int{}
	if err := t.each(func(row []string, line int, pos string) {
		bad := func(format string, a ...any) { errs.add(line, pos, format, a...) }
		id, crit, score, reason := t.cell(row, "id"), t.cell(row, "criterion"), t.cell(row, "score"), t.cell(row, "reason")
		if roster.ValidID.MatchString(id) {
			// Judged once the batch is read (CheckLearners), whatever
			// else is wrong with the row.
			errs.noteOffRoster(ro, line, pos, id, false)
		}
		max, known := points[crit]
		if crit == OverrideTotalID {
			max, known = total, true
		}
		v, perr := parseScore(score)
		switch {
		case !roster.ValidID.MatchString(id):
			bad("learner id %q: use 1-64 letters, digits and . _ @ + -", id)
		case criteria.ManualIDs[crit]:
			bad("%s %s is a free-text criterion: type its score into %s", id, crit, ManualFile)
		case !known || !slices.Contains(criteria.CriterionIDs(), crit) && crit != OverrideTotalID && crit != criteria.ExecutionID:
			bad("%s: unknown criterion %q (want a criterion id of the rubric, e.g. figures.goodput, or %s)", id, crit, OverrideTotalID)
		case perr != nil:
			bad("%s %s: score %q is not a number (write e.g. 1.5, with a dot)", id, crit, score)
		case v < 0 || v > max:
			bad("%s %s: score %s is outside [0, %s]", id, crit, score, criteria.FmtPts(max))
		case reason == "":
			bad("%s %s: no reason: the learner is shown it as your decision", id, crit)
		default:
			key := [2]string{id, crit}
			if first, dup := seen[key]; dup {
				bad("%s %s appears twice (first on line %d)", id, crit, first)
				return
			}
			seen[key] = line
			ov.Rows = append(ov.Rows, Override{Pos: pos, Learner: id, Criterion: crit, Score: v, Reason: reason})
		}
	}); err != nil {
		errs.addRead(err)
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	ov.offRoster = errs.offRoster
	return ov, nil
}

// CheckLearners is ManualScores.CheckLearners for the overrides file.
func (ov *Overrides) CheckLearners(known func(id string) bool) error {
	if ov == nil {
		return nil
	}
	return (&BadRows{offRoster: ov.offRoster}).CheckLearners(known)
}

// ApplyOverrides puts each override into the file that counts for its
// learner (counts; nil: every file): a criterion's points (the file must
// be gradable and the criterion not waiting for a person), or the total
// of a file that could not be graded. A row that cannot be applied now
// is a warning (the file stays as it is; the row stays in the file).
func ApplyOverrides(subs []*grader.Submission, counts func(*grader.Submission) bool, ov *Overrides) (warnings []grader.Warning) {
	if ov == nil {
		return nil
	}
	warnings = append(warnings, ov.Notes...)
	for _, o := range ov.Rows {
		var s *grader.Submission
		for _, x := range subs {
			if x.Learner == o.Learner && (counts == nil || counts(x)) {
				s = x
			}
		}
		notApplied := func(en, zh string) {
			warnings = append(warnings, grader.Warning{
				Text: fmt.Sprintf("%s: %s %s: %s; override not applied (kept in %s)", o.Pos, o.Learner, o.Criterion, en, OverridesFile),
				Zh:   fmt.Sprintf("%s：%s 的 %s：%s，这条覆盖没有应用（仍保留在 %s 里）", o.Pos, o.Learner, o.Criterion, zh, OverridesFile)})
		}
		switch {
		case s == nil:
			notApplied("no file of theirs in this batch", "这批提交里没有这位学习者的文件")
		case o.Criterion == OverrideTotalID && s.Gradable:
			notApplied("their file is graded: override its criteria, not the total", "这份文件可以评分：请覆盖具体的检查项，而不是总分")
		case o.Criterion == OverrideTotalID:
			s.OverrideTotal(o.Score, ov.total, o.Reason, o.Pos)
		case !s.Gradable:
			notApplied(fmt.Sprintf("their file could not be graded (%s): override its %s", s.ReasonCode, OverrideTotalID), fmt.Sprintf("这份文件无法评分（%s）：请覆盖 %s", s.ReasonCode, OverrideTotalID))
		default:
			i := slices.IndexFunc(s.Scores, func(x criteria.Score) bool { return x.ID == o.Criterion })
			switch {
			case i < 0:
				notApplied("not graded in this run", "这次评分没有这一项")
			case s.Scores[i].Pending:
				notApplied("it waits for your review in "+ManualFile+": score it there", "这一项在 "+ManualFile+" 里等待老师评分，请在那里打分")
			default:
				s.SetOverride(i, o.Score, o.Reason, o.Pos)
			}
		}
	}
	return warnings
}

// WeightNotes warns about each row whose maximum (its criterion's, or
// the rubric's for a total) differs from the one it had under was, the
// weights of the previous run into OUT (nil: none): the file is the
// instructor's and grade never rescales it, so the score counts as
// written against the new maximum, and the instructor is told so in the
// run that changes the weights.
func (ov *Overrides) WeightNotes(was map[string]float64) []grader.Warning {
	if ov == nil || was == nil {
		return nil
	}
	wasTotal := 0.0
	for id := range ov.points {
		wasTotal += was[id]
	}
	wasTotal = criteria.Round2(wasTotal)
	var notes []grader.Warning
	for _, o := range ov.Rows {
		before, now := was[o.Criterion], ov.points[o.Criterion]
		if o.Criterion == OverrideTotalID {
			before, now = wasTotal, ov.total
		}
		if before == now {
			continue
		}
		v, b, n := criteria.FmtPts(o.Score), criteria.FmtPts(before), criteria.FmtPts(now)
		notes = append(notes, grader.Warnf("%s：%s 的 %s：覆盖的 %s 分在上次评分时的满分是 %s，现在满分是 %s：按原样计 %[4]s/%[6]s 分。评分程序从不改 %[7]s；如果想给别的分数，请改这一行",
			"%s: %s %s: the override %s was within a maximum of %s in the previous run, which is %s now: it counts %[4]s/%[6]s as written (grade never changes %[7]s: edit the row if you meant another score)",
			o.Pos, o.Learner, o.Criterion, v, b, n, OverridesFile))
	}
	return notes
}
