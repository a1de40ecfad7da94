package batch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// Without an lms_id column, an LMS download still says which account
// handed each file in: the number (and the person's name) in its Canvas
// file name or Moodle folder. When one learner's signed record comes from
// two or more accounts, someone handed in another learner's notebook, and
// markLMSAccounts applies the record-decides rule (grader.NotOwn) as far as
// the download tells whose account is whose:
//
//  1. The record's learner's own account is the one the roster's lms_id
//     gives them; else the one account whose LMS name is theirs (the
//     roster's name in either order, Canvas writes "lastfirst", or their
//     id or email's local part); else the one account that handed in
//     nothing but their records, when every other one also handed in
//     another learner's.
//  2. A file from another account never counts for them: it is the "no
//     own submission" of that account's learner when the account can be
//     told to be one learner's (the one other learner whose record it also
//     handed in, else the one whose name it carries), else a file of
//     nobody's with its own row. Both get the copy finding
//     (markCopiedRecords).
//  3. When no account can be told to be theirs, every file of the record
//     gets the copy finding, the duplicate rule picks the file that
//     counts, and a warning names the accounts: the instructor adds lms_id
//     to the roster and grades again.
func (b *Batch) markLMSAccounts() {
	byLearner := map[string][]*grader.Submission{}
	carries := map[string][]string{} // account → the learners whose records it handed in
	for _, s := range b.Subs {
		if s.LMSNumber() == "" || s.Record() != grader.RecordVerified || s.RecordOf != "" || s.Learner == "" {
			continue
		}
		byLearner[s.Learner] = append(byLearner[s.Learner], s)
		if !slices.Contains(carries[s.LMSNumber()], s.Learner) {
			carries[s.LMSNumber()] = append(carries[s.LMSNumber()], s.Learner)
		}
	}
	for _, l := range b.Learners() {
		subs := byLearner[l.ID]
		var accts []string
		who := map[string]string{} // account → the person's name in its LMS name
		for _, s := range subs {
			if !slices.Contains(accts, s.LMSNumber()) {
				accts = append(accts, s.LMSNumber())
				who[s.LMSNumber()] = s.LMSPerson()
			}
		}
		if len(accts) < 2 {
			continue
		}
		own := ownAccount(l, accts, who, carries)
		if own == "" {
			var listEn, listZh []string
			for _, a := range accts {
				listEn = append(listEn, fmt.Sprintf("%s (%s)", a, who[a]))
				listZh = append(listZh, fmt.Sprintf("%s（%s）", a, who[a]))
			}
			for _, s := range subs {
				s.Integrity = append(s.Integrity, integrity.Finding{Code: grader.FindRecordCopied, Warn: true, Private: true,
					Message: fmt.Sprintf("这位学习者的发放记录由 %d 个 LMS 账号（%s）交了上来，评分程序分不清哪个账号是本人的：这是抄袭线索，请核对。", len(accts), strings.Join(accts, "、")),
					Detail:  fmt.Sprintf("release record of %s handed in by LMS accounts %s; %s came from %s", l.ID, strings.Join(listEn, ", "), s.Name, s.LMSNumber())})
			}
			b.Warnings = append(b.Warnings, grader.Warnf("%s 的发放记录由 %d 个 LMS 账号交了上来：%s。名单没有 lms_id 列，认不出哪个账号是 %[1]s 的，按重复提交的规则计分的那一份可能是别人交的副本：请在名单里加上 lms_id 列后重新评分",
				"%s's release record was handed in by %d LMS accounts: %[4]s. The roster has no lms_id for them, so grade cannot tell which account is %[1]s's, and the file the duplicate rule counts may be someone else's copy: add an lms_id column to the roster and grade again",
				l.ID, len(accts), strings.Join(listZh, "、"), strings.Join(listEn, ", ")))
			continue
		}
		for _, s := range subs {
			if s.LMSNumber() != own {
				grader.NotOwn(s, l.ID, b.accountHolder(s, l.ID, carries), fmt.Sprintf("LMS account %s (%s); %s's own account is %s", s.LMSNumber(), s.LMSPerson(), l.ID, own))
			}
		}
	}
}

// ownAccount is l's own account among accts (see markLMSAccounts), or "".
func ownAccount(l roster.Learner, accts []string, who map[string]string, carries map[string][]string) string {
	if l.LMSID != "" && slices.Contains(accts, l.LMSID) {
		return l.LMSID
	}
	only := func(ok func(acct string) bool) string {
		found := ""
		for _, a := range accts {
			if ok(a) {
				if found != "" {
					return ""
				}
				found = a
			}
		}
		return found
	}
	if a := only(func(a string) bool { return lmsNamed(l, who[a]) }); a != "" {
		return a
	}
	return only(func(a string) bool { return len(carries[a]) == 1 })
}

// accountHolder is the learner whose account handed s in when it is not
// the record's owner's (see markLMSAccounts), or "" when that cannot be
// told.
func (b *Batch) accountHolder(s *grader.Submission, owner string, carries map[string][]string) string {
	if id := b.Roster.ByLMSID(s.LMSNumber()); id != "" {
		return id
	}
	others := slices.DeleteFunc(slices.Clone(carries[s.LMSNumber()]), func(id string) bool { return id == owner })
	switch len(others) {
	case 1:
		return others[0]
	case 0:
		found := ""
		for _, l := range b.Roster.Learners {
			if l.ID != owner && lmsNamed(l, s.LMSPerson()) {
				if found != "" {
					return ""
				}
				found = l.ID
			}
		}
		return found
	}
	return ""
}

// lmsNamed reports whether person, a name as an LMS download writes it, is
// learner l (see roster.NamedBy).
func lmsNamed(l roster.Learner, person string) bool { return roster.NamedBy(l, person) }
