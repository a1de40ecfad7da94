package batch

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/review"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/lang"
)

// FindDuplicate: the learner handed in more than one file; the finding on
// each says which one was graded.
const FindDuplicate = "duplicate_submission"

// savedTimeZh names where a saved time comes from, for Chinese lines.
var savedTimeZh = map[string]string{grader.SavedBySelfCheck: "自检运行时间", grader.SavedByExecution: "单元格运行时间", grader.SavedByZipEntry: "LMS 压缩包里记录的时间"}

// savedLine says when a submission was saved, for the finding texts.
func savedLine(s *grader.Submission) (en, zh string) {
	if s.SavedAt == "" {
		return "no saved time", "没有保存时间"
	}
	return s.SavedAtFrom + " " + s.SavedAt, savedTimeZh[s.SavedAtFrom] + " " + s.SavedTime().Format("2006-01-02 15:04:05") + " UTC"
}

// pickGraded is the duplicate rule: of one learner's files, the one graded
// into grades.csv. A gradable file beats an ungradable one (that has no
// card: it never replaces a graded one); then the newest saved time (the
// notebook's own: the self-check's time, else the latest cell execution
// time; else the LMS zip entry's time; a file with a time beats one
// without); then the later in collection order. subs are in collection
// order (order gives each one's position).
func pickGraded(subs []*grader.Submission, order map[*grader.Submission]int) *grader.Submission {
	return slices.MaxFunc(subs, func(a, b *grader.Submission) int {
		return cmp.Or(
			cmp.Compare(boolInt(a.Gradable), boolInt(b.Gradable)),
			a.SavedTime().Compare(b.SavedTime()),
			cmp.Compare(order[a], order[b]))
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// markDuplicates applies the duplicate rule to every learner with more
// than one file: each file gets a finding saying which one counts, the
// row lists the others, and the batch gets a warning. It never drops a
// file: every one still gets its feedback and results.json.
func (b *Batch) markDuplicates() {
	byLearner := map[string][]*grader.Submission{}
	order := map[*grader.Submission]int{}
	b.Others = map[string][]string{}
	for i, s := range b.Subs {
		order[s] = i
		s.SupersededBy, s.SupersededShown = "", ""
		s.Integrity = slices.DeleteFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == FindDuplicate })
		if s.Learner != "" {
			byLearner[s.Learner] = append(byLearner[s.Learner], s)
		}
	}
	for _, l := range b.Learners() {
		subs := byLearner[l.ID]
		if len(subs) == 0 {
			continue
		}
		best := pickGraded(subs, order)
		b.Chosen[l.ID] = best
		if len(subs) == 1 {
			continue
		}
		var othersEn, othersZh, shownZh []string
		for _, s := range subs {
			if s == best {
				continue
			}
			en, zh := savedLine(s)
			if !s.Gradable {
				en += ", ungradable"
				zh += "，无法评分"
			}
			b.Others[l.ID] = append(b.Others[l.ID], s.Name)
			othersEn = append(othersEn, fmt.Sprintf("%s (%s)", s.Name, en))
			othersZh = append(othersZh, fmt.Sprintf("%s（%s）", s.Name, zh))
			// The learner's own feedback names their files as ShownName
			// does: never by another learner's name.
			shownZh = append(shownZh, fmt.Sprintf("%s（%s）", s.ShownName(), zh))
			s.SupersededBy, s.SupersededShown = best.Name, best.ShownName()
			s.Integrity = append(s.Integrity, integrity.Finding{Code: FindDuplicate,
				Message: fmt.Sprintf("这份提交没有计分：你一共提交了 %d 份，计分的是 %s。", len(subs), best.ShownName())})
		}
		en, zh := savedLine(best)
		best.Integrity = append(best.Integrity, integrity.Finding{Code: FindDuplicate,
			Message: fmt.Sprintf("你一共提交了 %d 份笔记本，计分的是这一份（%s）；另外的 %s 没有计分。规则：能评分的优先，其中取笔记本自己记录的保存时间最新的一份。", len(subs), zh, strings.Join(shownZh, "、"))})
		b.Warnings = append(b.Warnings, grader.Warning{
			Text: fmt.Sprintf("%s handed in %s: graded %s (%s); not graded: %s", l.ID, lang.N(lang.EN, len(subs), "file", "files"), best.Name, en, strings.Join(othersEn, "; ")),
			Zh:   fmt.Sprintf("%s 提交了 %d 份：计分的是 %s（%s）；没有计分：%s", l.ID, len(subs), best.Name, zh, strings.Join(othersZh, "、")),
		})
	}
}

// KeyCheck is how many of a batch's release records the key verifies.
// A key that verifies none of them is the wrong key (Stop): every learner
// would be told their record was edited. When most records fail (Loud)
// the key is probably right and many notebooks were tampered with, or
// copied from a release made with another key: the batch is written, with
// a warning at the top of the summary.
type KeyCheck struct {
	Records  int      // submissions that carry a release record
	Verified int      // records the key verifies
	Failed   []string // the submissions whose record does not verify
}

// CheckKey counts the release records of subs that the grader's key
// verifies.
func CheckKey(subs []*grader.Submission) KeyCheck {
	var k KeyCheck
	for _, s := range subs {
		switch s.Record() {
		case grader.RecordVerified:
			k.Records++
			k.Verified++
		case grader.RecordInvalid:
			k.Records++
			k.Failed = append(k.Failed, s.Name)
		}
	}
	return k
}

// Stop reports whether the key verifies no record at all.
func (k KeyCheck) Stop() bool { return k.Records > 0 && k.Verified == 0 }

// Loud reports whether more than half the records fail to verify (but
// some do). With the right key an honest class fails none; half is far
// beyond what tampering explains, and far below "all", the wrong key.
func (k KeyCheck) Loud() bool { return !k.Stop() && 2*(k.Records-k.Verified) > k.Records }

// Warning is the batch warning for Loud.
func (k KeyCheck) Warning() grader.Warning {
	return grader.Warning{
		Text: fmt.Sprintf("the key verifies only %d of %d release records: check that --key-file is the key assign used for this class (failed: %s)", k.Verified, k.Records, strings.Join(k.Failed, ", ")),
		Zh:   fmt.Sprintf("密钥只验证通过了 %d/%d 份发放记录：请确认 --key-file 是发放这个班时用的密钥。没有通过的：%s", k.Verified, k.Records, strings.Join(k.Failed, "、")),
	}
}

// Batch is a graded batch: the roster, the rubric and every submission.
type Batch struct {
	Roster *roster.Roster
	Points map[string]float64
	Subs   []*grader.Submission
	// Warnings are instructor-facing notes about the batch (inputs that
	// were skipped, manual scores that were not applied, learners with
	// more than one file, a key that verifies few records); stderr gets
	// their Text, the summary and the class report their Zh.
	Warnings []grader.Warning
	// Typed is the manual-review file read for this batch (nil: none). Its
	// rows that do not count now are written back into the new file.
	Typed  *review.ManualScores
	Names  []string // output name per submission
	Chosen map[string]*grader.Submission
	Same   []SameAnswer // free-text answers handed in by more than one learner
	// Others are, by learner, their files the duplicate rule did not
	// grade (see markDuplicates).
	Others map[string][]string
	// contests are the records whose accounts' LMS names contradict the
	// roster (markLMSAccounts).
	contests []contest
}

// NewBatch groups subs (in collection order) by learner. When a learner
// handed in more than one file, one is graded into grades.csv by the
// duplicate rule (see pickGraded), the others are named on that row, in
// the summary and in a warning; every file gets its feedback and
// results.json.
func NewBatch(ro *roster.Roster, points map[string]float64, subs []*grader.Submission) *Batch {
	if points == nil {
		points = criteria.DefaultPoints()
	}
	b := &Batch{Roster: ro, Points: points, Subs: subs, Chosen: map[string]*grader.Submission{}, Others: map[string][]string{}}
	named := b.markNamedFiles() // may say a file is another learner's: before the output names
	b.markLMSAccounts()
	lmsNamed, byName := 0, 0
	for _, s := range subs {
		if s.LMSNumber() != "" || roster.LMSNumber(s.File) != "" { // a Moodle folder, or a Canvas file name
			lmsNamed++
			if m := ro.MatchLMSName(s.Name); m.ByName && s.Learner == m.ID {
				byName++
			}
		}
	}
	if lmsNamed > 0 && !ro.HasLMSIDs() {
		b.Warnings = append(b.Warnings, grader.Warnf("有 %d 个文件是 LMS（Canvas 或 Moodle）批量下载的名字，但名单没有 lms_id 列：无法按 LMS 编号认人。其中 %d 个按 LMS 写的姓名认出了名单上唯一的一位学习者（姓名完全一致，不猜），其余的只能靠签名的发放记录认人。请在名单里加上 lms_id 列后重新评分",
			"files with LMS (Canvas or Moodle) bulk-download names: %d, but the roster has no lms_id column: they cannot be matched by LMS number; matched by the name the LMS wrote (exactly one roster learner of that name, never a guess): %d, the others only by their signed release record; add an lms_id column to the roster and grade again", lmsNamed, byName))
	}
	for _, s := range subs {
		for _, f := range s.Integrity {
			if f.Code == grader.FindLMSNameAmbiguous { // a roster mismatch: noteRosterTypos
				b.Warnings = append(b.Warnings, grader.Warning{Text: s.Name + ": " + f.Detail, Zh: s.Name + "：" + f.Message})
			}
		}
	}
	b.markDuplicates()
	b.nameOutputs()
	b.noteNamedFiles(named)
	b.noteRosterTypos()
	b.noteUnknownAccounts()
	b.noteContests()
	b.markCopiedRecords()
	b.markSameAnswers()
	for _, l := range b.Learners()[len(ro.Learners):] {
		b.Warnings = append(b.Warnings, grader.Warnf("%s 不在名单上，但笔记本里有老师签发、验证通过的发放记录：已按发放记录评分（名单可能过期，请把 %[1]s 加进名单）",
			"%s is not on the roster, but a notebook carries a release record for %[1]s that the key verifies: graded by the record (the roster may be out of date: add %[1]s)", l.ID))
	}
	return b
}

// nameOutputs names each submission's feedback and results files: the
// learner id for the file that counts (the duplicate rule's), ID~2,
// ID~3, ... for their other files in collection order, and unknown-N for
// the Nth file with no known learner (never the file name: it is not a
// learner id, and a Canvas name would read "unknown-__10003_90003_...";
// the row and the feedback say which file it was).
func (b *Batch) nameOutputs() {
	b.Names = make([]string, len(b.Subs))
	used := map[string]int{}
	for i, s := range b.Subs {
		if s.Learner != "" && b.Chosen[s.Learner] == s {
			b.Names[i] = s.Learner
			used[s.Learner]++
		}
	}
	unknown := 0
	for i, s := range b.Subs {
		if b.Names[i] != "" {
			continue
		}
		name := s.Learner
		if name == "" {
			unknown++
			name = fmt.Sprintf("unknown-%d", unknown)
		}
		used[name]++
		if used[name] > 1 {
			name = fmt.Sprintf("%s~%d", name, used[name])
		}
		b.Names[i] = name
	}
}

// Counts reports whether s is the file that counts for its learner (the
// duplicate rule's): its scores are the learner's grade.
func (b *Batch) Counts(s *grader.Submission) bool {
	return s.Learner != "" && b.Chosen[s.Learner] == s
}

// Learners is every learner with a row in grades.csv: the roster, then
// the Learners graded by a signed record who are not on it, in the order
// their files were collected.
func (b *Batch) Learners() []roster.Learner {
	ls := append([]roster.Learner(nil), b.Roster.Learners...)
	seen := map[string]bool{}
	for _, s := range b.Subs {
		if s.Learner != "" && !b.Roster.Has(s.Learner) && !seen[s.Learner] {
			seen[s.Learner] = true
			ls = append(ls, roster.Learner{ID: s.Learner})
		}
	}
	return ls
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
		// What counts for the record's learner, said as it is: their own
		// file, or nothing when the record came in only as others' files
		// (then only the files handed in get the copy finding).
		var ownerEn, ownerZh string
		bothEn, bothZh := "a copy finding for both", "两人都有抄袭线索"
		if own, ok := b.Chosen[s.RecordOf]; ok {
			ownerEn, ownerZh = fmt.Sprintf("%s's own %s counts", s.RecordOf, own.Name), fmt.Sprintf("%s 计分的是自己的 %s", s.RecordOf, own.Name)
		} else {
			ownerEn = fmt.Sprintf("%s handed in no file of their own: %[1]s's row is \"no submission\"", s.RecordOf)
			ownerZh = fmt.Sprintf("%s 自己没有交文件，%[1]s 那一行是“没有提交”", s.RecordOf)
			bothEn, bothZh = "a copy finding on "+s.Name, s.Name+" 有抄袭线索"
		}
		if s.Learner == "" { // an LMS account of nobody known (markLMSAccounts)
			b.Warnings = append(b.Warnings, grader.Warnf("LMS 账号 %s（%s）交上来的 %s 是 %s 的笔记本（发放记录是 %[4]s 的）：没有 lms_id 列，认不出这个账号是谁的；这份不计入 %[4]s 的成绩；%[5]s；%[7]s",
				"LMS account %s (%s) handed in %s, which is %s's notebook (the signed release record is %[4]s's): without an lms_id column, whose account it is cannot be told; it does not count for %[4]s; %[6]s; %[8]s", s.LMSNumber(), s.LMSPerson(), s.Name, s.RecordOf, ownerZh, ownerEn, bothZh, bothEn))
		} else if mine, ok := b.Chosen[s.Learner]; ok && mine != s {
			if _, ok := b.Chosen[s.RecordOf]; !ok {
				bothEn, bothZh = fmt.Sprintf("a copy finding on %s's files", s.Learner), fmt.Sprintf("%s 的文件有抄袭线索", s.Learner)
			}
			b.Warnings = append(b.Warnings, grader.Warnf("%s 交上来的 %s 是 %s 的笔记本（发放记录是 %[3]s 的），不算 %[1]s 的作业；%[1]s 计分的是自己的 %[4]s；%[5]s；%[7]s",
				"%s handed in %s, which is %s's notebook (the signed release record is %[3]s's): it does not count as %[1]s's; %[1]s's own %[4]s counts; %[6]s; %[8]s", s.Learner, s.Name, s.RecordOf, mine.Name, ownerZh, ownerEn, bothZh, bothEn))
			mine.Integrity = append(mine.Integrity, integrity.Finding{Code: grader.FindRecordCopied, Warn: true, Private: true,
				Message: fmt.Sprintf("还交了 %s 的笔记本（%s）：那一份不算这位学习者的作业，这是抄袭线索，请核对。", s.RecordOf, s.Name),
				Detail:  fmt.Sprintf("also handed in %s's release record (%s)", s.RecordOf, s.Name)})
		} else {
			b.Warnings = append(b.Warnings, grader.Warnf("%s 交上来的 %s 是 %s 的笔记本（发放记录是 %[3]s 的）：%[1]s 没有自己的提交（那一行是“不是自己的作业”，0 分）；%[4]s；%[6]s",
				"%s handed in %s, which is %s's notebook (the signed release record is %[3]s's): %[1]s has no own submission (their row: not_own_submission, total 0); %[5]s; %[7]s", s.Learner, s.Name, s.RecordOf, ownerZh, ownerEn, bothZh, bothEn))
		}
		own, ok := b.Chosen[s.RecordOf]
		if !ok {
			continue
		}
		msg := fmt.Sprintf("这位学习者的发放记录（笔记本）也作为 %s 的作业交了上来：这是抄袭线索，请核对。", s.Learner)
		if s.Learner == "" {
			msg = fmt.Sprintf("这位学习者的发放记录（笔记本）也从另一个 LMS 账号（%s）交了上来，那一份没有计分：这是抄袭线索，请核对。", s.LMSNumber())
		}
		own.Integrity = append(own.Integrity, integrity.Finding{Code: grader.FindRecordCopied, Warn: true, Private: true, Message: msg,
			Detail: fmt.Sprintf("release record of %s also handed in by %s (%s)", s.RecordOf, cmp.Or(s.Learner, "LMS account "+s.LMSNumber()), s.Name)})
	}
}
