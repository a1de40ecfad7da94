package nb

import (
	"errors"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
)

func requests() dataframe.DataFrame {
	return dataframe.LoadRecords([][]string{
		{"id", "model", "ttft_ms", "tokens"},
		{"r1", "<b>qwen</b>", "120.5", "32"},
		{"r2", "llama", "", "0"}, // TTFT never arrived
		{"r3", "NA", "80", ""},   // gota reads "NA" and "" as missing too
	})
}

func TestTableShowsMissingValuesAsMissingNeverZero(t *testing.T) {
	out := TableHTML(requests())
	rows := strings.Split(out, "<tr>")[2:] // skip the header row
	if len(rows) != 3 {
		t.Fatalf("want 3 data rows, got %d:\n%s", len(rows), out)
	}
	if !strings.Contains(rows[1], Missing) {
		t.Errorf("r2's missing TTFT should read %q:\n%s", Missing, rows[1])
	}
	if strings.Count(rows[2], Missing) != 2 {
		t.Errorf("r3 has two missing cells:\n%s", rows[2])
	}
	if strings.Contains(out, "NaN") {
		t.Errorf("table leaks gota's NaN:\n%s", out)
	}
	// A real zero stays a zero.
	if !strings.Contains(rows[1], `<td style="text-align:right;padding:4px 6px;white-space:nowrap">0</td>`) {
		t.Errorf("r2's 0 tokens should be shown as 0:\n%s", rows[1])
	}
}

func TestTableEscapesCellsAndHeaders(t *testing.T) {
	out := TableHTML(requests())
	if strings.Contains(out, "<b>") {
		t.Fatalf("cell markup was not escaped:\n%s", out)
	}
	if !strings.Contains(out, "&lt;b&gt;qwen&lt;/b&gt;") {
		t.Errorf("escaped model name missing:\n%s", out)
	}
}

func TestTableFormatsFloatsShortAndCountsRows(t *testing.T) {
	out := TableHTML(requests())
	if !strings.Contains(out, ">120.5<") || strings.Contains(out, "120.500000") {
		t.Errorf("want 120.5, not gota's %%f form:\n%s", out)
	}
	if !strings.Contains(out, "3 行 × 4 列") {
		t.Errorf("caption should count rows and columns:\n%s", out)
	}
}

func TestTableWrapsLongUnspacedText(t *testing.T) {
	long := "read tcp 127.0.0.1:53210->127.0.0.1:8000: read: connection_reset_by_peer_after_first_token"
	out := TableHTML(dataframe.LoadRecords([][]string{{"错误"}, {long}, {"短"}}))
	cell := regexp.MustCompile(`<td style="([^"]*)">` + regexp.QuoteMeta(html.EscapeString(long)) + `</td>`).FindStringSubmatch(out)
	if cell == nil {
		t.Fatalf("long cell missing:\n%s", out)
	}
	for _, want := range []string{"max-width:", "overflow-wrap:anywhere"} {
		if !strings.Contains(cell[1], want) || strings.Contains(cell[1], "nowrap") {
			t.Errorf("a long cell must wrap within a bounded width (%s): style %q", want, cell[1])
		}
	}
	if !strings.Contains(out, `white-space:nowrap">短</td>`) {
		t.Errorf("short cells stay on one line:\n%s", out)
	}
}

// Eleven columns (the attempts table) must fit a notebook's output area:
// a unit in brackets goes on a line of its own, a long name wraps at its
// spaces only, a short one stays on one line; the table sizes its columns
// to their text (JupyterLab lays output tables out fixed) and scrolls
// rather than running past the right edge when it still does not fit.
func TestTableHeadersTakeTwoLinesSoWideTablesFit(t *testing.T) {
	out := TableHTML(dataframe.LoadRecords([][]string{{"结果", "首字时延 TTFT（ms）", "发起时刻（ms）"}, {"完整成功", "200", "0"}}))
	for _, want := range []string{
		`<span style="white-space:nowrap">结果</span></th>`,
		`<span style="word-break:keep-all">首字时延 TTFT</span><br><span style="white-space:nowrap">（ms）</span></th>`,
		`<span style="white-space:nowrap">发起时刻</span><br><span style="white-space:nowrap">（ms）</span></th>`,
		`table-layout:auto`, `overflow-x:auto`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %s in:\n%s", want, out)
		}
	}
}

// A lab table is rows of text, header first: Table shows it as it is,
// with no type guessing ("007" stays "007", "1.50" stays "1.50").
func TestTableTakesRows(t *testing.T) {
	df := Frame(Rows{{"步", "速率（次/s）"}, {"1", "007"}, {"2", "1.50"}})
	if df.Err != nil || df.Nrow() != 2 || df.Ncol() != 2 {
		t.Fatalf("frame %v: %v", df, df.Err)
	}
	out := TableHTML(df)
	if !strings.Contains(out, ">007<") || !strings.Contains(out, ">1.50<") {
		t.Errorf("rows are shown as the text they are:\n%s", out)
	}
}

func TestTableCutsLongFramesAndSaysSo(t *testing.T) {
	recs := [][]string{{"i"}}
	for i := 0; i < MaxRows+5; i++ {
		recs = append(recs, []string{"1"})
	}
	out := TableHTML(dataframe.LoadRecords(recs))
	if got := strings.Count(out, "<tr>") - 1; got != MaxRows {
		t.Errorf("showed %d rows, want %d", got, MaxRows)
	}
	if !strings.Contains(out, "只显示前 100 行") {
		t.Errorf("caption should say rows were left out:\n%s", out[len(out)-200:])
	}
}

func TestTableReportsAFrameError(t *testing.T) {
	df := dataframe.DataFrame{Err: errors.New("<bad> column")}
	out := TableHTML(df)
	if !strings.Contains(out, "表格出错") || !strings.Contains(out, "&lt;bad&gt;") {
		t.Errorf("want an escaped error message, got %s", out)
	}
}
