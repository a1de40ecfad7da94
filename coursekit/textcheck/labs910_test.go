package textcheck

import (
	"regexp"
	"strings"
	"testing"
)

// What the issue-33 leftovers in labs 09 and 10 must not bring back.

// A prediction is scored on what the data can show. 09 says the 1- and
// 4-slot throughputs usually differ within the noise, so "tokens/s grows"
// scored on one mean above the other is a coin flip; 10's search sees
// only the rates it tested, so its answer is the lower end of a bracket
// and "below saturation" follows from the rate ladder, not the engine.
var coinFlips = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`\btok\w*4\s*>\s*tok\w*1\b`), "4 slots' tokens/s above 1 slot's is within the noise: ask whether it reaches a multiple (会变成 4 倍吗), or score compare's verdict"},
	{regexp.MustCompile(`BelowSat\b|答案低于饱和吞吐`), "the search's answer is below saturation by its rate ladder (24 meets, 48 fails): score what the search shows, a step above saturation that meets or not"},
}

func TestPredictionsScoreWhatTheDataShow(t *testing.T) {
	for _, c := range unitCode(t) {
		for _, f := range coinFlips {
			if m := f.re.FindString(c.source); m != "" {
				t.Errorf("%s: %q: %s", c.where, m, f.why)
			}
		}
	}
}

// countBound is a sentence that says how many samples an interval needs
// to be bounded ("至少要 6 个", "攒不到 72 个 … 没有上界"): it must say
// which interval (95 %, each tail ≤ 2.5 %).
var countBound = regexp.MustCompile(`(至少|不到|才)[^。；？\n]*\d+ 个[^。；？\n]*(有界|没有界|上界)|(有界|没有界|上界)[^。；？\n]*(至少|不到)[^。；？\n]*\d+ 个`)

// Every sentence of 09 and 10 that says how many samples bound an interval
// names the interval: 95 %, two-sided with each tail ≤ 2.5 % (the counts
// 6 and 72 hold only for it). And 09 never says compare shows which
// differences are "real": an interval without 0 separates on this data.
func TestIntervalCountsNameTheirInterval(t *testing.T) {
	seen := 0
	for _, c := range notebookCells(t) {
		if !strings.Contains(c.where, "/09-") && !strings.Contains(c.where, "/10-") {
			continue
		}
		for _, s := range regexp.MustCompile(`[。；？\n]`).Split(c.source, -1) {
			if !countBound.MatchString(s) || !strings.Contains(s, "区间") {
				continue
			}
			seen++
			if !strings.Contains(s, "每侧") || !strings.Contains(s, "2.5%") {
				t.Errorf("%s: %q: say which interval: 95%%、每侧 ≤ 2.5%%", c.where, strings.TrimSpace(s))
			}
		}
		if strings.Contains(c.where, "/09-") {
			for _, never := range []string{"差别是真的", "真的差别", "才是真"} {
				if strings.Contains(c.source, never) {
					t.Errorf("%s: %q: an interval without 0 says this data separates the two sides (分得出差别), not that the difference is real", c.where, never)
				}
			}
		}
	}
	if seen < 4 {
		t.Errorf("found %d sentences tying a sample count to a bounded interval in 09 and 10; the test reads none of them", seen)
	}
}

// 10 states its search's answer as what the search shows: the capacity
// lies between the highest rate that met and the lowest that failed, and
// the answer is the lower end.
func TestCapacityAnswerIsTheBracketsLowerEnd(t *testing.T) {
	found := false
	for _, c := range nbCells(t, notebookCells(t), "10-lab-capacity.ipynb") {
		if c.kind == "markdown" && strings.Contains(c.source, "取下界") && strings.Contains(c.source, "之间") {
			found = true
		}
	}
	if !found {
		t.Error("10 never says the capacity lies between the highest rate that met and the lowest that failed (之间), the answer its lower end (取下界)")
	}
}

// Issue 36: 04's 1 s → 0.5 s change is one trace judged twice, so it needs
// no comparison of repeated runs, and 04 says so in words, pointing to 09
// (the tool's name is not taught in the core unit); 09 compares 1 slot
// against 4 with compare, several runs a side.
func TestCompareWhereItBelongs(t *testing.T) {
	all := notebookCells(t)
	said := false
	for _, c := range nbCells(t, all, "04-change-one-condition.ipynb") {
		said = said || c.kind == "markdown" && strings.Contains(c.source, "不需要比较两组重复测量") && strings.Contains(c.source, "同一份 trace") && strings.Contains(c.source, "09")
	}
	if !said {
		t.Error("04 never says its change of threshold needs no comparison of repeated runs (不需要比较两组重复测量: 同一份 trace judged twice; that is 09's)")
	}
	repeats := regexp.MustCompile(`experiment\.Compare\(lab\.Repeats\("slots1", ([3-9])\), lab\.Repeats\("slots4", ([3-9])\)\)`)
	found := false
	for _, c := range nbCells(t, all, "09-lab-real-engine.ipynb") {
		found = found || repeats.MatchString(c.source)
	}
	if !found {
		t.Error("09 does not compare 1 slot against 4 with experiment.Compare over 3 or more runs a side")
	}
}

// Issue 36, second walk: 09's compare text said every run had "十来个请求"
// (a dozen or so) where its settings (4 users, closed loop, 2 s window)
// gave 4–8 attempts. The text states the settings the lab cell runs with,
// users and window, read off that cell, and no count they cannot give.
func TestCompareTextMatchesItsRunSettings(t *testing.T) {
	all := notebookCells(t)
	users := regexp.MustCompile(`lab\.Users\((\d+), [^\n]*, (\d+)\*time\.Second\)`)
	var n, secs string
	text := ""
	for _, c := range nbCells(t, all, "09-lab-real-engine.ipynb") {
		if c.kind == "code" && strings.Contains(c.source, `Name: "slots1"`) {
			if m := users.FindStringSubmatch(c.source); m != nil {
				n, secs = m[1], m[2]
			}
		}
		if c.kind == "markdown" && strings.Contains(c.source, "`experiment.Compare` 和终端里") {
			text = c.source
		}
	}
	if n == "" || text == "" {
		t.Fatalf("09: experiment 4's load (lab.Users with a window in seconds) or its compare text not found (users %q, text %d bytes)", n, len(text))
	}
	if strings.Contains(text, "十来个") {
		t.Error("09's compare text says each run had 十来个请求; its settings give a few")
	}
	if !strings.Contains(text, secs+" s") || !strings.Contains(text, n+" 个用户") {
		t.Errorf("09's compare text does not state the runs' settings (%s 个用户, %s s), which set how many requests a run gets:\n%s", n, secs, text)
	}
}

// Issue 36, third walk: 09's reading guide said a short run's P95 or P99
// difference "没法判断，只能是 ~", where compare with 3 runs a side uses
// Welch's t over the runs' own values, and leaves ~ only where the
// percentile is each run's maximum. The guide says both.
func TestCompareGuideMatchesWelchOverRuns(t *testing.T) {
	guide := ""
	for _, c := range nbCells(t, notebookCells(t), "09-lab-real-engine.ipynb") {
		if c.kind == "markdown" && strings.Contains(c.source, "看表要点") {
			guide = c.source
		}
	}
	if guide == "" {
		t.Fatal("09: the compare reading guide (看表要点) not found")
	}
	if strings.Contains(guide, "差值也就没法判断") || !strings.Contains(guide, "Welch t") || !strings.Contains(guide, "最大值") {
		t.Errorf("09's reading guide does not say short runs' percentiles fall back to Welch's t over runs, and stay ~ only at each run's maximum:\n%s", guide)
	}
}
