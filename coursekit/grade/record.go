package grade

import "fmt"

// The release record decides whose work a notebook is. A notebook whose
// signed record names one learner, handed in by another learner's account
// (an LMS name, a Gradescope account), is not the submitter's own work:
// the submitter's row says "no own submission" (ReasonNotOwn) with a copy
// finding, and the record's owner keeps their own file and gets the copy
// finding too. The batch and Gradescope apply the same rule, so the same
// file gets the same score on both.
const (
	ReasonNotOwn = "not_own_submission" // the signed record is another learner's
	// FindRecordCopied: one release record handed in by two accounts.
	FindRecordCopied = "record_handed_in_twice"
)

// notOwn turns s, graded for the record's owner, into the submitter's "no
// own submission": ungradable, with the copy finding. how names the
// account ("LMS lms_id 1002", "Gradescope sid").
func notOwn(s *Submission, owner, submitter, how string) *Submission {
	s.fail(ungradable(ReasonNotOwn, "这份笔记本的发放记录是发给 %s 的，却由你的账号（%s）提交：它不是你自己的作业，没有计分，你这次算作没有交自己的作业。请老师核对。", owner, submitter))
	s.Learner, s.RecordOf = submitter, owner
	s.Manual, s.Mistakes, s.Integrity = nil, nil, nil
	s.Integrity = append(s.Integrity, Finding{Code: FindRecordCopied, Warn: true,
		Message: fmt.Sprintf("同一份发放记录（%s 的）由两个账号交了上来：这是抄袭线索，老师会核对。", owner),
		Detail:  fmt.Sprintf("release record of %s handed in by %s (%s)", owner, submitter, how)})
	return s
}

// markCopiedRecords gives the record's owner the copy finding for each of
// their records handed in by someone else's account (a batch warning too).
func (b *Batch) markCopiedRecords() {
	for _, s := range b.Subs {
		if s.RecordOf == "" {
			continue
		}
		b.Warnings = append(b.Warnings, warnf("%s 的账号交上来的是 %s 的笔记本（发放记录是 %[2]s 的）：%[1]s 没有自己的提交，%[2]s 保留自己的那一份；两人都有抄袭线索",
			"%s handed in %s's notebook (the signed release record is %[2]s's): %[1]s has no own submission, %[2]s keeps their own file; a copy finding for both", s.Learner, s.RecordOf))
		own, ok := b.chosen[s.RecordOf]
		if !ok {
			continue
		}
		own.Integrity = append(own.Integrity, Finding{Code: FindRecordCopied, Warn: true,
			Message: fmt.Sprintf("你的发放记录（你的笔记本）也由 %s 的账号交了上来：这是抄袭线索，老师会核对。", s.Learner),
			Detail:  fmt.Sprintf("release record of %s also handed in by %s (%s)", s.RecordOf, s.Learner, s.Name)})
	}
}
