package report

import (
	"cmp"
	"fmt"
	"html"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// Summary is what the instructor reads first. Every line in it is
// Chinese: codes are named by their Chinese titles.
type Summary struct {
	Learners, Submitted, Gradable, Ungradable, Missing int
	// Buckets[i] counts graded learners whose automatic share of the
	// automatically graded maximum is in [10i %, 10(i+1) %) (the last includes 100 %).
	Buckets [10]int
	// Missed is each criterion's number of learners who did not get full
	// points, most missed first.
	Missed []Missed
	// Reasons counts ungradable submissions by reason code; Unreadable
	// lists them.
	Reasons    map[string]int
	Unreadable []UngradableFile
	Integrity  []string // "learner:finding — message" lines, instructor-facing
	Copies     []string // own-variant failures, with the instructor detail
	Duplicates []string // learners with more than one file: which one counts
	Late       []string // learners whose counted file the LMS marked late (Canvas _LATE_)
	// NotSubmitted names every roster learner with no submission;
	// UnknownFiles every file with no known learner (unknown-N: file);
	// SameAnswers every free-text answer handed in by more than one
	// learner (the reader checks them; no score changes).
	NotSubmitted []string
	UnknownFiles []string
	SameAnswers  []string
	Manual       []grader.ManualItem
	Warnings     []grader.Warning // Batch.Warnings
	// Key is the batch's key check; KeyWarning is set when most release
	// records fail to verify (the summary then opens with it).
	Key        batch.KeyCheck
	KeyWarning string
	// Points are the weights this run graded with (also recorded in
	// OUT/.coursekit-run.json); weightsLine says them in Chinese.
	Points map[string]float64
	// ScoreLine is the class's totals as grades.csv holds them (mean
	// and median), as class.html says them.
	ScoreLine string
}

// titleWeights heads the weights in summary.md|html and class.html.
const titleWeights = "本次评分的权重"

// weightsLine says, in Chinese, the weights points grade with: the
// maximum, the criteria whose points differ from the defaults, and every
// criterion's points, each criterion id as code shows it.
func weightsLine(points map[string]float64, code func(string) string) string {
	def := criteria.DefaultPoints()
	total := 0.0
	var all, changed []string
	for _, id := range criteria.CriterionIDs() {
		p, ok := points[id]
		if !ok {
			p = def[id]
		}
		total += p
		all = append(all, code(id)+" "+criteria.FmtPts(p))
		if p != def[id] {
			changed = append(changed, fmt.Sprintf("%s %s（默认 %s）", code(id), criteria.FmtPts(p), criteria.FmtPts(def[id])))
		}
	}
	if p, ok := points[criteria.ExecutionID]; ok {
		total += p
		all = append(all, code(criteria.ExecutionID)+" "+criteria.FmtPts(p))
	}
	line := fmt.Sprintf("满分 %s 分。", criteria.FmtPts(criteria.Round2(total)))
	if len(changed) == 0 {
		line += "全部是默认权重。"
	} else {
		line += "与默认不同的：" + strings.Join(changed, "、") + "。"
	}
	return line + "每一项：" + strings.Join(all, "、") + "。"
}

// UngradableFile is one submission that could not be graded.
type UngradableFile struct {
	Name, Learner, Code, Reason string
	// Override says the instructor decided the file's total
	// (overrides.csv), or "".
	Override string
}

// reasonZh is the file's reason in Chinese, and the instructor's total
// when there is one.
func (u UngradableFile) reasonZh() string {
	if u.Override != "" {
		return ZhName(ReasonZh, u.Code) + "；" + u.Override
	}
	return ZhName(ReasonZh, u.Code)
}

// Missed is one row of the most-missed table.
type Missed struct {
	ID, Title string
	Count     int
}

// integrityLine is a warning finding as one Chinese summary line.
func integrityLine(learner string, f integrity.Finding) string {
	return learner + "：" + ZhName(FindingZh, f.Code) + " — " + f.Message
}

// Summarize computes the batch summary.
func Summarize(b *batch.Batch) *Summary {
	sm := &Summary{Learners: len(b.Roster.Learners), Submitted: len(b.Subs), Reasons: map[string]int{}, Key: batch.CheckKey(b.Subs)}
	if sm.Key.Loud() {
		sm.KeyWarning = sm.Key.Warning().Zh
	}
	missed := map[string]*Missed{}
	for _, s := range b.Subs {
		if !s.Gradable {
			sm.Ungradable++
			sm.Reasons[s.ReasonCode]++
			u := UngradableFile{Name: s.Name, Learner: s.Learner, Code: s.ReasonCode, Reason: s.StaffReason()}
			if s.Override != nil {
				u.Override = overrideZh(s)
			}
			sm.Unreadable = append(sm.Unreadable, u)
			continue
		}
		sm.Gradable++
	}
	for _, l := range b.Learners() {
		s, ok := b.Chosen[l.ID]
		if !ok {
			sm.Missing++
			continue
		}
		if s.Late {
			sm.Late = append(sm.Late, fmt.Sprintf("%s：%s", l.ID, s.Name))
		}
		if len(b.Others[l.ID]) > 0 {
			sm.Duplicates = append(sm.Duplicates, fmt.Sprintf("%s：计分的是 %s；没有计分：%s", l.ID, s.Name, strings.Join(b.Others[l.ID], "、")))
		}
		if !s.Gradable {
			continue
		}
		// The automatic points only: scores typed from manual-review.csv
		// are not the grader's, and answers still waiting count for nobody.
		if pts, auto := s.Automatic(); auto > 0 {
			sm.Buckets[min(int(math.Floor(pts/auto*10)), 9)]++
		}
		for _, x := range s.Scores {
			if x.Pending || x.Points >= x.Max {
				continue
			}
			m := missed[x.ID]
			if m == nil {
				m = &Missed{ID: x.ID, Title: x.Title}
				missed[x.ID] = m
			}
			m.Count++
			if x.ID == criteria.OwnVariantID && x.Detail != "" {
				sm.Copies = append(sm.Copies, l.ID+"："+x.Detail)
			}
		}
		for _, f := range s.Integrity {
			if f.Warn {
				sm.Integrity = append(sm.Integrity, integrityLine(l.ID, f))
			}
		}
	}
	for _, m := range missed {
		sm.Missed = append(sm.Missed, *m)
	}
	for _, l := range missingLearners(b) {
		sm.NotSubmitted = append(sm.NotSubmitted, who(l))
	}
	for _, u := range unknownFiles(b) {
		sm.UnknownFiles = append(sm.UnknownFiles, fmt.Sprintf("%s：%s（%s）", u.as, u.s.Name, reasonLine(u.s)))
	}
	for _, x := range b.Same {
		sm.SameAnswers = append(sm.SameAnswers, fmt.Sprintf("%s：%s", x.Title, strings.Join(x.Learners, "、")))
	}
	slices.SortFunc(sm.Missed, func(x, y Missed) int { return cmp.Or(cmp.Compare(y.Count, x.Count), cmp.Compare(x.ID, y.ID)) })
	sm.Manual = ManualQueue(b)
	sm.Warnings = b.Warnings
	sm.Points = b.Points
	sm.ScoreLine = scoreLine(b, graded(b))
	return sm
}

func bar(n, max, width int) string {
	if max == 0 {
		return ""
	}
	return strings.Repeat("█", int(math.Round(float64(n)/float64(max)*float64(width))))
}

func maxOf(xs ...int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// Section titles shared by summary.md, summary.html and class.html.
const (
	titleUngradable = "无法评分"
	titleCopies     = "数字与别人的 trace 吻合（疑似抄袭）"
	titleIntegrity  = "完整性问题"
	titleDuplicates = "重复提交（每人只计一份）"
	titleLate       = "逾期提交（Canvas 标为 LATE，分数未扣）"
	titleWarnings   = "提醒（跳过的文件、重复提交、没有应用的人工评分）"
	titleKey        = "⚠ 密钥与发放记录"
	titleMissing    = "没有提交的学习者"
	titleUnknown    = "认不出学习者的文件"
	titleSame       = "文字题答案完全相同（供阅读时核对，不改变分数）"
)

// Markdown is the summary as Markdown (instructor-facing).
func (sm *Summary) Markdown() string {
	e := func(s string) string { return feedback.MDEscape(safetext.Text(s)) }
	var b strings.Builder
	b.WriteString("# 第 01 单元指标口径卡 · 评分汇总\n\n")
	if sm.KeyWarning != "" {
		fmt.Fprintf(&b, "> **%s**：%s\n\n", titleKey, e(sm.KeyWarning))
	}
	fmt.Fprintf(&b, "名单 %d 人；收到 %d 份提交，可评分 %d 份，无法评分 %d 份；%d 人没有提交。\n\n", sm.Learners, sm.Submitted, sm.Gradable, sm.Ungradable, sm.Missing)
	if sm.ScoreLine != "" {
		b.WriteString(e(sm.ScoreLine) + "\n\n")
	}
	b.WriteString("## 分数分布（自动评分部分，占自动评分满分的比例）\n\n```\n")
	mx := maxOf(sm.Buckets[:]...)
	for i, n := range sm.Buckets {
		fmt.Fprintf(&b, "%3d–%3d%% | %-30s %d\n", i*10, i*10+10, bar(n, mx, 30), n)
	}
	b.WriteString("```\n\n## 失分最多的检查项\n\n```\n")
	if len(sm.Missed) > 0 {
		mm := sm.Missed[0].Count
		for _, m := range sm.Missed {
			fmt.Fprintf(&b, "%-34s | %-30s %d\n", m.ID, bar(m.Count, mm, 30), m.Count)
		}
	}
	b.WriteString("```\n")
	if len(sm.Reasons) > 0 {
		b.WriteString("\n## " + titleUngradable + "\n\n")
		for _, k := range slices.Sorted(maps.Keys(sm.Reasons)) {
			fmt.Fprintf(&b, "- %s：%d 份\n", e(ZhName(ReasonZh, k)), sm.Reasons[k])
		}
		b.WriteString("\n| 文件 | 学习者 | 原因 |\n|---|---|---|\n")
		for _, u := range sm.Unreadable {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", e(u.Name), e(u.Learner), e(u.reasonZh()))
		}
	}
	for _, sec := range []struct {
		title string
		lines []string
	}{{titleMissing, sm.NotSubmitted}, {titleUnknown, sm.UnknownFiles}, {titleCopies, sm.Copies}, {titleSame, sm.SameAnswers}, {titleIntegrity, sm.Integrity}, {titleDuplicates, sm.Duplicates}, {titleLate, sm.Late}} {
		if len(sec.lines) == 0 {
			continue
		}
		b.WriteString("\n## " + sec.title + "\n\n")
		for _, l := range sec.lines {
			fmt.Fprintf(&b, "- %s\n", e(l))
		}
	}
	if len(sm.Warnings) > 0 {
		// A warning's detail lines are a list under its headline.
		b.WriteString("\n## " + titleWarnings + "\n\n")
		for _, w := range sm.Warnings {
			head, details := grader.Lines(w.Zh)
			fmt.Fprintf(&b, "- %s\n", e(head))
			for _, d := range details {
				fmt.Fprintf(&b, "  - %s\n", e(d))
			}
		}
	}
	fmt.Fprintf(&b, "\n## %s\n\n%s\n", titleWeights, weightsLine(sm.Points, func(id string) string { return "`" + feedback.CodeSpan(id) + "`" }))
	fmt.Fprintf(&b, "\n## 人工阅读队列（%d 条；关键词辅助分只用于排序，不计入自动分）\n\n| 学习者 | 检查项 | 满分 | 关键词辅助 | 答案 |\n|---|---|---|---|---|\n", len(sm.Manual))
	for _, m := range sm.Manual {
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", e(m.Learner), feedback.CodeSpan(m.ID), criteria.FmtPts(m.Max), criteria.FmtPts(m.Keyword), e(m.Text))
	}
	return b.String()
}

// HTML is the summary as a standalone page, with bar charts in plain HTML.
func (sm *Summary) HTML() string {
	e := func(s string) string { return html.EscapeString(safetext.Text(s)) }
	var b strings.Builder
	b.WriteString("<h1>第 01 单元指标口径卡 · 评分汇总</h1>\n")
	if sm.KeyWarning != "" {
		fmt.Fprintf(&b, "<p class=\"fail\"><strong>%s</strong>：%s</p>\n", e(titleKey), e(sm.KeyWarning))
	}
	fmt.Fprintf(&b, "<p>名单 %d 人；收到 %d 份提交，可评分 %d 份，无法评分 %d 份；%d 人没有提交。</p>\n", sm.Learners, sm.Submitted, sm.Gradable, sm.Ungradable, sm.Missing)
	if sm.ScoreLine != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", e(sm.ScoreLine))
	}
	b.WriteString("<h2>分数分布（自动评分部分）</h2>\n<table><tbody>\n")
	mx := maxOf(sm.Buckets[:]...)
	for i, n := range sm.Buckets {
		w := 0
		if mx > 0 {
			w = n * 100 / mx
		}
		fmt.Fprintf(&b, "<tr><td>%d–%d%%</td><td><span class=\"bar\" style=\"width:%d%%\"></span> %d</td></tr>\n", i*10, i*10+10, w, n)
	}
	b.WriteString("</tbody></table>\n<h2>失分最多的检查项</h2>\n<table><tbody>\n")
	for _, m := range sm.Missed {
		w := m.Count * 100 / sm.Missed[0].Count
		fmt.Fprintf(&b, "<tr><td>%s<br><code>%s</code></td><td><span class=\"bar\" style=\"width:%d%%\"></span> %d</td></tr>\n", e(m.Title), e(m.ID), w, m.Count)
	}
	b.WriteString("</tbody></table>\n")
	if len(sm.Reasons) > 0 {
		b.WriteString("<h2>" + titleUngradable + "</h2>\n<ul>")
		for _, k := range slices.Sorted(maps.Keys(sm.Reasons)) {
			fmt.Fprintf(&b, "<li>%s：%d 份</li>", e(ZhName(ReasonZh, k)), sm.Reasons[k])
		}
		b.WriteString("</ul>\n<table><thead><tr><th>文件</th><th>学习者</th><th>原因</th></tr></thead><tbody>\n")
		for _, u := range sm.Unreadable {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td></tr>\n", e(u.Name), e(u.Learner), e(u.reasonZh()))
		}
		b.WriteString("</tbody></table>\n")
	}
	list := func(title string, xs []string) {
		if len(xs) == 0 {
			return
		}
		fmt.Fprintf(&b, "<h2>%s</h2>\n<ul>", e(title))
		for _, x := range xs {
			fmt.Fprintf(&b, "<li>%s</li>", e(x))
		}
		b.WriteString("</ul>\n")
	}
	list(titleMissing, sm.NotSubmitted)
	list(titleUnknown, sm.UnknownFiles)
	list(titleCopies, sm.Copies)
	list(titleSame, sm.SameAnswers)
	list(titleIntegrity, sm.Integrity)
	list(titleDuplicates, sm.Duplicates)
	list(titleLate, sm.Late)
	if len(sm.Warnings) > 0 {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<ul>", e(titleWarnings))
		for _, w := range sm.Warnings {
			head, details := grader.Lines(w.Zh)
			fmt.Fprintf(&b, "<li>%s", e(head))
			if len(details) > 0 {
				b.WriteString("<ul>")
				for _, d := range details {
					fmt.Fprintf(&b, "<li>%s</li>", e(d))
				}
				b.WriteString("</ul>")
			}
			b.WriteString("</li>")
		}
		b.WriteString("</ul>\n")
	}
	fmt.Fprintf(&b, "<h2>%s</h2>\n<p>%s</p>\n", e(titleWeights), weightsLine(sm.Points, func(id string) string { return "<code>" + e(id) + "</code>" }))
	fmt.Fprintf(&b, "<h2>人工阅读队列（%d 条）</h2>\n<p>关键词辅助分只用于排序，不计入自动分。</p>\n<table><thead><tr><th>学习者</th><th>检查项</th><th>满分</th><th>关键词辅助</th><th>答案</th></tr></thead><tbody>\n", len(sm.Manual))
	for _, m := range sm.Manual {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s<br><code>%s</code></td><td>%s</td><td>%s</td><td><blockquote>%s</blockquote></td></tr>\n",
			e(m.Learner), e(m.Title), e(m.ID), criteria.FmtPts(m.Max), criteria.FmtPts(m.Keyword), e(m.Text))
	}
	b.WriteString("</tbody></table>")
	return feedback.HTMLPage("评分汇总", b.String())
}
