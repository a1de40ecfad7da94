package grader

import (
	"cmp"
	"fmt"

	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
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
// (package batch): the file is then nobody's, and says which account.
func NotOwn(s *Submission, owner, submitter, how string) *Submission {
	if submitter == "" {
		s.Fail(notebook.NewUngradable(ReasonNotOwn, "这份笔记本的发放记录是发给 %s 的，却是从另一个 LMS 账号（%s）交上来的：它不是这个账号的学习者自己的作业，没有计分。请老师核对是谁交的。", owner, s.lmsNum))
	} else {
		s.Fail(notebook.NewUngradable(ReasonNotOwn, "这份笔记本的发放记录是发给 %s 的，却作为你（%s）的作业交了上来：它不是你自己的作业，没有计分，这份不算你交了自己的作业。请老师核对。", owner, submitter))
	}
	s.Learner, s.RecordOf = submitter, owner
	s.Manual, s.Mistakes, s.Integrity = nil, nil, nil
	s.Integrity = append(s.Integrity, integrity.Finding{Code: FindRecordCopied, Warn: true,
		Message: fmt.Sprintf("同一份发放记录（%s 的）由两个人交了上来：这是抄袭线索，老师会核对。", owner),
		Detail:  fmt.Sprintf("release record of %s handed in by %s (%s)", owner, cmp.Or(submitter, "an unknown learner"), how)})
	return s
}
