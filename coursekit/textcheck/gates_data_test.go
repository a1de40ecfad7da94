package textcheck

import (
	"regexp"
	"strings"
	"testing"
)

// The third review found answers on screen before their prediction: 02[2]
// promises that every cell showing an answer waits for the prediction, yet
// figures 01.3–01.5, 04's step chart and who leaves, and 05's "n = 8" came
// after the check cell and asked nothing. TestAnswersWaitForTheirPrediction
// looks only between a prediction and its first check; this rule looks at
// every later cell.
//
// Stated mechanically: a prediction is a package-level var whose
// declaration holds a guess not written yet (nb.Unset, nb.Undecided or
// "?"). Its checks are the cells that pass it to nb.Compare…; the data its
// answers come from are the notebook's other package-level vars those
// checks read (unit, timeline, experiment, …). Every code cell after the
// prediction that shows something and reads that data asks nb.Guessed
// first (or runs through a helper that reads the prediction, RunFor).

var (
	// shows finds the first statement of a cell that puts something on screen.
	shows = regexp.MustCompile(`fmt\.Print|nb\.Table\(|nb\.Chart\(|nb\.Figure\(|gonbui\.Display|\.Report\(|nb\.Show`)
	// varLine declares one package-level var: var x = …, var x T = ….
	varLine = regexp.MustCompile(`(?m)^var\s+(\w+)\b`)
	// varBlock is a var ( … ) block; blockVar one name in it.
	varBlock       = regexp.MustCompile(`(?ms)^var\s*\((.*?)^\)`)
	blockVar       = regexp.MustCompile(`(?m)^\t(\w+)\s*=`)
	unwrittenGuess = regexp.MustCompile(`nb\.(Unset|Undecided)\b|"\?"`)
)

// declarations is the part of a code cell above %%: what GoNB keeps.
func declarations(src string) string {
	if i := strings.Index(src, "\n%%"); i >= 0 {
		return src[:i]
	}
	if strings.HasPrefix(src, "%%") {
		return ""
	}
	return src
}

// packageVars are the package-level vars a code cell declares.
func packageVars(src string) []string {
	decl := declarations(src)
	var out []string
	for _, m := range varLine.FindAllStringSubmatch(decl, -1) {
		out = append(out, m[1])
	}
	for _, b := range varBlock.FindAllStringSubmatch(decl, -1) {
		for _, m := range blockVar.FindAllStringSubmatch(b[1], -1) {
			out = append(out, m[1])
		}
	}
	return out
}

func mentions(src, name string) bool {
	return regexp.MustCompile(`\b` + name + `\b`).MatchString(src)
}

// dataShownBeforeGuess lists the cells of one notebook that show a value computed
// from a prediction's data without asking nb.Guessed first.
func dataShownBeforeGuess(cells []cell) []string {
	// The exercises at the end check their own answers, and their cells
	// show the inputs an exercise works from: the rule ends at 练习.
	for i, c := range cells {
		if c.kind == "markdown" && strings.HasPrefix(strings.TrimSpace(c.source), "## 练习") {
			cells = cells[:i]
			break
		}
	}
	vars := map[string]bool{}
	predictions := map[string]int{} // name → index of its cell
	for i, c := range cells {
		if c.kind != "code" {
			continue
		}
		for _, v := range packageVars(c.source) {
			vars[v] = true
			if unwrittenGuess.MatchString(declarations(c.source)) {
				predictions[v] = i
			}
		}
	}
	var bad []string
	flagged := map[int]bool{}
	for p, at := range predictions {
		check := regexp.MustCompile(`nb\.Compare\w*\([^\n]*\b` + p + `\b`)
		data := map[string]bool{}
		for _, c := range cells {
			if c.kind != "code" || !check.MatchString(c.source) {
				continue
			}
			for v := range vars {
				if _, isPrediction := predictions[v]; !isPrediction && mentions(c.source, v) {
					data[v] = true
				}
			}
		}
		for i, c := range cells[at+1:] {
			i += at + 1
			show := shows.FindStringIndex(c.source)
			if c.kind != "code" || show == nil || flagged[i] {
				continue
			}
			reads := false
			for v := range data {
				reads = reads || mentions(c.source, v)
			}
			if !reads {
				continue
			}
			gate := strings.Index(c.source, "nb.Guessed(")
			if run := strings.Index(c.source, "For("+p); gate < 0 || run >= 0 && run < gate {
				gate = run
			}
			if gate < 0 || gate > show[0] {
				flagged[i] = true
				bad = append(bad, c.where)
			}
		}
	}
	return bad
}

func TestEveryAnswerWaitsForItsPrediction(t *testing.T) {
	files, byFile := byNotebook(notebookCells(t))
	for _, f := range files {
		for _, where := range dataShownBeforeGuess(byFile[f]) {
			t.Errorf("%s shows a value computed from the data a prediction is checked against, before asking nb.Guessed(prediction): "+
				"a learner who runs every cell sees the answer first", where)
		}
	}
}

// The rule finds the cells the review found, on the notebooks it read.
func TestUngatedAnswersFindsAFigureAfterTheCheck(t *testing.T) {
	cells := []cell{
		{where: "n[0]", kind: "code", source: "var unit = nb.Must(trace.ReadFile(x))"},
		{where: "n[1]", kind: "code", source: "var prediction = Prediction{P95MS: nb.Unset}"},
		{where: "n[2]", kind: "code", source: "%%\nif !nb.Guessed(prediction) {\n\treturn\n}\nfmt.Println(unit)"},
		{where: "n[3]", kind: "code", source: "%%\ns := metrics.Summarize(unit, o)\nnb.Compare(\"P95\", prediction.P95MS, s.TTFT.P95)"},
		{where: "n[4]", kind: "code", source: "%%\ndefer gonbui.Sync()\nnb.Figure(\"图 01.3\", tracefig.TTFTDistribution(unit))"},
		{where: "n[5]", kind: "code", source: "var other = nb.Must(trace.ReadFile(y))\n\n%%\nnb.Table(nb.ConditionsTable(other))"},
		{where: "n[6]", kind: "code", source: "%%\nfmt.Println(\"no data\")"},
	}
	got := dataShownBeforeGuess(cells)
	if len(got) != 1 || got[0] != "n[4]" {
		t.Errorf("want only the figure after the check, n[4]; got %v", got)
	}
}
