package feedback

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// Learner feedback, in Simplified Chinese, as Markdown and as HTML. Every
// string that came from a submission (file name, cell ids, hints echoing
// the card, free text) is escaped in both: Markdown is often rendered to
// HTML by an LMS. Hidden criteria show their message and score, never an
// expected value, and instructor-only details never appear.

// HowGraded tells the learner what was graded: the card cell's code,
// parsed and never run, against their own trace.
const HowGraded = "评分程序没有运行你的代码：它只解析口径卡单元格里的代码，把其中的口径卡当作你提交的口径卡，用发给你的那一份 trace 重新计算每一项；自检单元格的输出只用来确认自检运行过。自检里的“通过”只是提示，以这里为准。"

// MDEscape makes s inert in Markdown (and in the HTML it renders to):
// markup characters become entities or backslash escapes, and a newline
// becomes a space so a table row stays one row.
func MDEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '\\', '`', '*', '_', '[', ']', '|', '#', '!', '~':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CodeSpan keeps s literal inside backticks, where Markdown does not
// process escapes: backticks and line breaks are the only dangers.
func CodeSpan(s string) string {
	return strings.NewReplacer("`", "'", "\n", " ", "\r", " ", "|", "/").Replace(s)
}

func statusMark(x criteria.Score) string {
	switch {
	case x.Pending:
		return "? 待阅读"
	case zeroWeightRead(x):
		return "— 不计分"
	case x.Status == card.Pass:
		return "✓ 通过"
	case x.Points > 0:
		return "◐ 部分得分"
	}
	return "✗ 未通过"
}

func kindTitle(kind string) string {
	switch kind {
	case criteria.KindHidden:
		return "隐藏检查（只显示结果、得分和提示，不显示期望值）"
	case criteria.KindManual:
		return "文字题（由老师阅读评分）"
	case criteria.KindExecution:
		return "重新运行（课程镜像，无网络，锁定单元格先恢复）"
	}
	return "公开检查"
}

// OverrideLine is what a learner reads of the instructor's decision on
// the total of their file that could not be graded.
func OverrideLine(s *grader.Submission) string {
	o := s.Override
	return fmt.Sprintf("%s这份作业计 %s/%s 分。理由：%s", grader.OverrideZh, criteria.FmtPts(o.Points), criteria.FmtPts(o.Max), o.Reason)
}

