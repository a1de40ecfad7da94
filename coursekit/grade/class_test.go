package grade

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/metrics"
)

var classFixture = flag.String("class-fixture", "", "also write the class's submissions, key and roster to this folder (the class-report browser test grades them with the CLI)")

// xssName is a file name that is markup: every output must show it as text.
const xssName = `<img src=x onerror=alert(1)>.ipynb`

// hostileAnswer is a free-text answer, and hostileName a roster name,
// that are markup.
const (
	hostileAnswer = "成功样本很少，我不确定<script>alert(2)</script>换一个窗口 P95 是否还成立。"
	hostileName   = "<img src=x onerror=alert(3)>"
)

// classNames is the class's roster names (the 姓名 column).
var classNames = map[string]string{"alice": "艾丽斯", "bob": "鲍勃", "olga": hostileName}

// classFixtureFiles is a class of 14 learners as handed in: right cards,
// each typical mistake once, a copy, the course's example numbers, a
// blank card, a notebook never run, a tampered one, a duplicate, a broken
// file and a file named like markup. It returns file name → bytes, and
// for each learner the mistakes their card makes.
func classFixtureFiles(t *testing.T, f *fixture) (map[string][]byte, map[string][]string) {
	t.Helper()
	files := map[string][]byte{}
	want := map[string][]string{}
	sub := func(id string, c *card.Card, mistakes ...string) {
		files[id+"/06-deliverable.ipynb"] = f.submitted(t, id, c)
		want[id] = mistakes
	}
	// alice's last answer holds markup; ivan copies her card, answers and
	// all. bob and carol give the same short answer: not a copy.
	hostile := func(c *card.Card) *card.Card {
		c.Uncertain = hostileAnswer
		return c
	}
	sub("alice", hostile(correctCard(t, f.variants["alice"])))
	for _, id := range []string{"bob", "carol"} {
		c := correctCard(t, f.variants[id])
		c.Uncertain = "不知道。"
		sub(id, c)
	}
	// dave deletes the failed attempts.
	c := correctCard(t, f.variants["dave"])
	c.Attempts = c.SuccessSamples
	c.FailureRate = card.Ratio{Num: 0, Den: float64(c.Attempts), Unit: c.FailureRate.Unit}
	for i := range c.Conditions {
		c.Conditions[i].QualifiedRate.Den = float64(c.Attempts)
	}
	sub("dave", c, grader.MistakeFailuresDeleted)
	// eve counts the attempts without a first token as TTFT 0.
	c = correctCard(t, f.variants["eve"])
	c.SuccessSamples = c.Attempts
	sub("eve", c, grader.MistakeMissingTTFTZero)
	// frank reads P95 by linear interpolation.
	c = correctCard(t, f.variants["frank"])
	lin := metrics.Summarize(readTrace(t, f.variants["frank"]), metrics.Options{SLOsMS: []float64{1000, 500}, Method: metrics.Linear}).TTFT.P95
	c.PercentileMethod = "linear"
	c.P95.Value = *lin / 1000
	sub("frank", c, grader.MistakeLinearP95)
	// grace qualifies with TTFT < SLO: the attempt at exactly 0.5 s drops.
	c = correctCard(t, f.variants["grace"])
	x := &c.Conditions[1]
	x.Qualified--
	x.QualifiedRate.Num--
	x.Goodput.Value = float64(x.Qualified) / c.Window.Seconds
	x.CostPer1000.Value = x.CostPer1000.Value * float64(x.Qualified+1) / float64(x.Qualified)
	sub("grace", c, grader.MistakeStrictLess)
	// heidi hands in the worked example's numbers.
	sub("heidi", correctCard(t, f.public), grader.MistakeCourseTrace)
	// ivan copies alice's card.
	sub("ivan", hostile(correctCard(t, f.variants["alice"])))
	// judy runs the release as it is.
	src := releasedCardSource(t, f.nb["judy"])
	blank, err := notebook.CardFromSource(src)
	if err != nil {
		t.Fatal(err)
	}
	files["judy/06-deliverable.ipynb"] = fill(t, f.nb["judy"], src, payloadFor(t, blank, f.variants["judy"]))
	want["judy"] = nil
	// ken never runs the self-check.
	files["ken/06-deliverable.ipynb"] = f.nb["ken"]
	// leo edits the instructions (a locked cell) after running.
	files["leo/06-deliverable.ipynb"] = edit(t, f.submitted(t, "leo", correctCard(t, f.variants["leo"])), func(_ map[string]any, cells []any) []any {
		cells[0].(map[string]any)["source"] = "# 06 交付\n\n全部通过。"
		return cells
	})
	want["leo"] = nil
	// mia hands in twice: an older try with mistakes, then the right card.
	files["mia/first-try.ipynb"] = checkedAt(t, f.submitted(t, "mia", mistakenCard(t, f.variants["mia"])), "2026-11-29T08:00:00Z")
	sub("mia", correctCard(t, f.variants["mia"]))
	// A broken file and one whose name is markup.
	good := f.submitted(t, "nick", correctCard(t, f.variants["nick"]))
	files["nick/06-deliverable.ipynb"] = good[:len(good)/3]
	files[xssName] = edit(t, f.nb["bob"], func(m map[string]any, cells []any) []any {
		delete(m["metadata"].(map[string]any), "coursekit")
		return cells
	})
	return files, want
}

