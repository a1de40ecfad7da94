package grader

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// ManualItem is one free-text answer for the manual-review queue. Keyword
// is a keyword-assist score in [0,1] for the reader; it never enters the
// automatic total.
type ManualItem struct {
	Learner  string   `json:"learner"`
	ID       string   `json:"id"`
	Title    string   `json:"title"`
	Text     string   `json:"text"`
	Max      float64  `json:"max"`
	Keyword  float64  `json:"keyword_assist"`
	Keywords []string `json:"keywords_found,omitempty"`
	// Comment is what the instructor wrote for the learner about this
	// answer (manual-review.csv's comment column); shown in the feedback.
	Comment string `json:"comment,omitempty"`
}

// Submission is the grade of one submitted file.
type Submission struct {
	// File is the submitted file's base name (no directories).
	File string `json:"file"`
	// Name is the file as collected: its path under the folder given to
	// grade, or ZIP:ENTRY, never a machine path.
	Name    string `json:"name"`
	Learner string `json:"learner,omitempty"`
	// SavedAt is the notebook's own saved time (UTC, RFC 3339), by which
	// the newest of a learner's files is graded; SavedAtFrom says where it
	// comes from (SavedBySelfCheck, SavedByExecution, SavedByZipEntry).
	SavedAt     string `json:"saved_at,omitempty"`
	SavedAtFrom string `json:"saved_at_from,omitempty"`
	// Late: the LMS download marked the file late (Canvas's _LATE_).
	Late bool `json:"late,omitempty"`
	// SupersededBy names the learner's file that was graded instead of
	// this one (see the duplicate rule, package batch); SupersededShown
	// is how the learner's own feedback names it (ShownName).
	SupersededBy    string `json:"superseded_by,omitempty"`
	SupersededShown string `json:"-"`
	// RecordOf is, for a notebook handed in by another account than its
	// signed release record's (ReasonNotOwn), the record's learner.
	RecordOf string `json:"record_of,omitempty"`
	// RecordHeld is, for a file held for a roster check
	// (ReasonRosterHeld), the learner of its signed record.
	RecordHeld string `json:"record_held,omitempty"`
	// NameSays is, for a notebook whose file or folder name says one
	// learner and whose signed release record another, with no LMS or
	// Gradescope account to say who handed it in, the learner the name
	// says. Such a file is graded as the record's learner's; package batch
	// decides whether the name is evidence of a copy (the record also came
	// in as a file of its own learner's, or under a second name) or only a
	// renamed or misplaced file (instructor-only, see FindNameNotRecord).
	NameSays string `json:"name_says,omitempty"`
	// Gradable is false when Reason says why nothing could be graded.
	Gradable   bool   `json:"gradable"`
	ReasonCode string `json:"reason_code,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// ReasonDetail is the reason as the instructor reads it (Chinese; it
	// may name other learners); "" when Reason says it all. Learner-facing
	// files show Reason only.
	ReasonDetail string           `json:"reason_detail,omitempty"`
	NBFormat     string           `json:"nbformat,omitempty"`
	Scores       []criteria.Score `json:"scores,omitempty"`
	// Total is the automatic score; Pending is the points waiting for a
	// person; Max counts every criterion.
	Total     float64             `json:"total"`
	Pending   float64             `json:"pending"`
	Max       float64             `json:"max"`
	Integrity []integrity.Finding `json:"integrity,omitempty"`
	Manual    []ManualItem        `json:"manual,omitempty"`
	// Mistakes are the unit's typical mistakes recognised from the card's
	// numbers (Mistake* codes), for the class report.
	Mistakes []string `json:"mistakes,omitempty"`
	// StatusLine is the honest one-line summary, in Chinese.
	StatusLine string `json:"status_line"`
	// Override is the instructor's decision on the total of a file that
	// could not be graded (overrides.csv, criterion "total"); nil when
	// there is none. Total and Max then hold it.
	Override *Override `json:"override,omitempty"`

	source []byte     // the submitted bytes, kept for re-execution (Options.KeepSource)
	card   *card.Card // the graded card: the card cell's source when it can be read
	saved  *card.Card // the card in the saved self-check output

	record  int       // release record: RecordNone, RecordVerified or RecordInvalid
	savedAt time.Time // SavedAt, parsed
	// lmsNum and lmsWho are the LMS account that handed the file in, as its
	// Canvas or Moodle name says: the user number and the person's name
	// ("" for other names); see package batch.
	lmsNum, lmsWho string
	// nameByLMSID: NameSays comes from the roster's lms_id for the LMS
	// account (whose LMS name is not that learner's), not from a name.
	nameByLMSID bool
	// rosterSays is, for a file from an LMS account whose LMS name is
	// its signed record's learner's, the other learner the roster's
	// lms_id gives the account (a roster typo; see RosterSays).
	rosterSays string
	// contested: the roster's lms_id is contradicted by the LMS names of
	// the accounts that handed this record in (MarkRosterContested).
	contested bool
}

// RosterSays is, for a file graded as its signed record's learner's
// although the roster's lms_id gives the LMS account that handed it in
// to another learner (the account's LMS name is the record's learner's,
// not theirs: a roster typo), that other learner; "" otherwise.
func (s *Submission) RosterSays() string { return s.rosterSays }

// RosterSaysHow is NameSaysHow for RosterSays: the account, and that it
// is RosterSays's by the roster's lms_id.
func (s *Submission) RosterSaysHow() (en, zh string) { return s.lmsIDHow(s.rosterSays) }

// lmsIDHow says that s came from an LMS account that is x's by the
// roster's lms_id (x "": nothing).
func (s *Submission) lmsIDHow(x string) (en, zh string) {
	if x == "" {
		return "", ""
	}
	return fmt.Sprintf("from LMS account %s (%q), %s's by the roster's lms_id", s.lmsNum, s.lmsWho, x),
		fmt.Sprintf("来自 LMS 账号 %s（%s），名单的 lms_id 说这个账号是 %s 的", s.lmsNum, s.lmsWho, x)
}

// NameSaysByLMSID reports whether NameSays is the learner the roster's
// lms_id gives the LMS account that handed s in (while the account's LMS
// name is not theirs and the signed record is another learner's): a
// roster mismatch unless the record also came in elsewhere.
func (s *Submission) NameSaysByLMSID() bool { return s.NameSays != "" && s.nameByLMSID }

// StaffReason is the reason as the instructor reads it: ReasonDetail,
// else Reason.
func (s *Submission) StaffReason() string {
	if s.ReasonDetail != "" {
		return s.ReasonDetail
	}
	return s.Reason
}

// NamedForOtherZh is how text a learner reads names their file when its
// name is another learner's (NameSays): never that name.
const NamedForOtherZh = "交上来时名字不是你的那份笔记本（按笔记本里签名的发放记录，它是你的）"

// NamedByLMSZh is how text a learner reads names their file when only
// the roster's lms_id says its LMS account is another learner's
// (NameSaysByLMSID): its LMS name may well be theirs, and the account
// number is not for them to read.
const NamedByLMSZh = "从 LMS 交上来的那份笔记本（按笔记本里签名的发放记录，它是你的）"

// HeldShownZh is how text a learner reads names their file when it is
// held for a roster check (ReasonRosterHeld): never its LMS name, which
// the roster gives to another learner.
const HeldShownZh = "从 LMS 交上来的那份笔记本"

// ShownName is how text a learner reads names s's file: its name as
// collected, except a file whose name (or LMS account, by the roster) is
// another learner's (NameSays), or whose account the roster and the LMS
// names dispute (RecordHeld, RosterContested): a neutral name then.
func (s *Submission) ShownName() string {
	return cmp.Or(s.shownOther(), s.Name)
}

// shownOther is what text a learner reads for a file whose name or LMS
// account is another learner's (NameSays), "" for other files.
func (s *Submission) shownOther() string {
	switch {
	case s.RecordHeld != "":
		return HeldShownZh
	case s.NameSaysByLMSID(), s.contested:
		return NamedByLMSZh
	case s.NameSays != "":
		return NamedForOtherZh
	}
	return ""
}

// NameSaysHow says, for the instructor, what said NameSays handed s in:
// "named after X" (the file name), "in X's folder", or an LMS account
// that is X's by the roster's names; "" when NameSays is empty. The
// Chinese is a predicate for after the file's name or "它" ("的名字是 X 的",
// "在 X 的文件夹里").
func (s *Submission) NameSaysHow() (en, zh string) {
	x := s.NameSays
	switch {
	case x == "":
		return "", ""
	case s.lmsNum != "" && s.nameByLMSID:
		return s.lmsIDHow(x)
	case s.lmsNum != "":
		return fmt.Sprintf("from LMS account %s (%q), %s's by the roster's names (no lms_id)", s.lmsNum, s.lmsWho, x),
			fmt.Sprintf("来自 LMS 账号 %s（%s），按名单的姓名是 %s 的（没有 lms_id）", s.lmsNum, s.lmsWho, x)
	case strings.TrimSuffix(s.File, path.Ext(s.File)) == x:
		return "named after " + x, "的名字是 " + x + " 的"
	}
	return "in " + x + "'s folder", "在 " + x + " 的文件夹里"
}

// ShownFile is ShownName for the file's base name.
func (s *Submission) ShownFile() string {
	return cmp.Or(s.shownOther(), s.File)
}

// IntegrityOK reports whether no integrity finding is a warning.
func (s *Submission) IntegrityOK() bool {
	for _, f := range s.Integrity {
		if f.Warn {
			return false
		}
	}
	return true
}

// Score returns the criterion with the given id.
func (s *Submission) Score(id string) (criteria.Score, bool) {
	for _, x := range s.Scores {
		if x.ID == id {
			return x, true
		}
	}
	return criteria.Score{}, false
}

// Record is what the key says of the notebook's release record:
// RecordNone, RecordVerified or RecordInvalid.
func (s *Submission) Record() int { return s.record }

// SavedTime is SavedAt, parsed (zero when the notebook records none).
func (s *Submission) SavedTime() time.Time { return s.savedAt }

// LMSNumber is the LMS account that handed the file in, as its Canvas
// or Moodle name says: the user number ("" for other names).
func (s *Submission) LMSNumber() string { return s.lmsNum }

// LMSPerson is the person's name in the LMS name the file was handed in
// under ("" for other names).
func (s *Submission) LMSPerson() string { return s.lmsWho }

// Source is the submitted bytes, kept for re-execution (Options.KeepSource).
func (s *Submission) Source() []byte { return s.source }

// Card is the graded card: the card cell's source when it can be read,
// else the card in the saved self-check output (SavedCard).
func (s *Submission) Card() *card.Card { return s.card }

// SavedCard is the card in the saved self-check output.
func (s *Submission) SavedCard() *card.Card { return s.saved }

// KeepFileOf makes ns, the grade of a re-run of s, say which file was
// submitted: s's names, nbformat, source, saved time and release record.
func (ns *Submission) KeepFileOf(s *Submission) {
	ns.File, ns.Name, ns.NBFormat, ns.source = s.File, s.Name, s.NBFormat, s.source
	// The submitted file's own time, not the re-run's: for the duplicate
	// rule it is still the file the learner saved then.
	ns.SavedAt, ns.SavedAtFrom, ns.savedAt, ns.record = s.SavedAt, s.SavedAtFrom, s.savedAt, s.record
}

// Fail makes s ungradable, for the reason u, with no score.
func (s *Submission) Fail(u *notebook.Ungradable) *Submission {
	s.Gradable = false
	s.ReasonCode, s.Reason, s.ReasonDetail = u.Code, u.Msg, ""
	s.Scores, s.Total, s.Pending, s.Max = nil, 0, 0, 0
	s.StatusLine = "无法评分：" + u.Msg
	return s
}

func (s *Submission) add(x criteria.Score, learner string, c *card.Card) {
	s.Scores = append(s.Scores, x)
	// Totals stay rounded to 2 decimals (0.1 + 0.2 is not 0.3 in binary).
	s.Max = criteria.Round2(s.Max + x.Max)
	if x.Pending {
		s.Pending = criteria.Round2(s.Pending + x.Max)
		text := criteria.ManualText(x.ID, c)
		kw, hits := criteria.KeywordAssist(x.ID, text)
		s.Manual = append(s.Manual, ManualItem{Learner: learner, ID: x.ID, Title: x.Title, Text: text, Max: x.Max, Keyword: kw, Keywords: hits})
		return
	}
	s.Total = criteria.Round2(s.Total + x.Points)
}

// withholdOwnVariant is for a notebook without a valid release record whose
// file or folder name says one learner and whose LMS download name another
// (a signed record decides outright: record.go). Its numbers may fit the
// named learner's variant perfectly: whether the work is the submitter's
// own is for the instructor to decide. So it is an
// integrity warning, and the own-variant points wait for review in the
// manual queue (manual-review.csv takes a score for them like for free
// text). note tells the instructor, in Chinese, who is who.
func (s *Submission) withholdOwnVariant(f integrity.Finding, note string) {
	s.Integrity = append(s.Integrity, f)
	i := slices.IndexFunc(s.Scores, func(x criteria.Score) bool { return x.ID == criteria.OwnVariantID })
	if i < 0 || s.Scores[i].Pending {
		return
	}
	x := &s.Scores[i]
	s.Total = criteria.Round2(s.Total - x.Points)
	s.Pending = criteria.Round2(s.Pending + x.Max)
	x.Points, x.Pending, x.Status = 0, true, card.NeedsHuman
	x.Message = fmt.Sprintf("文件名说的学习者和提交这份笔记本的 LMS 账号不是同一位：这一项的 %s 分等老师核对后再定。", criteria.FmtPts(x.Max))
	s.Manual = append(s.Manual, ManualItem{Learner: s.Learner, ID: criteria.OwnVariantID, Title: x.Title, Text: note, Max: x.Max})
	s.StatusLine = s.statusLine()
}

func (s *Submission) statusLine() string {
	var pub, pubPass, hid, hidPass int
	for _, x := range s.Scores {
		switch x.Kind {
		case criteria.KindPublic:
			pub++
			if x.Status == card.Pass {
				pubPass++
			}
		case criteria.KindHidden:
			hid++
			if x.Status == card.Pass {
				hidPass++
			}
		}
	}
	line := fmt.Sprintf("自动评分 %s/%s 分；公开检查 %d/%d 通过，隐藏检查 %d/%d 通过", criteria.FmtPts(s.Total), criteria.FmtPts(s.Max), pubPass, pub, hidPass, hid)
	// Say each waiting part for what it is: the own-variant check waiting
	// for review is not a text question.
	var text, own float64
	for _, x := range s.Scores {
		switch {
		case !x.Pending:
		case x.ID == criteria.OwnVariantID:
			own += x.Max
		default:
			text += x.Max
		}
	}
	if text > 0 {
		line += fmt.Sprintf("；另有 %s 分的文字题等待老师阅读", criteria.FmtPts(text))
	}
	if own > 0 {
		line += fmt.Sprintf("；另有 %s 分的检查“%s”等待老师核对", criteria.FmtPts(own), criteria.OwnVariantTitle)
	}
	return line
}

// AddExecution adds the execution score (never pending: an environment
// failure scores 0 with its reason, and the batch says to re-run) and the
// run's notes, and refreshes the status line.
func (s *Submission) AddExecution(x criteria.Score, notes ...integrity.Finding) {
	s.Scores = append(s.Scores, x)
	s.Max = criteria.Round2(s.Max + x.Max)
	s.Total = criteria.Round2(s.Total + x.Points)
	s.Integrity = append(s.Integrity, notes...)
	s.StatusLine = s.statusLine()
}

// typedDetail begins the Detail of a score a person typed (SetManual).
const typedDetail = "manual score from "

// Typed is the points a person gave s (manual-review scores merged in)
// and the maximum of those criteria; the rest of Total is automatic.
func (s *Submission) Typed() (points, max float64) {
	for _, x := range s.Scores {
		if !x.Pending && strings.HasPrefix(x.Detail, typedDetail) {
			points += x.Points
			max += x.Max
		}
	}
	return criteria.Round2(points), criteria.Round2(max)
}

// Automatic is the points the grader gave s and their maximum: Total and
// Max without what a person typed and without what still waits for one.
func (s *Submission) Automatic() (points, max float64) {
	tp, tm := s.Typed()
	return criteria.Round2(s.Total - tp), criteria.Round2(s.Max - tm - s.Pending)
}

// SetManual gives criterion i the score a person typed, from (a place in
// the manual-review file) saying where.
func (s *Submission) SetManual(i int, score float64, from string) {
	x := &s.Scores[i]
	x.Pending = false
	x.Points = criteria.Round2(score)
	x.Status = card.Fail
	if x.Points >= x.Max {
		x.Status = card.Pass
	}
	x.Message = fmt.Sprintf("老师已阅读评分：%s/%s 分。", criteria.FmtPts(x.Points), criteria.FmtPts(x.Max))
	x.Detail = typedDetail + from
	s.Total = criteria.Round2(s.Total + x.Points)
	s.Pending = criteria.Round2(s.Pending - x.Max)
	s.StatusLine = s.statusLine()
	manual := 0.0
	for _, y := range s.Scores {
		if y.Kind == criteria.KindManual && strings.HasPrefix(y.Detail, typedDetail) {
			manual += y.Points
		}
	}
	// The total now holds points a person gave: say so.
	if rest, ok := strings.CutPrefix(s.StatusLine, "自动评分 "); ok {
		head, tail, _ := strings.Cut(rest, "；")
		s.StatusLine = "得分 " + head + fmt.Sprintf("（其中文字题由老师评 %s 分）；", criteria.FmtPts(manual)) + tail
	}
}

// SetManualZeroWeight is SetManual for criterion i while its weight is 0:
// it counts 0, and the learner reads the score as typed (typed of
// typedMax) and that the criterion does not count at a weight of 0.
func (s *Submission) SetManualZeroWeight(i int, typed, typedMax, from string) {
	s.SetManual(i, 0, from)
	s.Scores[i].Message = fmt.Sprintf("老师已阅读，按满分 %s 分评了 %s 分；这一项本次权重为 0，不计入成绩。", typedMax, typed)
}

// Release record states (Submission.record).
const (
	RecordNone = iota
	RecordVerified
	RecordInvalid
)

// Where a submission's saved time comes from (Submission.SavedAtFrom).
const (
	SavedBySelfCheck = "selfcheck"      // the self-check's checked_at, in the card payload
	SavedByExecution = "cell_execution" // the latest cell execution time in the cell metadata
	SavedByZipEntry  = "zip_entry"      // the modification time an LMS download gives the entry
)

// setSaved records the submission's saved time if it has none yet.
func (s *Submission) setSaved(t time.Time, from string) {
	if t.IsZero() || s.SavedAt != "" {
		return
	}
	s.savedAt = t.UTC()
	s.SavedAt, s.SavedAtFrom = s.savedAt.Format(time.RFC3339), from
}

// Warning is a batch-level note for the instructor: Text, in English, for
// the command line's stderr like its other messages; Zh, in Chinese, for
// summary.md and class.html.
type Warning struct {
	Text string `json:"text"`
	Zh   string `json:"zh"`
}

func (w Warning) String() string { return w.Text }

// Detailed is a long warning as a short headline and detail lines, Text
// and Zh each holding theirs joined by "\n" (Lines splits them): stderr
// indents the detail lines under the headline, summary.md and summary.html
// list them under it, class.html breaks the cell's line. A roster mismatch
// then reads as a few short lines instead of one of 600 characters.
func Detailed(headEn, headZh string, detailsEn, detailsZh []string) Warning {
	return Warning{Text: strings.Join(append([]string{headEn}, detailsEn...), "\n"),
		Zh: strings.Join(append([]string{headZh}, detailsZh...), "\n")}
}

// Lines splits a warning's text (Text or Zh) into its headline and its
// detail lines (none for a one-line warning).
func Lines(text string) (head string, details []string) {
	head, rest, ok := strings.Cut(text, "\n")
	if !ok {
		return head, nil
	}
	return head, strings.Split(rest, "\n")
}

// Warnf is a warning with the same arguments in both languages.
func Warnf(zh string, text string, a ...any) Warning {
	return Warning{Text: fmt.Sprintf(text, a...), Zh: fmt.Sprintf(zh, a...)}
}

// Override is an instructor's decision on a score, from the overrides
// file: the points, the reason (shown to the learner) and where it was
// written (FILE:LINE).
type Override struct {
	Points float64 `json:"points"`
	Max    float64 `json:"max"`
	Reason string  `json:"reason"`
	From   string  `json:"from"`
}

// OverrideZh is how a learner's feedback introduces an instructor's
// decision on a score.
const OverrideZh = "老师的决定："

// OverrideDetail marks the Detail of a criterion an instructor set by an
// override (after typedDetail, so that Typed counts it as a person's).
const OverrideDetail = " (instructor override)"

// SetOverride gives criterion i the points the instructor decided, with
// the reason, replacing what the grader gave it; from says where
// (FILE:LINE). The learner's feedback shows it as the instructor's
// decision, with what the grader had given.
func (s *Submission) SetOverride(i int, points float64, reason, from string) {
	x := &s.Scores[i]
	was := x.Points
	s.Total = criteria.Round2(s.Total - was + points)
	x.Points = criteria.Round2(points)
	x.Status = card.Fail
	if x.Points >= x.Max {
		x.Status = card.Pass
	}
	x.Message = fmt.Sprintf("%s%s/%s 分（自动评分给的是 %s 分）。理由：%s", OverrideZh, criteria.FmtPts(x.Points), criteria.FmtPts(x.Max), criteria.FmtPts(was), reason)
	x.Detail = typedDetail + from + OverrideDetail
	s.StatusLine = s.statusLine()
}

// OverrideTotal gives a file that could not be graded (a compile error,
// ...) the total the instructor decided, out of max (the rubric's), with
// the reason; from says where (FILE:LINE). It stays ungradable: its
// reason is still what the learner reads first.
func (s *Submission) OverrideTotal(points, max float64, reason, from string) {
	s.Override = &Override{Points: criteria.Round2(points), Max: max, Reason: reason, From: from}
	s.Total, s.Max = s.Override.Points, max
}
