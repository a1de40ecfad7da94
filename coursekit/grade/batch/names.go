package batch

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// A folder or file name (s010/, s010.ipynb) says who handed a file in
// only as far as whoever named it was right: in a plain submissions
// folder, the instructor or a download named it. A notebook whose signed
// release record names another learner than its name is graded as the
// record's learner's (grader.Submission.NameSays keeps the name), and
// markNamedFiles decides what the name is evidence of:
//
//  1. The record also came in as a file of its own learner's (named after
//     them, from their account, or named after nobody), or under a second
//     learner's name: one record in two places. Each file named after
//     another learner is that learner's "no own submission" with a copy
//     finding (grader.NotOwn; markCopiedRecords tells the record's learner).
//  2. Otherwise the record came in once, under another learner's name:
//     two files swapped, or one put in the wrong folder. Nothing says that
//     anyone copied, so nobody gets a copy finding or "no own submission":
//     the file counts for the record's learner, and the instructor gets a
//     private finding and a warning that say what counted for both
//     learners (noteNamedFiles). The learner's feedback never shows the
//     other learner's name (Submission.ShownName).
//
// It returns the files of case 2.
func (b *Batch) markNamedFiles() []*grader.Submission {
	byOwner := map[string][]*grader.Submission{}
	var owners []string
	for _, s := range b.Subs {
		if s.Record() != grader.RecordVerified || s.RecordOf != "" || s.Learner == "" {
			continue
		}
		if _, ok := byOwner[s.Learner]; !ok {
			owners = append(owners, s.Learner)
		}
		byOwner[s.Learner] = append(byOwner[s.Learner], s)
	}
	var kept []*grader.Submission
	for _, owner := range owners {
		var named, own []*grader.Submission
		for _, s := range byOwner[owner] {
			if s.NameSays != "" {
				named = append(named, s)
			} else {
				own = append(own, s)
			}
		}
		switch {
		case len(named) == 0:
		case len(own) == 0 && len(named) == 1:
			kept = append(kept, named[0])
		default:
			for _, s := range named {
				who := s.NameSays
				s.NameSays = ""
				grader.NotOwn(s, owner, who, nameHow(s, who))
			}
		}
	}
	return kept
}

// nameHow says which name said that who handed s in.
func nameHow(s *grader.Submission, who string) string {
	if s.NameSaysByLMSID() {
		return fmt.Sprintf("LMS account %s (%q), %s's by the roster's lms_id", s.LMSNumber(), s.LMSPerson(), who)
	}
	if s.LMSNumber() != "" {
		return fmt.Sprintf("LMS name %q (account %s), %s's by the roster's names", s.LMSPerson(), s.LMSNumber(), who)
	}
	if strings.TrimSuffix(s.File, filepath.Ext(s.File)) == who {
		return "file name " + s.File
	}
	return "folder " + who + "/"
}

// noteNamedFiles gives each file markNamedFiles kept (a record that came
// in once, under another learner's name) its instructor-only finding and
// a batch warning, both saying what counted for the record's learner and
// for the learner the name says. It runs after the duplicate rule, which
// decides what counts.
func (b *Batch) noteNamedFiles(kept []*grader.Submission) {
	for _, s := range kept {
		owner, named := s.Learner, s.NameSays
		// What said the file was named's: its file or folder name, or
		// (no lms_id) the LMS name, named's by the roster's name column.
		saysEn, saysZh := s.NameSaysHow()
		saysEn = "is " + saysEn
		checkEn, checkZh := []string{"check whether the files were renamed or put in the wrong folder"}, []string{"请核对文件是不是改了名或放错了文件夹"}
		code := grader.FindNameNotRecord
		switch {
		case s.NameSaysByLMSID():
			// The roster's lms_id and the signed record disagree, and
			// the record came in once: a roster mismatch, not a copy.
			saysEn = "came " + strings.TrimPrefix(saysEn, "is ")
			code = grader.FindRosterMismatch
			checkEn = []string{fmt.Sprintf("check the lms_id of %s and %s in the roster and grade again (only if account %s really is %[2]s's did %[2]s hand in %[1]s's notebook)", owner, named, s.LMSNumber()), leftOutEn}
			checkZh = []string{fmt.Sprintf("请核对名单里 %s 和 %s 的 lms_id 后重新评分（只有账号 %s 确实是 %[2]s 的，才是 %[2]s 交了 %[1]s 的笔记本）", owner, named, s.LMSNumber()), leftOutZh}
		case s.LMSNumber() != "":
			saysEn = "came " + strings.TrimPrefix(saysEn, "is ")
			checkEn, checkZh = []string{"check the roster's names, or add an lms_id column"}, []string{"请核对名单的姓名，或加上 lms_id 列"}
		}
		b.noteOtherLearner(s, named, code, saysEn, saysZh, "its signed release record is", "签名的发放记录是", checkEn, checkZh)
	}
}

