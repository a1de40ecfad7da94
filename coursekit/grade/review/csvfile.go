package review

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/internal/csvhead"
	"github.com/llmperf-course/course/coursekit/internal/csvtext"
)

// table is a CSV file the instructor typed into (manual-review.csv,
// overrides.csv), opened by readCSV: its header, checked, and a reader at
// its first row. Both files are read so, so that a spreadsheet's way of
// saving one (a byte-order mark, GB18030, a column renamed in another
// case) is read the same in the other.
type table struct {
	name   string         // the file as named in messages
	header []string       // the header as written, its byte-order mark removed; nil for an empty file
	col    map[string]int // a column's index by its name in lower case
	cr     *csv.Reader
	// note says the file was decoded from GB18030 (Excel's plain "CSV"
	// on Chinese Windows); nil for UTF-8.
	note *grader.Warning
}

// readCSV opens b, the bytes of the instructor's CSV file name: UTF-8
// (a byte-order mark is not part of the first column's name) or, when
// it is not valid UTF-8, GB18030 with a note; anything else is refused
// with name:LINE. The header must not name a column twice (in any case)
// and must have each column of need (hint[col] says more about a missing
// one), else the error names name:1. An empty file is a table with no
// header, for the caller to judge.
func readCSV(b []byte, name string, need []string, hint map[string]string) (*table, error) {
	text, enc, err := csvtext.Decode(b, name)
	if err != nil {
		return nil, err
	}
	text = bytes.TrimPrefix(text, []byte("\ufeff"))
	t := &table{name: name, col: map[string]int{}, cr: csv.NewReader(bytes.NewReader(text))}
	t.cr.FieldsPerRecord = -1
	if en, zh := csvtext.Note(name, enc); en != "" {
		t.note = &grader.Warning{Text: en, Zh: zh}
	}
	header, err := t.cr.Read()
	if err == io.EOF {
		return t, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for i, h := range header {
		header[i] = csvhead.Clean(h)
		t.col[strings.ToLower(header[i])] = i
	}
	t.header = header
	for _, c := range need {
		if _, ok := t.col[c]; !ok {
			more := ""
			if h := hint[c]; h != "" {
				more = ": " + h
			}
			// The header is not quoted: a file that is not the CSV it should be
			// (a key copied over it) is named with its line, none of its bytes shown.
			return nil, fmt.Errorf("%s:1: no %s column in the header line (want %s)%s", name, c, strings.Join(need, ","), more)
		}
	}
	// Only a header with every column needed is checked for twins, so that
	// the error, which quotes two column names, never quotes another file.
	if err := csvhead.Check(header); err != nil {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}
	return t, nil
}

// cell is row's value in column c (any case), spaces around it removed;
// "" when the file has no such column or the row no such cell.
func (t *table) cell(row []string, c string) string { return strings.TrimSpace(t.raw(row, c)) }

// raw is cell as typed, spaces and all.
func (t *table) raw(row []string, c string) string {
	if i, ok := t.col[c]; ok && i < len(row) {
		return row[i]
	}
	return ""
}

// each calls f with each row after the header, its line and "NAME:LINE"
// for messages; a row of one blank cell is skipped. A CSV syntax error
// stops the reading and is returned (the rows before it were passed to
// f).
func (t *table) each(f func(row []string, line int, pos string)) error {
	for {
		row, err := t.cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
		if len(row) == 1 && strings.TrimSpace(row[0]) == "" {
			continue
		}
		line, _ := t.cr.FieldPos(0)
		f(row, line, fmt.Sprintf("%s:%d", t.name, line))
	}
}
