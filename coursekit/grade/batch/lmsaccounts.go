package batch

import (
	"cmp"
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
//
// Before rule 1, the LMS names may contradict the roster: the account the
// roster's lms_id gives the record's learner carries another roster
// learner's LMS name, and one other account carries theirs (two lms_id
// swapped). Then the roster cannot say whose upload is a copy, and grade
// judges none (holdContested): the upload from the account whose LMS name
// is the learner's counts for them, every other upload of the record is
// held in the row of the learner its LMS name is (grader.HoldForRoster:
// not graded, no copy finding), and noteContests tells the instructor to
// check the roster. Graded again with the roster right, rule 2 applies.
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
		if named := b.rosterContradicted(l, accts, who); named != "" {
			b.holdContested(l, subs, named, who)
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
		return b.namedBy(s.LMSPerson(), owner)
	}
	return ""
}

// namedBy is the one roster learner other than except whom person, a
// name as an LMS download writes it, names; "" for none or more than one.
func (b *Batch) namedBy(person, except string) string {
	found := ""
	for _, l := range b.Roster.Learners {
		if l.ID != except && lmsNamed(l, person) {
			if found != "" {
				return ""
			}
			found = l.ID
		}
	}
	return found
}

// rosterContradicted is, when the LMS names of accts (who: account → the
// person's name in its LMS name) contradict the roster for l, the one
// account whose LMS name is l's: the account the roster's lms_id gives l
// carries another roster learner's LMS name. "" otherwise.
func (b *Batch) rosterContradicted(l roster.Learner, accts []string, who map[string]string) string {
	if l.LMSID == "" || !slices.Contains(accts, l.LMSID) || lmsNamed(l, who[l.LMSID]) || b.namedBy(who[l.LMSID], l.ID) == "" {
		return ""
	}
	found := ""
	for _, a := range accts {
		if lmsNamed(l, who[a]) {
			if found != "" {
				return ""
			}
			found = a
		}
	}
	return found
}

// contest is a record whose accounts' LMS names contradict the roster
// (see markLMSAccounts): the record's learner, their own uploads by LMS
// name, and the uploads held.
type contest struct {
	owner     string
	own, held []*grader.Submission
	// says is what the LMS names and the roster say of each account.
	says, saysZh []string
}

// holdContested applies the contradicted-roster rule of markLMSAccounts
// to subs, l's record from several accounts, of which named is the one
// whose LMS name is l's.
func (b *Batch) holdContested(l roster.Learner, subs []*grader.Submission, named string, who map[string]string) {
	// What the LMS names and the roster say of each account, for the
	// instructor.
	var sayEn, sayZh []string
	var accts []string
	for _, s := range subs {
		a := s.LMSNumber()
		if slices.Contains(accts, a) {
			continue
		}
		accts = append(accts, a)
		byName, byRoster := b.namedBy(who[a], ""), b.Roster.ByLMSID(a)
		sayEn = append(sayEn, fmt.Sprintf("account %s (%q) is %s's by its LMS name, %s's by the roster's lms_id", a, who[a], cmp.Or(byName, "nobody on the roster"), cmp.Or(byRoster, "nobody")))
		sayZh = append(sayZh, fmt.Sprintf("账号 %s（%s）按 LMS 名字是 %s 的，按名单的 lms_id 是 %s 的", a, who[a], cmp.Or(byName, "名单上没有人"), cmp.Or(byRoster, "没有人")))
	}
	why := strings.Join(sayZh, "；")
	c := contest{owner: l.ID, says: sayEn, saysZh: sayZh}
	for _, s := range subs {
		if s.LMSNumber() == named {
			grader.MarkRosterContested(s, why)
			c.own = append(c.own, s)
			continue
		}
		grader.HoldForRoster(s, l.ID, b.namedBy(s.LMSPerson(), l.ID), why)
		c.held = append(c.held, s)
	}
	b.contests = append(b.contests, c)
}