// noteRosterTypos gives each file from an LMS account whose LMS name is
// its record's learner's, while the roster's lms_id gives the account to
// another learner (grader.Submission.RosterSays: graded as the record's
// learner's, a roster typo), the finding and warning noteNamedFiles gives
// a file named after another learner: what counted for both learners,
// and to check both learners' lms_id. It runs after the duplicate rule.
func (b *Batch) noteRosterTypos() {
	for _, s := range b.Subs {
		named := s.RosterSays()
		if named == "" || s.RecordOf != "" || s.RosterContested() || slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == grader.FindRecordCopied }) {
			continue // judged a copy (one record from two accounts), or held (noteContests): their warnings say what counted
		}
		owner := s.Learner
		en, zh := s.RosterSaysHow()
		b.noteOtherLearner(s, named, grader.FindRosterMismatch, "came "+en, zh, "its LMS name and its signed release record are", "它的 LMS 名字和签名的发放记录都是",
			[]string{fmt.Sprintf("check the lms_id of %s and %s in the roster and grade again", owner, named), leftOutEn},
			[]string{fmt.Sprintf("请核对名单里 %s 和 %s 的 lms_id 后重新评分", owner, named), leftOutZh})
	}
}

// leftOutEn and leftOutZh end a roster-mismatch warning about two learners.
const (
	leftOutEn = "until then --export canvas leaves both rows out"
	leftOutZh = "在此之前，--export canvas 导出的文件不含这两行"
)

