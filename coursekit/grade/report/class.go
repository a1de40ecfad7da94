package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/charts/class"
	"github.com/llmperf-course/course/coursekit/charts/page"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/review"
)

// ClassFile is the class report Write writes.
const ClassFile = "class.html"

// criterionStat is one criterion's row of the class report.
type criterionStat struct {
	id, title string
	passed    int
	mistakes  map[string]int // mistake code → learners, for the mistakes that cost this criterion
}

// graded is the submission graded for each roster learner who has a
// gradable one, in roster order.
func graded(b *batch.Batch) []*grader.Submission {
	var out []*grader.Submission
	for _, l := range b.Roster.Learners {
		if s, ok := b.Chosen[l.ID]; ok && s.Gradable {
			out = append(out, s)
		}
	}
	return out
}

// criterionStats is the pass rate of every machine-graded criterion (free
// text waits for a person and is left out), worst first, with the
// mistakes that cost it.
func criterionStats(b *batch.Batch, graded []*grader.Submission) []criterionStat {
	ids := criteria.CriterionIDs()
	if _, ok := b.Points[criteria.ExecutionID]; ok {
		ids = append(ids, criteria.ExecutionID)
	}
	var out []criterionStat
	for _, id := range ids {
		if criteria.ManualIDs[id] {
			continue
		}
		st := criterionStat{id: id, mistakes: map[string]int{}}
		for _, s := range graded {
			x, ok := s.Score(id)
			if !ok {
				continue
			}
			st.title = x.Title
			if !x.Pending && x.Points >= x.Max {
				st.passed++
				continue
			}
			for _, m := range s.Mistakes {
				if i := slices.IndexFunc(grader.MistakeList, func(mi grader.MistakeInfo) bool { return mi.Code == m }); i >= 0 && slices.Contains(grader.MistakeList[i].Criteria, id) {
					st.mistakes[m]++
				}
			}
		}
		if st.title == "" {
			st.title = id
		}
		out = append(out, st)
	}
	slices.SortStableFunc(out, func(x, y criterionStat) int { return cmp.Compare(x.passed, y.passed) })
	return out
}

func mistakeTitle(code string) string {
	for _, m := range grader.MistakeList {
		if m.Code == code {
			return m.Title
		}
	}
	return code
}

