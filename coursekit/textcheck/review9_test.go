package textcheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lab"
)

// Rules from the ninth review of unit 01 (issue 33).

// 10 names the token count of a reply $M$; 02 calls it $N$. The cell that
// introduces $M$ says which of 02's symbols it is.
func TestCapacityTokenSymbolPointsTo02(t *testing.T) {
	c := oneCell(t, notebookCells(t), "$M$ 步")
	if !strings.Contains(c.source, "02 的 $N$") {
		t.Errorf("%s introduces $M$ without saying it is 02's $N$", c.where)
	}
}

// chineseCount reads 一 to 九 as a count of columns.
var chineseCount = map[string]int{"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

// 08 splits the quality table's columns into what a dashboard shows and
// what only grading tells: the two counts add up to the table's data
// columns, and every column is named.
func TestQualityTableColumnsAreCountedRight(t *testing.T) {
	c := oneCell(t, notebookCells(t), "监控面板能看到的")
	header := lab.QualityTable(500)[0][1:] // the first column names the run
	m := regexp.MustCompile(`左边(.)列.*右边(.)列`).FindStringSubmatch(c.source)
	if m == nil {
		t.Fatalf("%s: no 左边…列…右边…列 in %q", c.where, c.source)
	}
	if n := chineseCount[m[1]] + chineseCount[m[2]]; n != len(header) {
		t.Errorf("%s counts %s + %s columns; the table has %d data columns %v", c.where, m[1], m[2], len(header), header)
	}
	for _, h := range header {
		name := strings.TrimSpace(regexp.MustCompile(`（.*）`).ReplaceAllString(h, ""))
		if !strings.Contains(c.source, name) {
			t.Errorf("%s does not name the column %q", c.where, name)
		}
	}
}

// The labs 07–10 come after the deliverable and are optional: 00's route
// table, 06's 下一步 and README's quick start say so.
func TestLabsAreCalledOptional(t *testing.T) {
	cells := notebookCells(t)
	for _, c := range cells {
		if !strings.Contains(c.where, "/00-") {
			continue
		}
		for _, l := range regexp.MustCompile(`(?m)^\| (07|08|09|10) 实验[^\n]*$`).FindAllString(c.source, -1) {
			if !strings.Contains(l, "选做") {
				t.Errorf("%s: the route row %q does not say the lab is optional", c.where, l)
			}
		}
	}
	if c := oneCell(t, cells, "提交之后"); !strings.Contains(c.source, "选做") {
		t.Errorf("%s: 下一步 does not say the labs are optional", c.where)
	}
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if l := regexp.MustCompile("(?m)^.*`07`–`10`.*$").FindString(string(readme)); !strings.Contains(l, "选做") {
		t.Errorf("README's quick start lists the labs without 选做: %q", l)
	}
}

// coursekit/lab runs both the simulator and the real engine (09).
func TestLabPackageIsNotOnlyTheSimulator(t *testing.T) {
	c := oneCell(t, notebookCells(t), "| `coursekit/lab` |")
	if !strings.Contains(c.source, "模拟服务器与真实引擎") {
		t.Errorf("%s describes coursekit/lab as the simulator only", c.where)
	}
}

// 03's prediction asks a nearest-rank P95 and a goodput before 03 gives
// their formulas: the cell that introduces it points to 00's glossary.
func TestPredictionPointsToTheGlossary(t *testing.T) {
	cells := notebookCells(t)
	p := oneCell(t, cells, "P95MS       float64")
	_, by := byNotebook(cells)
	nb := p.where[:strings.LastIndex(p.where, "[")]
	var before string
	for _, c := range by[nb] {
		if c.where == p.where {
			break
		}
		if c.kind == "markdown" {
			before = c.source
		}
	}
	if !strings.Contains(before, "00") || !strings.Contains(before, "术语表") {
		t.Errorf("%s: the markdown before the prediction does not point to 00's 术语表: %q", p.where, before)
	}
}