// classIDs is the class classFixtureFiles hands in.
var classIDs = []string{"alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi", "ivan", "judy", "ken", "leo", "mia", "nick", "olga"}

// gradedClass writes the class fixture's files under dir/submitted and the
// key and the roster (with the 姓名 column) into dir, then grades the
// folder as the CLI does (collect, grade, batch). It returns the batch and,
// for each learner, the mistakes their card makes.
func gradedClass(t *testing.T, f *fixture, dir string) (*batch.Batch, map[string][]string) {
	t.Helper()
	files, want := classFixtureFiles(t, f)
	in := filepath.Join(dir, "submitted")
	os.RemoveAll(in)
	for name, b := range files {
		p := filepath.Join(in, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "key"), testKey, 0o600)
	rosterCSV := "id,姓名\n"
	for _, id := range classIDs {
		rosterCSV += id + "," + csvQuote(classNames[id]) + "\n"
	}
	os.WriteFile(filepath.Join(dir, "roster.csv"), []byte(rosterCSV), 0o644)
	roster, err := roster.ReadRoster(strings.NewReader(rosterCSV))
	if err != nil {
		t.Fatal(err)
	}
	col, err := grader.Collect([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	return batch.NewBatch(roster, nil, f.g.GradeInputs(col.Inputs, nil)), want
}

// The class report names each typical mistake where a card makes it, and
// lays out the whole class on one offline page, every string escaped.
// With -class-fixture DIR the submissions are also written there.
func TestClassReport(t *testing.T) {
	ids := classIDs
	f := newFixture(t, ids...)
	dir := *classFixture
	if dir == "" {
		dir = t.TempDir()
	}
	b, want := gradedClass(t, f, dir)
	for id, ms := range want {
		s := b.Chosen[id]
		if s == nil || !s.Gradable {
			t.Errorf("%s: not graded", id)
			continue
		}
		if !slices.Equal(s.Mistakes, ms) {
			t.Errorf("%s: mistakes %v, want %v", id, s.Mistakes, ms)
		}
	}
	out := filepath.Join(t.TempDir(), "graded")
	if err := report.Write(b, out); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(out, report.ClassFile))
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, w := range []string{
		"分数分布", "各检查项通过率", "常见错误", "删掉了失败的尝试", "把没有首字的尝试当成 TTFT = 0", "P95 用了线性插值", "TTFT 恰好等于门槛的没算合格",
		"用了课程示例 trace", "疑似抄袭", "锁定单元格被改动", "重复提交（1 人）", "first-try.ipynb", "无法评分的文件（3 份）", "自检没有运行", "文件不完整",
		"&lt;img src=x onerror=alert(1)&gt;.ipynb", "人工阅读队列（",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("class.html lacks %q", w)
		}
	}
	if strings.Contains(s, "<img src=x") || strings.Contains(s, "<script src") || strings.Contains(s, "<script>alert") {
		t.Error("class.html has unescaped markup or loads a script")
	}
	checkClassNames(t, b, s, read(t, out, "summary.md"), ids)
	if n := strings.Count(s, "<figure>"); n != 3 {
		t.Errorf("%d charts, want 3", n)
	}
	known := append(append(ids, criteria.CriterionIDs()...), "first-try", "06-deliverable", "onerror", "alert", "img", "src", "ECharts", "Apache", "coursekit", "manual-review", "--manual", "unknown", "feedback", "nearest", "rank", "P95", "script", "grades", "overrides")
	if bad := chineseOnly(stripTags(s), known...); len(bad) > 0 {
		t.Errorf("class.html has English words %q", bad)
	}
}

