package grade

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Warning is a batch-level note for the instructor: Text, in English, for
// the command line's stderr like its other messages; Zh, in Chinese, for
// summary.md and class.html.
type Warning struct {
	Text string `json:"text"`
	Zh   string `json:"zh"`
}

func (w Warning) String() string { return w.Text }

func Warnf(zh string, text string, a ...any) Warning {
	return Warning{Text: fmt.Sprintf(text, a...), Zh: fmt.Sprintf(zh, a...)}
}

// Where a submission's saved time comes from (Submission.SavedAtFrom).
const (
	SavedBySelfCheck = "selfcheck"      // the self-check's checked_at, in the card payload
	SavedByExecution = "cell_execution" // the latest cell execution time in the cell metadata
	SavedByZipEntry  = "zip_entry"      // the modification time an LMS download gives the entry
)

// FindDuplicate: the learner handed in more than one file; the finding on
// each says which one was graded.
const FindDuplicate = "duplicate_submission"

// savedTimeZh names where a saved time comes from, for Chinese lines.
var savedTimeZh = map[string]string{SavedBySelfCheck: "自检运行时间", SavedByExecution: "单元格运行时间", SavedByZipEntry: "LMS 压缩包里记录的时间"}

// setSaved records the submission's saved time if it has none yet.
func (s *Submission) setSaved(t time.Time, from string) {
	if t.IsZero() || s.SavedAt != "" {
		return
	}
	s.savedAt = t.UTC()
	s.SavedAt, s.SavedAtFrom = s.savedAt.Format(time.RFC3339), from
}

// savedLine says when a submission was saved, for the finding texts.
func savedLine(s *Submission) (en, zh string) {
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
func pickGraded(subs []*Submission, order map[*Submission]int) *Submission {
	return slices.MaxFunc(subs, func(a, b *Submission) int {
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
	byLearner := map[string][]*Submission{}
	order := map[*Submission]int{}
	b.Others = map[string][]string{}
	for i, s := range b.Subs {
		order[s] = i
		s.SupersededBy = ""
		s.Integrity = slices.DeleteFunc(s.Integrity, func(f Finding) bool { return f.Code == FindDuplicate })
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
		var othersEn, othersZh []string
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
			othersZh = append(othersZh, fmt.Sprintf("%s(%s)", s.Name, zh))
			s.SupersededBy = best.Name
			s.Integrity = append(s.Integrity, Finding{Code: FindDuplicate,
				Message: fmt.Sprintf("这份提交没有计分：你一共提交了 %d 份，计分的是 %s。", len(subs), best.Name)})
		}
		en, zh := savedLine(best)
		best.Integrity = append(best.Integrity, Finding{Code: FindDuplicate,
			Message: fmt.Sprintf("你一共提交了 %d 份笔记本，计分的是这一份（%s）；另外的 %s 没有计分。规则：能评分的优先，其中取笔记本自己记录的保存时间最新的一份。", len(subs), zh, strings.Join(othersZh, "、"))})
		b.Warnings = append(b.Warnings, Warning{
			Text: fmt.Sprintf("%s handed in %d files: graded %s (%s); not graded: %s", l.ID, len(subs), best.Name, en, strings.Join(othersEn, "; ")),
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
func CheckKey(subs []*Submission) KeyCheck {
	var k KeyCheck
	for _, s := range subs {
		switch s.Record() {
		case RecordVerified:
			k.Records++
			k.Verified++
		case RecordInvalid:
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
func (k KeyCheck) Warning() Warning {
	return Warning{
		Text: fmt.Sprintf("the key verifies only %d of %d release records: check that --key-file is the key assign used for this class (failed: %s)", k.Verified, k.Records, strings.Join(k.Failed, ", ")),
		Zh:   fmt.Sprintf("密钥只验证通过了 %d/%d 份发放记录：请确认 --key-file 是发放这个班时用的密钥。没有通过的：%s", k.Verified, k.Records, strings.Join(k.Failed, "、")),
	}
}

// Release record states (Submission.record).
const (
	RecordNone = iota
	RecordVerified
	RecordInvalid
)

// executedAt is the latest cell execution time the notebook's cell
// metadata records (JupyterLab with timing recorded, nbclient always).
func executedAt(meta map[string]any) time.Time {
	var latest time.Time
	for _, k := range []string{"shell.execute_reply", "iopub.status.idle", "iopub.execute_input", "iopub.status.busy"} {
		v, _ := meta[k].(string)
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.After(latest) {
			latest = t
		}
	}
	return latest
}