// withoutResubmit is the reason a file could not be graded without what
// asks the learner to fix it and hand it in again: a sentence ("请…再提交。")
// or a sentence's tail after "：" or "；" ("（文件不完整）：请重新保存笔记本后
// 再提交。" keeps "（文件不完整）。"). Shown when the instructor decided the
// total, which stands.
func withoutResubmit(reason string) string {
	var b strings.Builder
	for _, sent := range strings.SplitAfter(reason, "。") {
		body, dot := strings.CutSuffix(sent, "。")
		start := 0
		for i := 0; i <= len(body); {
			j := strings.IndexAny(body[i:], "：；")
			end := len(body)
			if j >= 0 {
				end = i + j
			}
			if resubmitRequest(body[i:end]) {
				body = body[:start]
				break
			}
			if j < 0 {
				break
			}
			start = end
			i = end + len("：") // "：" and "；" are both 3 bytes
		}
		if body = strings.TrimSpace(body); body != "" {
			b.WriteString(body)
			if dot {
				b.WriteString("。")
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// resubmitRequest reports whether clause asks the learner to fix their
// file and hand it in again (not "请老师…" or "请联系老师").
func resubmitRequest(clause string) bool {
	c := strings.TrimSpace(clause)
	if strings.HasPrefix(c, "请") && !strings.HasPrefix(c, "请老师") && !strings.HasPrefix(c, "请联系老师") {
		return true
	}
	for _, w := range []string{"再提交", "重新提交", "重新运行", "重新保存", "重新打包", "重新下载"} {
		if strings.Contains(c, w) {
			return true
		}
	}
	return false
}

// CommentLabel introduces the instructor's comment on an answer
// (manual-review.csv's comment column).
const CommentLabel = "老师的评语："

// LearnerManual is s's free-text answers as the learner sees them: their
// own answers, not the instructor's review items (the own-variant check
// held for review carries a note for the instructor, naming learners).
func LearnerManual(s *grader.Submission) []grader.ManualItem {
	var out []grader.ManualItem
	for _, m := range s.Manual {
		if criteria.ManualIDs[m.ID] {
			out = append(out, m)
		}
	}
	return out
}

// feedback is what a learner's feedback says, decided once; FeedbackMarkdown
// and FeedbackHTML only lay it out, so the two can never disagree.
type feedback struct {
	facts     []string // "label:value" lines about the submission (unescaped)
	gradable  bool
	reason    string
	status    string
	sections  []feedbackSection
	manual    []grader.ManualItem
	integrity []feedbackNote
	// notCounted is said first when another file of the same learner
	// is the one in grades.csv.
	notCounted string
}

type feedbackSection struct {
	title string
	rows  []feedbackRow
}

type feedbackRow struct {
	mark, class, title, id, points, message string
}

type feedbackNote struct{ class, mark, text string }

const cleanIntegrity = "✓ 锁定的单元格没有改动，输出与口径卡一致。"

func newFeedback(s *grader.Submission) feedback {
	f := feedback{gradable: s.Gradable, reason: s.Reason, status: s.StatusLine, manual: LearnerManual(s)}
	if s.SupersededBy != "" {
		f.notCounted = "这份文件没有计入成绩：你交了不止一份，计入成绩的是 " + cmp.Or(s.SupersededShown, s.SupersededBy) + "。下面的结果只供参考。"
	}
	if s.Learner != "" {
		f.facts = append(f.facts, "学习者："+s.Learner)
	}
	f.facts = append(f.facts, "提交的文件："+s.ShownFile()) // never a name that is another learner's
	if s.NBFormat != "" {
		f.facts = append(f.facts, "笔记本格式：nbformat "+s.NBFormat)
	}
	for _, kind := range []string{criteria.KindPublic, criteria.KindHidden, criteria.KindManual, criteria.KindExecution} {
		sec := feedbackSection{title: kindTitle(kind)}
		for _, x := range s.Scores {
			if x.Kind != kind {
				continue
			}
			pts := criteria.FmtPts(x.Points) + "/" + criteria.FmtPts(x.Max)
			if x.Pending {
				pts = "待评/" + criteria.FmtPts(x.Max)
			}
			sec.rows = append(sec.rows, feedbackRow{mark: statusMark(x), class: statusClass(x), title: x.Title, id: x.ID, points: pts, message: x.Message})
		}
		if len(sec.rows) > 0 || kind != criteria.KindExecution { // the execution row exists only after --execute
			f.sections = append(f.sections, sec)
		}
	}
	for _, n := range integrity.LearnerFacing(s.Integrity) {
		note := feedbackNote{class: "pending", mark: "注意", text: n.Message}
		if n.Warn {
			note.class, note.mark = "fail", "⚠ 问题"
		}
		f.integrity = append(f.integrity, note)
	}
	return f
}

// FeedbackMarkdown is the learner's feedback as Markdown.
func FeedbackMarkdown(s *grader.Submission) string {
	f, e := newFeedback(s), func(v string) string { return MDEscape(safetext.Term(v)) }
	var b strings.Builder
	b.WriteString("# 第 01 单元指标口径卡 · 评分反馈\n\n")
	if f.notCounted != "" {
		fmt.Fprintf(&b, "**%s**\n\n", e(f.notCounted))
	}
	for _, fact := range f.facts {
		fmt.Fprintf(&b, "- %s\n", e(fact))
	}
	b.WriteString("\n")
	if !f.gradable {
		switch {
		case s.Override != nil:
			// The instructor decided the total: nothing to resubmit.
			fmt.Fprintf(&b, "## 无法评分\n\n%s\n\n**%s**\n", e(withoutResubmit(f.reason)), e(OverrideLine(s)))
		case s.ReasonCode == grader.ReasonRosterHeld || s.ReasonCode == grader.ReasonNotOwn:
			// Nothing for the learner to correct: the instructor checks the
			// roster, or the learner hands in their own notebook (the reason says so).
			fmt.Fprintf(&b, "## 无法评分\n\n%s\n", e(f.reason))
		default:
			fmt.Fprintf(&b, "## 无法评分\n\n%s\n\n", e(f.reason))
			b.WriteString("请改正后重新提交；如有疑问请联系老师。\n")
		}
		return b.String()
	}
	fmt.Fprintf(&b, "**%s**\n\n%s\n", e(f.status), HowGraded)
	for _, sec := range f.sections {
		fmt.Fprintf(&b, "\n## %s\n\n| 结果 | 检查项 | 得分 | 提示 |\n|---|---|---|---|\n", sec.title)
		for _, r := range sec.rows {
			fmt.Fprintf(&b, "| %s | %s `%s` | %s | %s |\n", r.mark, e(r.title), CodeSpan(r.id), r.points, e(r.message))
		}
	}
	if len(f.manual) > 0 {
		b.WriteString("\n### 你的文字答案（老师会阅读）\n\n")
		for _, m := range f.manual {
			fmt.Fprintf(&b, "- **%s**：%s\n", e(m.Title), e(m.Text))
			if m.Comment != "" {
				fmt.Fprintf(&b, "  - %s%s\n", CommentLabel, e(m.Comment))
			}
		}
	}
	b.WriteString("\n## 完整性\n\n")
	if len(f.integrity) == 0 {
		b.WriteString("- " + cleanIntegrity + "\n")
	}
	for _, n := range f.integrity {
		fmt.Fprintf(&b, "- %s：%s\n", n.mark, e(n.text))
	}
	return b.String()
}

const pageStyle = `body{font-family:system-ui,"PingFang SC","Noto Sans CJK SC",sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.3rem .5rem;text-align:left;vertical-align:top}
.pass{color:#080}.fail{color:#b00}.partial{color:#a60}.pending{color:#666}code{font-size:smaller;color:#666}
.bar{background:#4a7fb5;height:1em;display:inline-block;vertical-align:middle}blockquote{border-left:3px solid #ccc;margin:0;padding-left:1rem;white-space:pre-wrap}`

// HTMLPage is a standalone page in the grading outputs' one style; body
// must already be escaped.
func HTMLPage(title, body string) string {
	return "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>" + safetext.HTML(title) +
		"</title><style>" + pageStyle + "</style></head><body>\n" + body + "\n</body></html>\n"
}

// zeroWeightRead reports whether x is an answer a person scored while its
// weight is 0: neither a pass nor a fail, it does not count.
func zeroWeightRead(x criteria.Score) bool {
	return x.Kind == criteria.KindManual && !x.Pending && x.Max == 0
}

func statusClass(x criteria.Score) string {
	switch {
	case x.Pending, zeroWeightRead(x):
		return "pending"
	case x.Status == card.Pass:
		return "pass"
	case x.Points > 0:
		return "partial"
	}
	return "fail"
}

// FeedbackHTML is the learner's feedback as a standalone HTML page.
func FeedbackHTML(s *grader.Submission) string {
	// Control codes from file names and answers are shown escaped, never raw: an instructor
	// may cat the file in a terminal.
	f, e := newFeedback(s), safetext.HTML
	var b strings.Builder
	b.WriteString("<h1>第 01 单元指标口径卡 · 评分反馈</h1>\n")
	if f.notCounted != "" {
		fmt.Fprintf(&b, "<p class=\"fail\"><strong>%s</strong></p>\n", e(f.notCounted))
	}
	b.WriteString("<ul>")
	for _, fact := range f.facts {
		fmt.Fprintf(&b, "<li>%s</li>", e(fact))
	}
	b.WriteString("</ul>\n")
	if !f.gradable {
		switch {
		case s.Override != nil:
			// The instructor decided the total: nothing to resubmit.
			fmt.Fprintf(&b, "<h2 class=\"fail\">无法评分</h2>\n<p>%s</p>\n<p><strong>%s</strong></p>", e(withoutResubmit(f.reason)), e(OverrideLine(s)))
		case s.ReasonCode == grader.ReasonRosterHeld || s.ReasonCode == grader.ReasonNotOwn:
			// As in FeedbackMarkdown: nothing to correct and resubmit.
			fmt.Fprintf(&b, "<h2 class=\"fail\">无法评分</h2>\n<p>%s</p>\n", e(f.reason))
		default:
			fmt.Fprintf(&b, "<h2 class=\"fail\">无法评分</h2>\n<p>%s</p>\n", e(f.reason))
			b.WriteString("<p>请改正后重新提交；如有疑问请联系老师。</p>")
		}
		return HTMLPage("评分反馈", b.String())
	}
	fmt.Fprintf(&b, "<p><strong>%s</strong></p>\n<p>%s</p>\n", e(f.status), e(HowGraded))
	for _, sec := range f.sections {
		fmt.Fprintf(&b, "<h2>%s</h2>\n<table><thead><tr><th>结果</th><th>检查项</th><th>得分</th><th>提示</th></tr></thead><tbody>\n", e(sec.title))
		for _, r := range sec.rows {
			fmt.Fprintf(&b, "<tr class=\"%s\"><td>%s</td><td>%s<br><code>%s</code></td><td>%s</td><td>%s</td></tr>\n",
				r.class, e(r.mark), e(r.title), e(r.id), e(r.points), e(r.message))
		}
		b.WriteString("</tbody></table>\n")
	}
	if len(f.manual) > 0 {
		b.WriteString("<h3>你的文字答案（老师会阅读）</h3>\n")
		for _, m := range f.manual {
			fmt.Fprintf(&b, "<p><strong>%s</strong></p><blockquote>%s</blockquote>\n", e(m.Title), e(m.Text))
			if m.Comment != "" {
				fmt.Fprintf(&b, "<p class=\"comment\">%s%s</p>\n", e(CommentLabel), e(m.Comment))
			}
		}
	}
	b.WriteString("<h2>完整性</h2>\n<ul>")
	if len(f.integrity) == 0 {
		b.WriteString("<li class=\"pass\">" + cleanIntegrity + "</li>")
	}
	for _, n := range f.integrity {
		fmt.Fprintf(&b, "<li class=\"%s\">%s：%s</li>", n.class, n.mark, e(n.text))
	}
	b.WriteString("</ul>")
	return HTMLPage("评分反馈", b.String())
}