// stripTags is the page's visible text, roughly: no scripts, no tags.
func stripTags(s string) string {
	for _, tag := range []string{"script", "style"} {
		for {
			i := strings.Index(s, "<"+tag)
			if i < 0 {
				break
			}
			j := strings.Index(s[i:], "</"+tag+">")
			if j < 0 {
				break
			}
			s = s[:i] + s[i+j+len(tag)+3:]
		}
	}
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
		case !in:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// After the typed scores are merged, the class report still calls
// automatic only what the grader scored: the overview gives the total
// (what grades.csv holds) and the automatic mean apart, says the typed
// points are in the total, and the score distribution stays the
// automatic share (the walk read "自动评分平均 41.04" for a mean that held
// the typed points).
func TestClassReportNamesTypedPointsAfterTheMerge(t *testing.T) {
	f := newFixture(t, classIDs...)
	b, _ := gradedClass(t, f, t.TempDir())
	var graded []*grader.Submission
	for _, id := range classIDs {
		if s := b.Chosen[id]; s != nil && s.Gradable {
			graded = append(graded, s)
		}
	}
	mean := func(f func(*grader.Submission) float64) string {
		sum := 0.0
		for _, s := range graded {
			sum += f(s)
		}
		return criteria.FmtPts(sum / float64(len(graded)))
	}
	auto := mean(func(s *grader.Submission) float64 { return s.Total })
	before := report.Summarize(b).Buckets
	// The reader gives every waiting free-text answer full marks.
	typed := 0
	for _, s := range graded {
		for i, x := range s.Scores {
			if x.Pending && x.Kind == criteria.KindManual {
				s.SetManual(i, x.Max, "manual-review.csv:2")
				typed++
			}
		}
	}
	if typed == 0 {
		t.Fatal("premise: no answer waited for a person")
	}
	// The total is what grades.csv holds, for every learner who handed
	// in a file (0 for one that could not be graded).
	sum, n := 0.0, 0
	for _, id := range classIDs {
		if s := b.Chosen[id]; s != nil {
			sum, n = sum+report.CountedTotal(s), n+1
		}
	}
	total := criteria.FmtPts(sum / float64(n))
	if total == auto {
		t.Fatalf("premise: the typed scores did not change the mean (%s)", total)
	}
	var page strings.Builder
	if err := report.ClassReport(b, &page); err != nil {
		t.Fatal(err)
	}
	text := stripTags(page.String())
	if strings.Contains(text, "自动评分平均 "+total+" 分") {
		t.Errorf("the report calls the mean with typed points (%s) automatic", total)
	}
	// The automatic maximum is the rubric's without the free text (judy's
	// blank answers score 0 by themselves, and are still not automatic).
	autoMax := 0.0
	for id, p := range criteria.DefaultPoints() {
		if !criteria.ManualIDs[id] && id != criteria.ExecutionID {
			autoMax += p
		}
	}
	for _, want := range []string{"自动评分平均 " + auto + " 分（满分 " + criteria.FmtPts(autoMax) + " 分）", "总分平均 " + total + " 分", "已计入总分"} {
		if !strings.Contains(text, want) {
			t.Errorf("class.html lacks %q", want)
		}
	}
	if after := report.Summarize(b).Buckets; after != before {
		t.Errorf("the automatic score distribution moved with the typed scores: %v, then %v", before, after)
	}
}
