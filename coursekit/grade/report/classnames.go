package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/review"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// missingLearners is every roster learner with no submission.
func missingLearners(b *batch.Batch) []roster.Learner {
	var out []roster.Learner
	for _, l := range b.Roster.Learners {
		if _, ok := b.Chosen[l.ID]; !ok {
			out = append(out, l)
		}
	}
	return out
}

// who is a learner as the report names them: id, and name when known.
func who(l roster.Learner) string {
	if l.Name == "" {
		return l.ID
	}
	return l.ID + "（" + l.Name + "）"
}

// unknownFile is a submission whose learner is unknown, under the name
// its feedback and results were written as (unknown-N).
type unknownFile struct {
	as string
	s  *grader.Submission
}

func unknownFiles(b *batch.Batch) []unknownFile {
	var out []unknownFile
	for i, s := range b.Subs {
		if s.Learner == "" {
			out = append(out, unknownFile{b.Names[i], s})
		}
	}
	return out
}

// reasonLine is an ungradable file's reason, in Chinese.
func reasonLine(s *grader.Submission) string {
	return ZhName(ReasonZh, s.ReasonCode)
}

// overrideZh says, for the instructor, that the total of s (a file that
// could not be graded) is the instructor's decision, and where it is.
func overrideZh(s *grader.Submission) string {
	return fmt.Sprintf("老师覆盖总分：%s/%s 分（%s）", criteria.FmtPts(s.Override.Points), criteria.FmtPts(s.Override.Max), s.Override.From)
}

// learnerTable is the class report's per-learner table: one row per
// roster learner (and learner graded by a signed record who is not on the
// roster), then one per file with no known learner. Columns: id, name,
// score, status, findings.
func learnerTable(b *batch.Batch) (head []string, rows [][]string) {
	head = []string{"学习者", "姓名", "得分", "状态", "发现的问题"}
	for _, l := range b.Learners() {
		s, ok := b.Chosen[l.ID]
		var score, status string
		var finds []string
		switch {
		case !ok:
			status = "没有提交"
		case !s.Gradable && s.Override != nil:
			// The instructor decided the total (overrides.csv): what
			// grades.csv holds.
			score = criteria.FmtPts(CountedTotal(s)) + "/" + criteria.FmtPts(s.Override.Max)
			status = "无法评分：" + reasonLine(s) + "；" + overrideZh(s)
		case !s.Gradable:
			score = "0"
			status = "无法评分：" + reasonLine(s) + "（计 0 分）"
		default:
			score = criteria.FmtPts(s.Total) + "/" + criteria.FmtPts(s.Max)
			status = "已评分"
			if s.Pending > 0 {
				status += fmt.Sprintf("，另有 %s 分等待老师阅读", criteria.FmtPts(s.Pending))
			}
			if x, ok := s.Score(criteria.OwnVariantID); ok && x.Detail != "" && !x.Pending && x.Points < x.Max {
				finds = append(finds, "疑似抄袭（数字与别人的 trace 吻合）")
			}
			for _, m := range s.Mistakes {
				finds = append(finds, mistakeTitle(m))
			}
		}
		if ok {
			for _, f := range s.Integrity {
				if n := ZhName(FindingZh, f.Code); !slices.Contains(finds, n) {
					finds = append(finds, n)
				}
			}
		}
		if !b.Roster.Has(l.ID) {
			status += "（不在名单上：名单可能过期）"
		}
		for _, o := range b.NamedAfter(l.ID) {
			_, how := o.NameSaysHow()
			status += fmt.Sprintf("（%s %s，但签名的发放记录是 %s 的：按 %[3]s 的作业评分）", o.Name, how, o.Learner)
		}
		if ok && s.RecordHeld != "" {
			status += fmt.Sprintf("（%s 从 LMS 账号 %s（%s）交上来，签名的发放记录是 %s 的：核对名单的 lms_id 之前暂不评分）", s.Name, s.LMSNumber(), s.LMSPerson(), s.RecordHeld)
		}
		rows = append(rows, []string{l.ID, l.Name, score, status, strings.Join(finds, "、")})
	}
	for _, u := range unknownFiles(b) {
		rows = append(rows, []string{u.as, "", "", "无法评分：" + reasonLine(u.s) + "；文件 " + u.s.Name, ""})
	}
	return head, rows
}

// sameAnswerNotes is the manual-review.csv note for each (learner,
// criterion) whose answer another learner also handed in: the reader sees
// it next to the answer.
func sameAnswerNotes(b *batch.Batch) map[[2]string]string {
	notes := map[[2]string]string{}
	for _, x := range b.Same {
		for _, id := range x.Learners {
			others := slices.DeleteFunc(slices.Clone(x.Learners), func(o string) bool { return o == id })
			names := strings.Join(others, "、") + " "
			if len(others) > batch.MaxNamedOthers {
				names = fmt.Sprintf("%s 等 %d 人", strings.Join(others[:batch.MaxNamedOthers], "、"), len(others))
			}
			notes[[2]string{id, x.Criterion}] = review.GradeNoteMark + "与 " + names + "的答案相同（不计空白）：请核对是否抄袭，分数没有改动"
		}
	}
	return notes
}
