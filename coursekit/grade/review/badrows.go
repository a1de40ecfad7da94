package review

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// BadRows is the error for a file the instructor typed into
// (manual-review.csv, overrides.csv) with rows grade cannot use: every
// such row, "FILE:LINE: what is wrong", in line order. Whether a row's
// learner is known is settled only once the batch is read (a signed
// record makes a learner known who is not on the roster), so the rows
// whose learner is not on the roster are kept, and CheckLearners lists
// the unknown ones among the others: one run shows every row to correct.
type BadRows struct {
	rows      []badRow
	offRoster []offRosterRow
}

// badRow is one problem of a row: its line and "FILE:LINE: ...".
type badRow struct {
	line int
	text string
}

func (e *BadRows) Error() string {
	rows := slices.Clone(e.rows)
	slices.SortStableFunc(rows, func(a, b badRow) int { return cmp.Compare(a.line, b.line) })
	texts := make([]string, len(rows))
	for i, r := range rows {
		texts[i] = r.text
	}
	return strings.Join(texts, "\n")
}

// add records the problem of the row at pos (FILE:LINE) on line.
func (e *BadRows) add(line int, pos, format string, a ...any) {
	e.rows = append(e.rows, badRow{line: line, text: pos + ": " + fmt.Sprintf(format, a...)})
}

// addRead records the error that stopped reading the file (a CSV syntax
// error, on its line; after every row otherwise).
func (e *BadRows) addRead(err error) {
	line := 1 << 30
	if pe := (*csv.ParseError)(nil); errors.As(err, &pe) {
		line = pe.Line
	}
	e.rows = append(e.rows, badRow{line: line, text: err.Error()})
}

// offRosterRow is a row whose learner is not on the roster: where it is
// and the id; kept says grade itself wrote it back from an earlier run.
type offRosterRow struct {
	line    int
	pos, id string
	kept    bool
}

// noteOffRoster keeps the row at pos (line) for CheckLearners when its
// learner id is not on the roster (ro nil: no roster to check).
func (e *BadRows) noteOffRoster(ro *roster.Roster, line int, pos, id string, kept bool) {
	if ro != nil && !ro.Has(id) {
		e.offRoster = append(e.offRoster, offRosterRow{line: line, pos: pos, id: id, kept: kept})
	}
}

// err is e as an error: nil when no row is bad.
func (e *BadRows) err() error {
	if len(e.rows) == 0 {
		return nil
	}
	return e
}

// CheckLearners is the error naming every bad row of the file in line
// order, with, among them, each row whose learner is not on the roster
// and not known (graded in this batch by a signed record, or in the
// previous run into OUT): a mistyped id (s99 for s10) would leave the
// real learner's answer pending and the score nowhere. A row grade
// itself wrote back from an earlier run ("kept from an earlier run") is
// not an error. nil when every row is good and every learner known.
func (e *BadRows) CheckLearners(known func(id string) bool) error {
	if e == nil {
		return nil
	}
	all := &BadRows{rows: slices.Clone(e.rows)}
	for _, r := range e.offRoster {
		if r.kept || known(r.id) {
			continue
		}
		all.add(r.line, r.pos, "learner %q is not on the roster and has no submission in this batch (a typo for another id?)", r.id)
	}
	return all.err()
}
