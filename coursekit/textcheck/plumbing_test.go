package textcheck

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Go plumbing a learner cell should not have to read, one table for every
// review that found some: each rule names the pattern, the helper that
// replaces it, the cells it applies to, what of a cell it reads, the lines
// it must catch (most of them the very lines a review found) and, where a
// near miss matters, lines it must leave alone.

// plumbingRule is one kind of Go plumbing and the named helper a learner
// cell uses instead.
type plumbingRule struct {
	name  string              // how other checks refer to the rule
	re    *regexp.Regexp      // the plumbing
	want  string              // the helper to use instead
	in    *cellScope          // the code cells the rule applies to
	reads func(string) string // what of the cell's source it reads
	bad   []string            // lines the rule must catch
	ok    []string            // lines it must leave alone
}

// find returns the plumbing in a cell's source, or "".
func (p plumbingRule) find(src string) string {
	return strings.TrimSpace(p.re.FindString(p.reads(src)))
}

// cellScope is a set of code cells, with the least number of them the
// notebooks hold: fewer, and the rules on it stopped seeing them.
type cellScope struct {
	name  string
	has   func(where string) bool
	floor int
	sees  []string // cells (by where) in the scope
	skips []string // cells not in it
}

var (
	// everyCodeCell is the code cells of every notebook, 00's included
	// (the seventh review: its first table loaded records by hand).
	everyCodeCell = &cellScope{
		name: "code cells of every notebook", has: func(string) bool { return true }, floor: 100,
		sees: []string{"notebooks/00-runtime-check.ipynb[3]", "notebooks/unit01/10-lab-capacity.ipynb[5]"},
	}
	// unitCodeCells is the code cells of unit 01 (01–10), what unitCode
	// returns: the cells a learner reads as the lesson.
	unitCodeCells = &cellScope{
		name: "code cells of unit 01", has: func(w string) bool { return strings.Contains(w, "unit01/") }, floor: 100,
		sees:  []string{"notebooks/unit01/01-draw-the-system.ipynb[2]", "notebooks/unit01/10-lab-capacity.ipynb[5]"},
		skips: []string{"notebooks/00-runtime-check.ipynb[3]"},
	}
	// coreLessonCells is the code cells of 01–08, the core route and the
	// first two labs (issue 33's leftovers).
	coreLessonCells = &cellScope{
		name: "code cells of 01–08", has: coreLesson.MatchString, floor: 40,
		sees:  []string{"notebooks/unit01/01-draw-the-system.ipynb[2]", "notebooks/unit01/08-lab-goodput-quality.ipynb[4]"},
		skips: []string{"notebooks/00-runtime-check.ipynb[3]", "notebooks/unit01/09-lab-real-engine.ipynb[4]", "notebooks/unit01/10-lab-capacity.ipynb[5]"},
	}
)

// cellScopes are the scopes of the rules, each counted in the walk.
var cellScopes = []*cellScope{everyCodeCell, unitCodeCells, coreLessonCells}

// coreLesson reports whether a cell belongs to notebooks 01–08.
var coreLesson = regexp.MustCompile(`unit01/0[1-8]-`)

// What of a cell's source a rule reads.
var (
	// asWritten is the whole source, comments and magic lines included.
	asWritten = func(src string) string { return src }
	// withoutLineComments drops // comments, so that a comment may name
	// what the cell does not do.
	withoutLineComments = func(src string) string { return lineComment.ReplaceAllString(src, "") }
	// asGo is the cell as parseable Go (cellGo): magic lines blanked.
	asGo = cellGo
)

// lineComment is a // comment with no string after it.
var lineComment = regexp.MustCompile(`//[^"\n]*`)

// notPlumbing are lines no rule of issue 33's leftovers in 01–08 may
// catch: a multiplication is no dereference, a helper's table no loop.
var notPlumbing = []string{"d := 2*time.Second", "v := float64(users) * w", "nb.Table(nb.AttemptsTable(unit))"}