// ClassReport writes the class report: one offline page (page.Write,
// ECharts inlined) with the score distribution, each criterion's pass
// rate with the typical mistakes behind it, the integrity and copy
// findings, duplicates, ungradable files with their reasons and the
// manual-review queue. Every string from a submission is escaped by the
// page's parts.
func ClassReport(b *batch.Batch, w io.Writer) error {
	sm := Summarize(b)
	graded := graded(b)
	var parts []page.Part
	if sm.KeyWarning != "" {
		parts = append(parts, page.Heading(titleKey), page.Text(sm.KeyWarning))
	}
	overview := fmt.Sprintf("名单 %d 人；收到 %d 份提交，可评分 %d 份，无法评分 %d 份；%d 人没有提交。人工阅读队列：%d 条答案等待老师阅读。",
		sm.Learners, sm.Submitted, sm.Gradable, sm.Ungradable, sm.Missing, len(sm.Manual))
	if line := scoreLine(b, graded); line != "" {
		overview += "\n\n" + line
	}
	parts = append(parts, page.Text(overview))
	if len(sm.NotSubmitted) > 0 {
		parts = append(parts, page.Text(fmt.Sprintf("没有提交的 %d 人：%s。", len(sm.NotSubmitted), strings.Join(sm.NotSubmitted, "、"))))
	}
	if len(sm.UnknownFiles) > 0 {
		parts = append(parts, page.Text(fmt.Sprintf("认不出学习者的文件 %d 份：%s。反馈写在 feedback/ 下同名的文件里。", len(sm.UnknownFiles), strings.Join(sm.UnknownFiles, "；"))))
	}

	// Everyone, one row each: click a column header to sort.
	head, lrows := learnerTable(b)
	parts = append(parts, page.Heading(fmt.Sprintf("每位学习者（%d 行）", len(lrows))),
		page.Text("点击表头按这一列排序，再点一次反过来排。"),
		page.SortableTable("class_learners", head, lrows))

	// Score distribution.
	bands := make([]string, len(sm.Buckets))
	for i := range bands {
		bands[i] = fmt.Sprintf("%d–%d%%", i*10, i*10+10)
	}
	parts = append(parts,
		page.Figure(class.ScoreDistribution(bands, sm.Buckets[:], "每位学习者计分的那一份：自动评分得分占自动评分满分的比例", charts.WithID("class_scores")),
			"文字题等待老师阅读，不计入这里的比例。"))

	// Pass rates, and the mistakes behind the failures.
	stats := criterionStats(b, graded)
	names := make([]string, len(stats))
	passed := make([]int, len(stats))
	var rows [][]string
	for i, st := range stats {
		names[i], passed[i] = st.title, st.passed
		var ms []string
		for _, code := range slices.Sorted(maps.Keys(st.mistakes)) {
			ms = append(ms, fmt.Sprintf("%s（%d 人）", mistakeTitle(code), st.mistakes[code]))
		}
		if len(ms) == 0 {
			continue
		}
		rate := fmt.Sprintf("%.0f%%(%d/%d)", float64(st.passed)/float64(max(len(graded), 1))*100, st.passed, len(graded))
		rows = append(rows, []string{st.title + "\n" + st.id, rate, strings.Join(ms, "；")})
	}
	parts = append(parts,
		page.Figure(class.PassRates(names, passed, len(graded), charts.WithID("class_pass_rates")), "从低到高排列：最上面的几项最值得在课上再讲一遍。"))
	if len(rows) > 0 {
		parts = append(parts, page.Text("下表只列出没通过的人里认出了典型错误的检查项："),
			page.Table([]string{"检查项", "通过率", "没通过的人里的常见错误"}, rows))
	}

	mcount := map[string][]string{}
	for _, s := range graded {
		for _, m := range s.Mistakes {
			mcount[m] = append(mcount[m], s.Learner)
		}
	}
	var mnames []string
	var mcounts []int
	var mrows [][]string
	for _, m := range grader.MistakeList {
		mnames = append(mnames, m.Title)
		mcounts = append(mcounts, len(mcount[m.Code]))
		mrows = append(mrows, []string{m.Title, fmt.Sprint(len(mcount[m.Code])), strings.Join(mcount[m.Code], "、"), strings.Join(m.Criteria, "、")})
	}
	parts = append(parts,
		page.Figure(class.Mistakes(mnames, mcounts, len(graded), charts.WithID("class_mistakes")), "每种错误按口径卡上的数字认出：数字恰好符合这种错误算法的结果。"),
		page.Table([]string{"错误", "人数", "学习者", "影响的检查项"}, mrows))

	// Findings, duplicates, ungradable files, the queue.
	var irows [][]string
	for _, s := range graded {
		if x, ok := s.Score(criteria.OwnVariantID); ok && x.Detail != "" && !x.Pending && x.Points < x.Max {
			irows = append(irows, []string{s.Learner, "疑似抄袭", x.Detail})
		}
	}
	for _, l := range b.Roster.Learners {
		if s, ok := b.Chosen[l.ID]; ok {
			for _, f := range s.Integrity {
				if f.Warn {
					irows = append(irows, []string{l.ID, ZhName(FindingZh, f.Code), f.Message})
				}
			}
		}
	}
	parts = append(parts, page.Heading(fmt.Sprintf("完整性与抄袭（%d 条）", len(irows))))
	if len(irows) == 0 {
		parts = append(parts, page.Text("没有完整性问题，也没有数字与别人的 trace 吻合的口径卡。"))
	} else {
		parts = append(parts, page.Table([]string{"学习者", "问题", "说明"}, irows))
	}

	var drows [][]string
	for _, l := range b.Roster.Learners {
		if s, ok := b.Chosen[l.ID]; ok && len(b.Others[l.ID]) > 0 {
			drows = append(drows, []string{l.ID, s.Name, strings.Join(b.Others[l.ID], "\n")})
		}
	}
	parts = append(parts, page.Heading(fmt.Sprintf("重复提交（%d 人）", len(drows))))
	if len(drows) == 0 {
		parts = append(parts, page.Text("每位学习者只交了一份。"))
	} else {
		parts = append(parts, page.Text("规则：能评分的优先，其中取笔记本自己记录的保存时间（自检运行时间，其次单元格运行时间，再次 LMS 压缩包里的时间）最新的一份；时间相同则取收集顺序中靠后的一份。"),
			page.Table([]string{"学习者", "计分的文件", "没有计分的文件"}, drows))
	}

	var urows [][]string
	for i, s := range b.Subs {
		if !s.Gradable {
			urows = append(urows, []string{s.Name, b.Names[i], reasonLine(s), s.StaffReason()})
		}
	}
	parts = append(parts, page.Heading(fmt.Sprintf("无法评分的文件（%d 份）", len(urows))))
	if len(urows) == 0 {
		parts = append(parts, page.Text("每份提交都能评分。"))
	} else {
		parts = append(parts, page.Table([]string{"文件", "学习者", "原因", "说明"}, urows))
	}

	parts = append(parts, page.Heading(fmt.Sprintf("文字题答案完全相同（%d 组）", len(b.Same))))
	if len(b.Same) == 0 {
		parts = append(parts, page.Text(fmt.Sprintf("没有两人交了一字不差的文字题答案（不计空白；短于 %d 个字的答案不比较）。", batch.MinSameAnswerRunes)))
	} else {
		var srows [][]string
		for _, x := range b.Same {
			srows = append(srows, []string{x.Title + "\n" + x.Criterion, strings.Join(x.Learners, "、"), excerpt(x.Text, 120)})
		}
		parts = append(parts, page.Text(fmt.Sprintf("不计空白后一字不差、至少 %d 个字的答案。这只是给阅读者的线索，不改变任何分数：是否算抄袭由老师决定。", batch.MinSameAnswerRunes)),
			page.Table([]string{"文字题", "学习者", "答案"}, srows))
	}

	parts = append(parts, page.Heading(titleWeights), page.Text(weightsLine(sm.Points, func(id string) string { return id })))

	byCrit := map[string]int{}
	for _, m := range sm.Manual {
		byCrit[m.Title]++
	}
	var qrows [][]string
	for _, t := range slices.Sorted(maps.Keys(byCrit)) {
		qrows = append(qrows, []string{t, fmt.Sprint(byCrit[t])})
	}
	parts = append(parts, page.Heading(fmt.Sprintf("人工阅读队列（%d 条）", len(sm.Manual))),
		page.Text("答案和分数栏在 "+review.ManualFile+" 里；填好分数后用 --manual 再评一次即可合并。"))
	if len(qrows) > 0 {
		parts = append(parts, page.Table([]string{"检查项", "等待阅读"}, qrows))
	}
	if len(sm.Warnings) > 0 {
		var wrows [][]string
		for _, x := range sm.Warnings {
			wrows = append(wrows, []string{x.Zh})
		}
		parts = append(parts, page.Heading(titleWarnings), page.Table([]string{"提醒"}, wrows))
	}
	return page.Write(w, "第 01 单元指标口径卡 · 班级报告", parts...)
}