// noteOtherLearner gives s, graded as its record's learner's although
// something (saysEn, saysZh: a name, an LMS account by the roster) says
// it is named's, its instructor-only finding (code) and a batch warning:
// what said it, that the record (recordEn, recordZh: "its signed
// release record is") is the owner's and came in only there, what
// counted for the owner and for named ("the two files look swapped"
// when named's counted file is the owner's by what said so), and what
// to check (checkEn, checkZh). The warning is a headline and one line
// for each of these (grader.Detailed).
func (b *Batch) noteOtherLearner(s *grader.Submission, named, code, saysEn, saysZh, recordEn, recordZh string, checkEn, checkZh []string) {
	s.Integrity = slices.DeleteFunc(s.Integrity, func(f integrity.Finding) bool {
		return f.Code == grader.FindNameNotRecord || f.Code == grader.FindRosterMismatch
	})
	owner := s.Learner
	onceEn, onceZh := fmt.Sprintf("%s's record came in only in this file", owner), fmt.Sprintf("%s 的发放记录只交上来这一份", owner)
	own, copies := b.recordFiles(owner)
	nobodyEn, nobodyZh := " (nobody gets a copy finding)", "（谁都没有抄袭线索）"
	switch {
	case len(copies) > 0:
		// The record also came in as another learner's file, judged a
		// copy (or held) in a warning of its own: say so, not "only here".
		onceEn = fmt.Sprintf("%s's record also came in as %s, which its own warning judges", owner, strings.Join(copies, ", "))
		onceZh = fmt.Sprintf("%s 的发放记录还作为 %s 交了上来，那一份另有提醒", owner, strings.Join(copies, "、"))
		nobodyEn, nobodyZh = "", ""
	case own > 1:
		onceEn, onceZh = fmt.Sprintf("%s's record came in %d times, never from another learner's account by its LMS name", owner, own), fmt.Sprintf("%s 的发放记录交上来 %d 次，按 LMS 名字都不是别人的账号", owner, own)
	}
	ownerEn := fmt.Sprintf("it counts for %s", owner)
	ownerZh := fmt.Sprintf("它计入 %s 的成绩", owner)
	if c := b.Chosen[owner]; c != s {
		ownerEn = fmt.Sprintf("%s's row counts %s by the duplicate rule", owner, c.Name)
		ownerZh = fmt.Sprintf("按重复提交的规则，%s 计分的是 %s", owner, c.Name)
	}
	namedEn := fmt.Sprintf("%s has no other file: %[1]s's row is \"no submission\"", named)
	namedZh := fmt.Sprintf("%s 没有别的文件，%[1]s 那一行是“没有提交”", named)
	var swapEn, swapZh string // what says named's counted file is the owner's
	if c, ok := b.Chosen[named]; ok {
		namedEn = fmt.Sprintf("%s's row counts %s", named, c.Name)
		namedZh = fmt.Sprintf("%s 计分的是 %s", named, c.Name)
		switch owner {
		case c.NameSays:
			swapEn, swapZh = c.NameSaysHow()
		case c.RosterSays():
			swapEn, swapZh = c.RosterSaysHow()
		}
	}
	findNamedEn, findNamedZh := namedEn, namedZh
	if swapEn != "" {
		findNamedEn += fmt.Sprintf(" (%s: the two files look swapped)", swapEn)
		findNamedZh += fmt.Sprintf("（它%s：两个文件像是互换了）", swapZh)
	}
	findCheckZh := strings.Join(checkZh, "；")
	if code == grader.FindRosterMismatch {
		findCheckZh = "名单可能有误：" + findCheckZh
	}
	s.Integrity = append(s.Integrity, integrity.Finding{Code: code, Private: true,
		Message: fmt.Sprintf("这份笔记本%s，但%s %s 的，而 %s：按 %[3]s 的作业评分，不算抄袭线索。%[5]s；%[6]s。%[7]s。", saysZh, recordZh, owner, onceZh, ownerZh, findNamedZh, findCheckZh),
		Detail:  fmt.Sprintf("%s, but %s %s's (%s): graded as %[3]s's, not a copy; %[5]s; %[6]s", saysEn, recordEn, owner, onceEn, ownerEn, findNamedEn)})

	headEn := fmt.Sprintf("%s is graded as %s's work, not as a copy", s.Name, owner)
	headZh := fmt.Sprintf("%s 按 %s 的作业评分，不算抄袭", s.Name, owner)
	if code == grader.FindRosterMismatch {
		headEn, headZh = "roster mismatch: "+headEn, "名单可能有误："+headZh
	}
	en := []string{"it " + saysEn, fmt.Sprintf("but %s %s's, and %s%s", recordEn, owner, onceEn, nobodyEn), ownerEn, namedEn}
	zh := []string{"它" + saysZh, fmt.Sprintf("但%s %s 的，%s%s", recordZh, owner, onceZh, nobodyZh), ownerZh, namedZh}
	if swapEn != "" {
		en = append(en, fmt.Sprintf("that file is %s: the two files look swapped", swapEn))
		zh = append(zh, fmt.Sprintf("那个文件%s：两个文件像是互换了", swapZh))
	}
	b.Warnings = append(b.Warnings, grader.Detailed(headEn, headZh, append(en, checkEn...), append(zh, checkZh...)))
}

// recordFiles counts the files graded as learner's by their signed
// release record (own), and names the files of that record judged a copy
// or held as another learner's (copies).
func (b *Batch) recordFiles(learner string) (own int, copies []string) {
	for _, s := range b.Subs {
		switch {
		case s.RecordOf == learner || s.RecordHeld == learner:
			copies = append(copies, s.Name)
		case s.Learner == learner && s.RecordOf == "" && s.Record() == grader.RecordVerified:
			own++
		}
	}
	return own, copies
}

// NamedAfter is the files whose name (or folder, or LMS name) says
// learner id but that were graded as another learner's by their signed
// release record (markNamedFiles, case 2), for id's row.
func (b *Batch) NamedAfter(id string) []*grader.Submission {
	var out []*grader.Submission
	for _, s := range b.Subs {
		if s.NameSays == id {
			out = append(out, s)
		}
	}
	return out
}