// noteContests warns, for each record whose accounts contradict the
// roster (holdContested), what counted for its learner, which uploads
// are held in whose row, and which learners' lms_id to check. It runs
// after the duplicate rule.
func (b *Batch) noteContests() {
	for _, c := range b.contests {
		check := []string{c.owner}
		add := func(id string) {
			if id != "" && !slices.Contains(check, id) {
				check = append(check, id)
			}
		}
		var heldEn, heldZh []string
		for _, s := range slices.Concat(c.own, c.held) {
			add(b.Roster.ByLMSID(s.LMSNumber()))
			add(s.Learner)
		}
		for _, s := range c.held {
			row, rowZh := s.Learner+"'s row", "放在 "+s.Learner+" 那一行"
			if s.Learner == "" {
				row, rowZh = "a row of its own", "单独一行"
			}
			heldEn = append(heldEn, fmt.Sprintf("%s is held in %s, not graded", s.Name, row))
			heldZh = append(heldZh, fmt.Sprintf("%s %s，暂不评分", s.Name, rowZh))
		}
		countsEn, countsZh := fmt.Sprintf("%s counts for %s", b.Chosen[c.owner].Name, c.owner), fmt.Sprintf("%s 计入 %s 的成绩", b.Chosen[c.owner].Name, c.owner)
		if !slices.Contains(c.own, b.Chosen[c.owner]) {
			countsEn = fmt.Sprintf("%s's row counts %s by the duplicate rule", c.owner, b.Chosen[c.owner].Name)
			countsZh = fmt.Sprintf("按重复提交的规则，%s 计分的是 %s", c.owner, b.Chosen[c.owner].Name)
		}
		pair, pairZh := strings.Join(check[:len(check)-1], ", ")+" and "+check[len(check)-1], strings.Join(check, "、")
		en := slices.Concat(c.says, []string{"until the roster is right, no upload is judged a copy (nobody gets a copy finding or \"not own submission\")", countsEn}, heldEn,
			[]string{fmt.Sprintf("check the lms_id of %s in the roster and grade again (grade then judges the upload that is not %s's own)", pair, c.owner), "until then --export canvas leaves these rows out"})
		zh := slices.Concat(c.saysZh, []string{"名单改对之前，不认定哪一份是抄来的（谁都没有抄袭线索，也没有“不是自己的作业”）", countsZh}, heldZh,
			[]string{fmt.Sprintf("请核对名单里 %s 的 lms_id 后重新评分（那时评分程序会认定不是 %s 本人交的那一份）", pairZh, c.owner), "在此之前，--export canvas 导出的文件不含这几行"})
		b.Warnings = append(b.Warnings, grader.Detailed(
			fmt.Sprintf("roster mismatch: %s's signed record came in from %d LMS accounts, whose LMS names contradict the roster", c.owner, len(c.own)+len(c.held)),
			fmt.Sprintf("名单可能有误：%s 的发放记录从 %d 个 LMS 账号交了上来，这些账号的 LMS 名字和名单对不上", c.owner, len(c.own)+len(c.held)),
			en, zh))
	}
}

// lmsNamed reports whether person, a name as an LMS download writes it, is
// learner l (see roster.NamedBy).
func lmsNamed(l roster.Learner, person string) bool { return roster.NamedBy(l, person) }