// excerpt is s cut to at most n characters, with an ellipsis when cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "……"
}

// scoreLine says what the class scored, each part under its own name:
// the total (what grades.csv holds: every learner who handed in a file,
// 0 for a file that could not be graded unless the instructor decided
// its total), the automatic points, and the points a person typed from
// manual-review.csv, which are in the total once merged and are never
// called automatic (these two over the graded files).
func scoreLine(b *batch.Batch, graded []*grader.Submission) string {
	var totals []float64
	var maxPts, auto, readMax, typed, typedMax, waiting float64
	zeros, decided := 0, 0
	for _, l := range b.Learners() {
		s, ok := b.Chosen[l.ID]
		if !ok || !Counted(s) {
			continue
		}
		totals = append(totals, CountedTotal(s))
		switch {
		case s.Gradable:
		case s.Override != nil:
			decided++
		default:
			zeros++
		}
	}
	if len(totals) == 0 {
		return ""
	}
	readers, waiters := 0, 0
	for _, s := range graded {
		maxPts = max(maxPts, s.Max)
		a, _ := s.Automatic()
		auto += a
		// The free-text questions are a person's to score (a blank one
		// scores 0 by itself, and is still not what "automatic" means).
		m := 0.0
		for _, x := range s.Scores {
			if x.Kind == criteria.KindManual {
				m += x.Max
			}
		}
		readMax = max(readMax, m)
		if tp, tm := s.Typed(); tm > 0 {
			typed, typedMax = typed+tp, max(typedMax, tm)
			readers++
		}
		if s.Pending > 0 {
			waiting = max(waiting, s.Pending)
			waiters++
		}
	}
	if maxPts == 0 {
		for _, p := range b.Points {
			maxPts += p
		}
	}
	slices.Sort(totals)
	mean := 0.0
	for _, v := range totals {
		mean += v
	}
	line := fmt.Sprintf("%d 位学习者计分（与 grades.csv 的总分相同", len(totals))
	if zeros > 0 {
		line += fmt.Sprintf("；其中 %d 份无法评分，计 0 分", zeros)
	}
	if decided > 0 {
		line += fmt.Sprintf("；%d 份无法评分、由老师覆盖总分（overrides.csv）", decided)
	}
	line += fmt.Sprintf("）：总分平均 %s 分，中位数 %s 分（满分 %s 分）。",
		criteria.FmtPts(mean/float64(len(totals))), criteria.FmtPts(totals[(len(totals)-1)/2]), criteria.FmtPts(maxPts))
	if len(graded) == 0 {
		return line
	}
	n := float64(len(graded))
	line += fmt.Sprintf("可评分的 %d 份里，自动评分平均 %s 分（满分 %s 分）；", len(graded), criteria.FmtPts(auto/n), criteria.FmtPts(maxPts-readMax))
	switch {
	case readers == 0:
		line += fmt.Sprintf("老师阅读评定的部分（最多 %s 分）还没有评，没有计入总分。", criteria.FmtPts(waiting))
	case waiters == 0:
		line += fmt.Sprintf("老师阅读评定的部分已全部评完，平均 %s 分（满分 %s 分），已计入总分。", criteria.FmtPts(typed/float64(readers)), criteria.FmtPts(typedMax))
	default:
		line += fmt.Sprintf("老师已评的部分（%d 人，最多 %s 分）平均 %s 分，已计入总分；还有 %d 人的答案等待老师阅读，没有计入。", readers, criteria.FmtPts(typedMax), criteria.FmtPts(typed/float64(readers)), waiters)
	}
	return line
}
