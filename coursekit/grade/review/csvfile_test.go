package review

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// readCSV reads both files the instructor types into (manual-review.csv,
// overrides.csv) the same way: a UTF-8 byte-order mark is not part of the
// first column's name; a file Excel saved as GB18030 is decoded, with a
// note naming it; a header that names one column twice, or lacks a column,
// is refused with FILE:1; and the rows come with FILE:LINE.
func TestReadCSV(t *testing.T) {
	const text = "ID,Criterion,score,reason\r\ns01,figures.p95,2,四舍五入的差别\r\n"
	gbk, err := simplifiedchinese.GB18030.NewEncoder().String(text)
	if err != nil {
		t.Fatal(err)
	}
	need := []string{"id", "criterion", "score", "reason"}
	for _, tc := range []struct {
		name, in string
		gb       bool
	}{
		{"UTF-8", text, false},
		{"UTF-8 with BOM", "\ufeff" + text, false},
		{"GB18030", gbk, true},
	} {
		tb, err := readCSV([]byte(tc.in), "graded/overrides.csv", need, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := tb.col["id"]; got != 0 || tb.header[0] != "ID" {
			t.Errorf("%s: id column %d, header %q: want 0, \"ID\" (no byte-order mark)", tc.name, got, tb.header)
		}
		var rows []string
		if err := tb.each(func(row []string, line int, pos string) {
			rows = append(rows, pos+" "+tb.cell(row, "id")+" "+tb.cell(row, "reason"))
		}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if want := "graded/overrides.csv:2 s01 四舍五入的差别"; len(rows) != 1 || rows[0] != want {
			t.Errorf("%s: rows %q, want [%q]", tc.name, rows, want)
		}
		if (tb.note != nil) != tc.gb {
			t.Errorf("%s: note %v, want one only for GB18030", tc.name, tb.note)
		}
		if tc.gb && !strings.Contains(tb.note.Text, "graded/overrides.csv is not UTF-8") {
			t.Errorf("%s: note %q does not name the file", tc.name, tb.note.Text)
		}
	}
	for _, tc := range []struct{ name, in, want string }{
		{"a column twice", "\ufeffid,criterion,score,Score,reason\n", `graded/overrides.csv:1: columns "score" (column 3) and "Score" (column 4) differ only in case`},
		{"a column missing", "\ufeffid,criterion,score\n", `graded/overrides.csv:1: no reason column in the header line (want id,criterion,score,reason)`},
		{"neither UTF-8 nor GB18030", "id,criterion,score,reason\ns01,\xff\xff,1,x\n", "graded/overrides.csv:2: byte 0xff"},
	} {
		_, err := readCSV([]byte(tc.in), "graded/overrides.csv", need, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
	}
	// An empty file has no header: the caller says what that means.
	if tb, err := readCSV(nil, "graded/overrides.csv", need, nil); err != nil || tb.header != nil {
		t.Errorf("empty file: %v, %v", tb, err)
	}
	if _, err := readCSV([]byte("\ufeffid,criterion,score\n"), "m.csv", []string{"id", "text_sha256"}, map[string]string{"text_sha256": "written by an older coursekit"}); err == nil || !strings.Contains(err.Error(), "m.csv:1: no text_sha256 column") || !strings.Contains(err.Error(), "written by an older coursekit") {
		t.Errorf("hint: %v", err)
	}
}