// noteUnknownAccounts tells the instructor of an lms_id typo that matches
// nobody: a learner's signed notebook came in from an LMS account that no
// roster row has as its lms_id, while the roster gives that learner
// another lms_id. The file is graded as the record's learner's (nobody is
// accused); each such file gets a private roster-mismatch finding, so
// --export canvas leaves the row out instead of putting the grade on the
// roster's (wrong) lms_id, and one warning per learner and account says
// what counted. It runs after the duplicate rule.
func (b *Batch) noteUnknownAccounts() {
	type key struct{ learner, acct string }
	var keys []key
	files := map[key][]*grader.Submission{}
	for _, s := range b.Subs {
		num := s.LMSNumber()
		if num == "" || s.Learner == "" || s.Record() != grader.RecordVerified || s.RecordOf != "" || s.RecordHeld != "" || b.Roster.ByLMSID(num) != "" {
			continue
		}
		l, ok := b.Roster.Learner(s.Learner)
		if !ok || l.LMSID == "" || l.LMSID == num {
			continue
		}
		k := key{s.Learner, num}
		if _, ok := files[k]; !ok {
			keys = append(keys, k)
		}
		files[k] = append(files[k], s)
	}
	for _, k := range keys {
		l, _ := b.Roster.Learner(k.learner)
		subs := files[k]
		person := subs[0].LMSPerson()
		nameEn, nameZh := fmt.Sprintf("whose LMS name %q is not %s's", person, l.ID), fmt.Sprintf("LMS 名字 %s 不是 %s 的", person, l.ID)
		if lmsNamed(l, person) {
			nameEn, nameZh = fmt.Sprintf("whose LMS name %q is %s's", person, l.ID), fmt.Sprintf("LMS 名字 %s 是 %s 的", person, l.ID)
		}
		var names []string
		for _, s := range subs {
			names = append(names, s.Name)
		}
		countsEn, countsZh := "nothing from it counts", "这个账号交的都没有计分"
		if c := b.Chosen[l.ID]; slices.Contains(subs, c) {
			countsEn, countsZh = fmt.Sprintf("%s counts for %s", c.Name, l.ID), fmt.Sprintf("%s 计入 %s 的成绩", c.Name, l.ID)
		}
		en := fmt.Sprintf("%s's signed notebook came in from LMS account %s, %s: %s; but the roster's lms_id for %[1]s is %[5]s, and no roster learner's lms_id is %[2]s", l.ID, k.acct, nameEn, strings.Join(names, ", "), l.LMSID)
		zh := fmt.Sprintf("%s 的签名笔记本从 LMS 账号 %s 交上来（%s）：%s；但名单里 %[1]s 的 lms_id 是 %[5]s，名单上也没有谁的 lms_id 是 %[2]s", l.ID, k.acct, nameZh, strings.Join(names, "、"), l.LMSID)
		for _, s := range subs {
			s.Integrity = append(s.Integrity, integrity.Finding{Code: grader.FindRosterMismatch, Private: true,
				Message: "名单可能有误：" + zh + "。按 " + l.ID + " 的作业评分，不算抄袭线索。",
				Detail:  en + ": graded as " + l.ID + "'s, not a copy"})
		}
		isEn, isZh := fmt.Sprintf("not %s's", l.ID), fmt.Sprintf("不是 %s 的", l.ID)
		if lmsNamed(l, person) {
			isEn, isZh = l.ID+"'s", fmt.Sprintf("是 %s 的", l.ID)
		}
		b.Warnings = append(b.Warnings, grader.Detailed(
			fmt.Sprintf("roster mismatch: %s's signed notebook came in from LMS account %s: graded as %[1]s's work, not as a copy", l.ID, k.acct),
			fmt.Sprintf("名单可能有误：%s 的签名笔记本从 LMS 账号 %s 交上来：按 %[1]s 的作业评分，不算抄袭", l.ID, k.acct),
			[]string{fmt.Sprintf("the account's LMS name is %q, %s: %s", person, isEn, strings.Join(names, ", ")),
				fmt.Sprintf("but the roster's lms_id for %s is %s, and no roster learner's lms_id is %s", l.ID, l.LMSID, k.acct),
				countsEn,
				fmt.Sprintf("check the lms_id of %s in the roster and grade again", l.ID),
				fmt.Sprintf("until then --export canvas leaves %s's row out", l.ID)},
			[]string{fmt.Sprintf("这个账号的 LMS 名字是 %s，%s：%s", person, isZh, strings.Join(names, "、")),
				fmt.Sprintf("但名单里 %s 的 lms_id 是 %s，名单上也没有谁的 lms_id 是 %s", l.ID, l.LMSID, k.acct),
				countsZh,
				fmt.Sprintf("请核对名单里 %s 的 lms_id 后重新评分", l.ID),
				fmt.Sprintf("在此之前，--export canvas 导出的文件不含 %s 这一行", l.ID)}))
	}
}
