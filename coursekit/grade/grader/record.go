package grader

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// The release record decides whose work a notebook is. A notebook whose
// signed record names one learner, handed in as another learner's (an LMS
// account, a Gradescope account), is not the submitter's own work: the
// submitter's row says "no own submission" (ReasonNotOwn) with a copy
// finding, and the record's owner keeps their own file and gets the copy
// finding too. The batch and Gradescope apply the same rule, so the same
// file gets the same score on both.
//
// A folder or file name (s010/, s010.ipynb) is weaker evidence: the
// instructor or a download may have named it. Such a file is graded as the
// record's learner's work (Submission.NameSays keeps the name), and the
// batch calls it a copy only when the record also came in as a file of its
// own learner's or under a second name; a record that came in once, under
// another learner's name (two files swapped, one misplaced), is graded as
// its learner's with an instructor-only FindNameNotRecord and a warning.
const (
	ReasonNotOwn = "not_own_submission" // the signed record is another learner's
	// ReasonRosterHeld: another learner's signed record, from an LMS
	// account whose LMS name contradicts the roster's lms_id: held, not
	// graded and not judged, until the roster is checked (package batch).
	ReasonRosterHeld = "held_roster_mismatch"
	// FindRecordCopied: one release record handed in by two accounts.
	FindRecordCopied = "record_handed_in_twice"
	// FindRosterMismatch: the roster's lms_id says the account is another
	// learner's than its LMS name and the signed record both say; graded
	// as the record's learner's (an instructor-only finding).
	FindRosterMismatch = "roster_lms_id_mismatch"
	// FindNameNotRecord: the file or folder name says another learner
	// than the signed record, which came in only this once: graded as the
	// record's learner's, not a copy (an instructor-only finding).
	FindNameNotRecord = "file_name_not_record"
)

// NotOwnReason is what the learner is told of a file whose signed release
// record is not theirs: a fact about their own file, naming nobody.
const NotOwnReason = "这份笔记本不计入你的成绩：里面的发放记录不是发给你的那一份，老师会核对。请交上你自己的笔记本；如有疑问，请联系老师。"

// NotOwn turns s into the submitter's "no own submission": ungradable,
// with the copy finding. how names who said it is the submitter's ("LMS
// lms_id 1002", "account s010", "folder s010/", "file name s010.ipynb").
// submitter is "" for an LMS account no learner can be told to hold
// (package batch): the file is then nobody's, and says which account.
func NotOwn(s *Submission, owner, submitter, how string) *Submission {
	// The learner is told only that this file is not the one released to
	// them: who it was released to, and what that may mean, is for the
	// instructor (ReasonDetail, the Private finding).
	s.Fail(notebook.NewUngradable(ReasonNotOwn, "%s", NotOwnReason))
	if submitter == "" {
		s.ReasonDetail = fmt.Sprintf("这份笔记本的发放记录是发给 %s 的，却是从另一个 LMS 账号（%s）交上来的：它不是这个账号的学习者自己的作业，没有计分。请核对是谁交的。", owner, s.lmsNum)
	} else {
		s.ReasonDetail = fmt.Sprintf("这份笔记本的发放记录是发给 %s 的，却作为 %s 的作业交了上来：它不是 %[2]s 自己的作业，没有计分。请核对。", owner, submitter)
	}
	s.Learner, s.RecordOf = submitter, owner
	s.Manual, s.Mistakes, s.Integrity = nil, nil, nil
	s.Integrity = append(s.Integrity, integrity.Finding{Code: FindRecordCopied, Warn: true, Private: true,
		Message: fmt.Sprintf("同一份发放记录（%s 的）由两个人交了上来：这是抄袭线索，请核对。", owner),
		Detail:  fmt.Sprintf("release record of %s handed in by %s (%s)", owner, cmp.Or(submitter, "an unknown learner"), how)})
	return s
}

// RosterHeldZh is what the learner is told of a file held for a roster
// check (ReasonRosterHeld): a fact about their own file, naming nobody.
const RosterHeldZh = "这份笔记本暂不计分：提交记录与名单对不上，老师核对名单后会重新评分。如有疑问，请联系老师。"

// HoldForRoster turns s, owner's signed record handed in from an LMS
// account whose LMS name is holder's while the roster's lms_id says the
// account is owner's (package batch: the roster is contradicted), into
// holder's held file: not graded, and not judged a copy or "not own",
// until the instructor checks the roster (ReasonRosterHeld). holder is ""
// when the LMS name is no roster learner's. why says, for the
// instructor, what the LMS names and the roster say.
func HoldForRoster(s *Submission, owner, holder, why string) *Submission {
	s.Fail(notebook.NewUngradable(ReasonRosterHeld, "%s", RosterHeldZh))
	s.ReasonDetail = fmt.Sprintf("这份笔记本是 %s 的发放记录，从 LMS 账号 %s（%s）交上来；%s。名单和 LMS 名字对不上，暂不认定谁交了谁的作业：请核对名单的 lms_id 后重新评分。", owner, s.lmsNum, s.lmsWho, why)
	s.Learner, s.RecordHeld = holder, owner
	s.Manual, s.Mistakes, s.Integrity = nil, nil, nil
	s.Integrity = append(s.Integrity, integrity.Finding{Code: FindRosterMismatch, Private: true, Message: s.ReasonDetail,
		Detail: fmt.Sprintf("%s's signed record from LMS account %s (%q), held in %s's row until the roster's lms_id is checked: %s", owner, s.lmsNum, s.lmsWho, cmp.Or(holder, "no learner"), why)})
	return s
}

// MarkRosterContested says s, its record's learner's own upload by its
// LMS name, is from an account the roster's lms_id gives another learner
// while another account handing in the same record is the learner's by
// the roster (package batch): its private roster-mismatch finding says
// so (why), and the learner's feedback names it neutrally (ShownName).
func MarkRosterContested(s *Submission, why string) {
	s.contested = true
	s.Integrity = slices.DeleteFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == FindRosterMismatch })
	s.Integrity = append(s.Integrity, integrity.Finding{Code: FindRosterMismatch, Private: true,
		Message: fmt.Sprintf("名单可能有误：这份笔记本从 LMS 账号 %s（%s）交上来，账号的名字和签名的发放记录都是 %s 的；%s。按 %[3]s 的作业评分，暂不认定谁交了谁的作业：请核对名单的 lms_id 后重新评分。", s.lmsNum, s.lmsWho, s.Learner, why),
		Detail:  fmt.Sprintf("from LMS account %s (%q), whose LMS name and signed record are %s's: counted as %[3]s's; the roster is contradicted: %s", s.lmsNum, s.lmsWho, s.Learner, why)})
}

// RosterContested reports whether MarkRosterContested marked s.
func (s *Submission) RosterContested() bool { return s.contested }
