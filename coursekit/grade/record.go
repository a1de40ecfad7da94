package grade

import (
	"cmp"
	"fmt"
)

// The release record decides whose work a notebook is. A notebook whose
// signed record names one learner, handed in as another learner's (an LMS
// account, a Gradescope account, a folder or file name such as s010/ or
// s010.ipynb), is not the submitter's own work: the submitter's row says
// "no own submission" (ReasonNotOwn) with a copy finding, and the record's
// owner keeps their own file and gets the copy finding too. The batch and
// Gradescope apply the same rule, so the same file gets the same score on
// both.
const (
	ReasonNotOwn = "not_own_submission" // the signed record is another learner's
	// FindRecordCopied: one release record handed in by two accounts.
	FindRecordCopied = "record_handed_in_twice"
)

// NotOwn turns s into the submitter's "no own submission": ungradable,
// with the copy finding. how names who said it is the submitter's ("LMS
// lms_id 1002", "account s010", "folder s010/", "file name s010.ipynb").
// submitter is "" for an LMS account no learner can be told to hold
// (markLMSAccounts): the file is then nobody's, and says which account.
func NotOwn(s *Submission, owner, submitter, how string) *Submission {
	if submitter == "" {
		s.Fail(NewUngradable(ReasonNotOwn, "这份笔记本的发放记录是发给 %s 的，却是从另一个 LMS 账号（%s）交上来的：它不是这个账号的学习者自己的作业，没有计分。请老师核对是谁交的。", owner, s.lmsNum))
	} else {
		s.Fail(NewUngradable(ReasonNotOwn, "这份笔记本的发放记录是发给 %s 的，却作为你（%s）的作业交了上来：它不是你自己的作业，没有计分，这份不算你交了自己的作业。请老师核对。", owner, submitter))
	}
	s.Learner, s.RecordOf = submitter, owner
	s.Manual, s.Mistakes, s.Integrity = nil, nil, nil
	s.Integrity = append(s.Integrity, Finding{Code: FindRecordCopied, Warn: true,
		Message: fmt.Sprintf("同一份发放记录（%s 的）由两个人交了上来：这是抄袭线索，老师会核对。", owner),
		Detail:  fmt.Sprintf("release record of %s handed in by %s (%s)", owner, cmp.Or(submitter, "an unknown learner"), how)})
	return s
}

// markCopiedRecords gives the record's owner the copy finding for each of
// their records handed in as someone else's, and the submitter's counted
// file too when they handed in one of their own (a batch warning either
// way).
func (b *Batch) markCopiedRecords() {
	for _, s := range b.Subs {
		if s.RecordOf == "" {
			continue
		}
		if s.Learner == "" { // an LMS account of nobody known (markLMSAccounts)
			b.Warnings = append(b.Warnings, Warnf("LMS 账号 %s（%s）交上来的 %s 是 %s 的笔记本（发放记录是 %[4]s 的）：没有 lms_id 列，认不出这个账号是谁的；这份不计入 %[4]s 的成绩，%[4]s 保留自己账号交的那一份；两份都有抄袭线索",
				"LMS account %s (%s) handed in %s, which is %s's notebook (the signed release record is %[4]s's): without an lms_id column, whose account it is cannot be told; it does not count for %[4]s, who keeps the file from their own account; a copy finding for both", s.LMSNumber(), s.LMSPerson(), s.Name, s.RecordOf))
		} else if mine, ok := b.Chosen[s.Learner]; ok && mine != s {
			b.Warnings = append(b.Warnings, Warnf("%s 交上来的 %s 是 %s 的笔记本（发放记录是 %[3]s 的），不算 %[1]s 的作业；计分的是 %[1]s 自己的 %[4]s；两人都有抄袭线索",
				"%s handed in %s, which is %s's notebook (the signed release record is %[3]s's): it does not count as %[1]s's; %[1]s's own %[4]s counts; a copy finding for both", s.Learner, s.Name, s.RecordOf, mine.Name))
			mine.Integrity = append(mine.Integrity, Finding{Code: FindRecordCopied, Warn: true,
				Message: fmt.Sprintf("你还交了 %s 的笔记本（%s）：那一份不算你的作业，这是抄袭线索，老师会核对。", s.RecordOf, s.Name),
				Detail:  fmt.Sprintf("also handed in %s's release record (%s)", s.RecordOf, s.Name)})
		} else {
			b.Warnings = append(b.Warnings, Warnf("%s 交上来的是 %s 的笔记本（发放记录是 %[2]s 的）：%[1]s 没有自己的提交，%[2]s 保留自己的那一份；两人都有抄袭线索",
				"%s handed in %s's notebook (the signed release record is %[2]s's): %[1]s has no own submission, %[2]s keeps their own file; a copy finding for both", s.Learner, s.RecordOf))
		}
		own, ok := b.Chosen[s.RecordOf]
		if !ok {
			continue
		}
		msg := fmt.Sprintf("你的发放记录（你的笔记本）也作为 %s 的作业交了上来：这是抄袭线索，老师会核对。", s.Learner)
		if s.Learner == "" {
			msg = fmt.Sprintf("你的发放记录（你的笔记本）也从另一个 LMS 账号（%s）交了上来，那一份没有计分：这是抄袭线索，老师会核对。", s.LMSNumber())
		}
		own.Integrity = append(own.Integrity, Finding{Code: FindRecordCopied, Warn: true, Message: msg,
			Detail: fmt.Sprintf("release record of %s also handed in by %s (%s)", s.RecordOf, cmp.Or(s.Learner, "LMS account "+s.LMSNumber()), s.Name)})
	}
}