var plumbingRules = []plumbingRule{
	// The second review of unit 01 (and the seventh, for 00): a table's
	// rows converted by hand, a percentile pointer dereferenced, two slices
	// grown in step, a zero value declared to be overwritten, a slice
	// literal indexed inline, a field set on a copy to change a run's
	// conditions.
	{name: "table loaded by hand", re: regexp.MustCompile(`dataframe\.LoadRecords`),
		want: "nb.Table(lab.X(…)) shows a lab table as it is", in: everyCodeCell, reads: asWritten,
		bad: []string{"requests := dataframe.LoadRecords([][]string{"}},
	{name: "percentile dereferenced", re: regexp.MustCompile(`\*[\w.()\[\]]*\.(P50|P90|P95|P99)\b`),
		want: "a reading as a plain number (Run.TTFTP50, lab.TTFTRatio), or nb.MS for a pointer", in: everyCodeCell, reads: asWritten,
		bad: []string{"fmt.Println(*s.TTFT.P95)", "p50 := *open.Summary(sloMS).TTFT.P50"}},
	{name: "slices grown in step", re: regexp.MustCompile(`=\s*append\([^\n]*\),\s*append\(`),
		want: "a helper that returns the chart (lab.TTFTBars)", in: everyCodeCell, reads: asWritten,
		bad: []string{"names, ttfts = append(names, n), append(ttfts, t)"}},
	{name: "zero value to overwrite", re: regexp.MustCompile(`:=\s*\w+\.\w+\{\},\s*(false|true)\b`),
		want: "the helper's own (value, ok)", in: everyCodeCell, reads: asWritten,
		bad: []string{"d, ok := metrics.Distribution{}, false"}},
	{name: "slice literal indexed", re: regexp.MustCompile(`\[\]string\{[^\n]*\}\[\w+\]`),
		want: "a named variable or a labelled table", in: everyCodeCell, reads: asWritten,
		bad: []string{`fmt.Printf("%s：n = %d\n", []string{"本单元的 trace", "练习 trace"}[i], d.N)`}},
	{name: "output tokens set", re: regexp.MustCompile(`\.OutputTokens\s*=`),
		want: "trace.Attempt.WithEventTokens", in: everyCodeCell, reads: asWritten,
		bad: []string{"a.OutputTokens = a.StreamedTokens()"}},
	{name: "run condition set on a copy", re: regexp.MustCompile(`\w+\.(NoPromptCache|Parallel)\s*=`),
		want: "lab.Engine.WithoutPromptCache / WithSlots, a copy", in: everyCodeCell, reads: asWritten,
		bad: []string{"off.NoPromptCache = true", "four.Parallel = 4"}},

	// The third review: a slice grown from nil, a hand-written math.Abs or
	// math.Round, a nil check before a dereference, a switch on a search
	// result.
	{name: "event intervals from nil", re: regexp.MustCompile(`\.EventIntervals\(nil\)`),
		want: "nb.Gaps / nb.GapCount / nb.GapSum", in: unitCodeCells, reads: asWritten,
		bad: []string{"for _, g := range a.EventIntervals(nil) {"}},
	{name: "math by hand", re: regexp.MustCompile(`math\.(Abs|Round)\(`),
		want: "a lab helper that returns the number or the line (lab.BusyGap, …)", in: unitCodeCells, reads: asWritten,
		bad: []string{"busyMoves := math.Abs(wb-rb) > 0.10", "nb.Num(math.Round(tok1))"}},
	{name: "cost dereferenced", re: regexp.MustCompile(`\*\w+\.(WindowCost|CostPer1000|BusyMean)\b`),
		want: "nb.CostLine, nb.Text or a lab helper", in: unitCodeCells, reads: asWritten,
		bad: []string{"nb.Num(*s.WindowCost)", "nb.Num(*c.CostPer1000)"}},
	{name: "switch", re: regexp.MustCompile(`(?m)^\s*switch\b`),
		want: "a helper that returns the line to print (lab.AboveSaturation)", in: unitCodeCells, reads: asWritten,
		bad: []string{"switch at, ok := lab.AnswerStep(res); {"}},
	{name: "nil check before a dereference", re: regexp.MustCompile(`!= nil &&`),
		want: "a helper that says what is missing (nb.CostLine)", in: unitCodeCells, reads: asWritten,
		bad: []string{"\tif c.CostPer1000 != nil && s.WindowCost != nil {"}},

	// The third review in 02, 03, 04 and 08: a ratio's pointer
	// dereferenced, a loop over an attempt's events or over a trace's
	// attempts by index with a verdict per attempt, a dataset's items
	// looped over and answered by hand.
	{name: "ratio dereferenced", re: regexp.MustCompile(`\*\w+(\.\w+)*\.(Value|RetryAmplification)\b`),
		want: "nb.Value for a ratio, nb.Text for a number that may be missing", in: unitCodeCells, reads: asWritten,
		bad: []string{"x := *wrong.FailureRate.Value", "fmt.Println(*s.RetryAmplification)"}},
	{name: "loop over events", re: regexp.MustCompile(`range \w+(\.\w+)*\.Events\b`),
		want: "nb.EventTimes (a table of an attempt's time points) or nb.Gaps", in: unitCodeCells, reads: asWritten,
		bad: []string{"for _, e := range a.Events {"}},
	{name: "verdict per attempt", re: regexp.MustCompile(`&\w+\.Attempts\[i\]|\.Judge\([^\n]*\)\.Qualified`),
		want: "nb.VerdictsAt or nb.VerdictTable (every attempt judged, as a table)", in: unitCodeCells, reads: asWritten,
		bad: []string{"\ta := &unit.Attempts[i]", "\tif metrics.Judge(a, 1000).Qualified != metrics.Judge(a, newSLOMS).Qualified {"}},
	{name: "dataset answered by hand", re: regexp.MustCompile(`range \w+(\.\w+)*\.Dataset\.Items|dataset\.SolveArith\(`),
		want: "nb.Prompts and nb.JudgedAnswers", in: unitCodeCells, reads: asWritten,
		bad: []string{"for _, it := range load.Dataset.Items[:3] {", "right, _ := dataset.SolveArith(first.Prompt)"}},

	// Issue 33's leftovers in 01–08: no loop, no trace-header field, no map
	// key of a summary and no pointer dereference.
	{name: "loop", re: regexp.MustCompile(`(?m)^\s*for\b[^\n]*`),
		want: "a helper that returns the table, the lines or the count (nb.PercentileLines, nb.Conclusions, nb.CountWithLessThan)", in: coreLessonCells, reads: asGo,
		bad: []string{"for _, c := range s.Conditions {"}, ok: notPlumbing},
	{name: "trace header field", re: regexp.MustCompile(`\.Header\.\w+`),
		want: "a Run method that names what it reads (QueueFirstSecond, QueueLastSecond, QueueWholeWindow)", in: coreLessonCells, reads: asGo,
		bad: []string{"w := open.Trace.Header.Window"}, ok: notPlumbing},
	{name: "outcome by key", re: regexp.MustCompile(`\.Outcomes\[[^\]]*\]`),
		want: "a count by name (Run.Timeouts)", in: coreLessonCells, reads: asGo,
		bad: []string{`fmt.Printf("%d", op.Outcomes["timeout"])`}, ok: notPlumbing},
	{name: "pointer dereferenced", re: regexp.MustCompile(`(^|[(,=]|return)\s*\*[A-Za-z_]\w*(\.\w+)*`),
		want: "a plain number or nb.MS / nb.Text for a value that may be missing", in: coreLessonCells, reads: asGo,
		bad: []string{"x := *wrong.FailureRate.Value", "fmt.Println(*s.RetryAmplification)"}, ok: notPlumbing},

	// The sixth review: a condition by index, metrics options built by
	// hand, a (value, ok) or three values unpacked, a conversion, an error.
	{name: "condition by index", re: regexp.MustCompile(`\.Conditions\[`),
		want: "nb.AtSLO or a Run method by name (Run.QualityFails)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"x := s.Conditions[0].NotQualified"}},
	{name: "metrics options", re: regexp.MustCompile(`metrics\.Options\{\w`),
		want: "a helper that names the reading (nb.Funnel, nb.WindowCounts)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"metrics.Options{SLOsMS: s}"}},
	{name: "value, ok in an if", re: regexp.MustCompile(`if \w+, ok :=`),
		want: "a method that returns the line (Run.StayText, Run.IdleRateLine)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"if w, ok := r.MeanStayS(); ok {"}},
	{name: "two values and a blank", re: regexp.MustCompile(`\b[A-Za-z]\w*, [A-Za-z]\w*, _ :=`),
		want: "a method that returns the line (Run.BusyRangeLine)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"lo, hi, _ := r.WindowBusy()"}},
	{name: "float64 conversion", re: regexp.MustCompile(`\bfloat64\(`),
		want: "nb.Millis or a helper that returns the number or the line", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"float64(users)/w"},
		ok:  []string{"nb.Millis(d) // not float64(d) / 1e6"}},
	{name: "error value", re: regexp.MustCompile(`\berr\b`),
		want: "nb.Must, nb.TableOr or nb.Skip", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"if err != nil {"}},

	// The eighth review: 05's Summarize with a Printf of three
	// percentiles, 07's two counts and a long Printf, 09's loop.
	{name: "range loop", re: regexp.MustCompile(`\bfor\b[^\n]*\brange\b`),
		want: "a helper that returns the lines (lab.MedianLines)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"for _, run := range nb.Must(experiment.RunLengths(e, l)) {"}},
	{name: "summarize", re: regexp.MustCompile(`\bmetrics\.Summarize\(`),
		want: "a helper that prints the reading (nb.TPOTLines, nb.EventGapLines)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"s := metrics.Summarize(practice, metrics.Options{})"}},
	{name: "printf of three values", re: regexp.MustCompile(`\bfmt\.Printf\("[^"\n]*%[^"\n]*%[^"\n]*%`),
		want: "a helper that returns the line (nb.TPOTLines, lab.FailureSplitLine)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{`fmt.Printf("TPOT：P50 = %s/token，P95 = %s/token，P99 = %s/token", a, b, c)`}},
	{name: "two values from lab", re: regexp.MustCompile(`\b\w+, \w+ := lab\.\w+\(`),
		want: "a helper that returns the line (lab.FailureSplitLine)", in: unitCodeCells, reads: withoutLineComments,
		bad: []string{"before, after := lab.FailureSplit(open.Trace)"}},

	// Issue 33's leftovers in labs 09 and 10: a load's conditions set by
	// hand, a slice of runs built to loop over, run names formatted, a
	// comparison's metric looked up and unpacked, labels formatted for a
	// table.
	{name: "condition set by hand", re: regexp.MustCompile(`\.Conditions\[[^\]\n]*\]\s*=[^=]`),
		want: "the load's own conditions (lab.OneUser and RunEngine record prefix_reuse)", in: unitCodeCells, reads: asWritten,
		bad: []string{`load.Conditions["prefix_reuse"] = "off"`},
		ok:  []string{`nb.Compare("前缀复用关了吗", guess, load.Conditions["prefix_reuse"] == "off")`}},
	{name: "slice of runs", re: regexp.MustCompile(`\[\]\*lab\.Run\{`),
		want: "each run's report printed as it is", in: unitCodeCells, reads: asWritten,
		bad: []string{"for _, r := range []*lab.Run{e, ar} {"}},
	{name: "run names formatted", re: regexp.MustCompile(`fmt\.Sprintf\("len`),
		want: "experiment.RunLengths (saves len8, len64, …)", in: unitCodeCells, reads: asWritten,
		bad: []string{`nb.Must(experiment.RunEngine(fmt.Sprintf("len%d", words), fmt.Sprintf("%d 个词", words), load))`}},
	{name: "metric unpacked", re: regexp.MustCompile(`\.Metric\(|\.Values\(\)|\.Real\(\)`),
		want: "lab.Means and lab.Separates (plain numbers and a yes/no)", in: unitCodeCells, reads: asWritten,
		bad: []string{`itl, _ := res.Metric("itl_ms.p50")`, "itl1, itl4 := itl.Values()", "real := d.Real()"}},
	{name: "labels formatted", re: regexp.MustCompile(`\[\]string\{fmt\.Sprintf`),
		want: "a helper that labels its own table (lab.AnswerIntervalTable)", in: unitCodeCells, reads: asWritten,
		bad: []string{`labels := []string{fmt.Sprintf("答案 %s 次/s", nb.Num(at.Rate)), fmt.Sprintf("不达标 %s 次/s", nb.Num(above.Rate))}`}},
}

// plumbingRuleNamed is the rule of that name, for a check that applies
// one rule elsewhere.
func plumbingRuleNamed(t *testing.T, name string) plumbingRule {
	t.Helper()
	for _, p := range plumbingRules {
		if p.name == name {
			return p
		}
	}
	t.Fatalf("no plumbing rule is named %q", name)
	return plumbingRule{}
}

func TestLearnerCellsHaveNoPlumbing(t *testing.T) {
	seen := map[*cellScope]int{}
	for _, c := range notebookCells(t) {
		if c.kind != "code" {
			continue
		}
		for _, s := range cellScopes {
			if s.has(c.where) {
				seen[s]++
			}
		}
		for _, p := range plumbingRules {
			if !p.in.has(c.where) {
				continue
			}
			if m := p.find(c.source); m != "" {
				t.Errorf("%s: %q is Go plumbing in a learner cell; use %s", c.where, m, p.want)
			}
		}
	}
	for _, s := range cellScopes {
		if seen[s] < s.floor {
			t.Errorf("only %d %s, at least %d: the rules on them stopped seeing them", seen[s], s.name, s.floor)
		}
	}
}

// Every rule catches the lines it was written for, through what it reads
// of a cell, and leaves its near misses alone; every scope holds the cells
// it names and no other.
func TestPlumbingRulesCatchTheirExamples(t *testing.T) {
	names := map[string]bool{}
	for _, p := range plumbingRules {
		if names[p.name] {
			t.Errorf("two plumbing rules are named %q", p.name)
		}
		names[p.name] = true
		if p.re == nil || p.want == "" || p.in == nil || p.reads == nil {
			t.Errorf("rule %q: a pattern, a helper to use instead, a scope and a reading, each", p.name)
			continue
		}
		if len(p.bad) == 0 {
			t.Errorf("rule %q: no line it must catch", p.name)
		}
		for _, bad := range p.bad {
			if p.find(bad) == "" {
				t.Errorf("rule %q: not caught: %s", p.name, bad)
			}
		}
		for _, ok := range p.ok {
			if m := p.find(ok); m != "" {
				t.Errorf("rule %q: caught %q, but it is no plumbing: %s", p.name, m, ok)
			}
		}
		if !slices.Contains(cellScopes, p.in) {
			t.Errorf("rule %q: its scope %s is not among cellScopes, whose floors the walk checks", p.name, p.in.name)
		}
	}
	for _, s := range cellScopes {
		for _, w := range s.sees {
			if !s.has(w) {
				t.Errorf("%s: %s is not among them", s.name, w)
			}
		}
		for _, w := range s.skips {
			if s.has(w) {
				t.Errorf("%s: %s is among them", s.name, w)
			}
		}
	}
}
