package grade

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Criterion kinds.
const (
	KindPublic = "public" // the self-check's criteria, recomputed
	KindHidden = "hidden" // grader-only criteria
	KindManual = "manual" // free text: read by a person
)

// OwnVariantID is the hidden criterion that the card's numbers come from
// the learner's own variant.
const OwnVariantID = "hidden.own_variant"

const OwnVariantTitle = "数字来自发给你的那一份 trace"

// ManualIDs are the public criteria whose answer is free text.
var ManualIDs = map[string]bool{
	"stream.aggregation": true, "text.counter_evidence": true, "text.outputs": true, "text.denominator": true,
	"text.uncertain": true,
}

// DefaultPoints is the rubric: points per criterion id. Numbers and the
// path map weigh more than the stated definitions; free text is read by a
// person; copying someone else's numbers costs the most of any hidden row.
func DefaultPoints() map[string]float64 {
	p := map[string]float64{}
	for _, id := range card.CriterionIDs() {
		switch {
		case strings.HasPrefix(id, "map."), strings.HasPrefix(id, "figures."):
			p[id] = 2
		case ManualIDs[id] && id != "stream.aggregation" && id != "text.uncertain":
			p[id] = 2
		default:
			p[id] = 1
		}
	}
	for _, id := range card.HiddenIDs() {
		p[id] = 1
	}
	p[OwnVariantID] = 3
	return p
}

// CriterionIDs is every graded criterion in report order: public (manual
// ones included, in place), then hidden, then the own-variant check.
func CriterionIDs() []string {
	return append(append(card.CriterionIDs(), card.HiddenIDs()...), OwnVariantID)
}

// Score is one criterion's grade.
type Score struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Kind   string      `json:"kind"`
	Status card.Status `json:"status"`
	Points float64     `json:"points"`
	Max    float64     `json:"max"`
	// Pending is true for free text waiting for a person; Points is 0 until then.
	Pending bool `json:"pending,omitempty"`
	// Message is learner-facing (Chinese) and never holds an expected value.
	Message string `json:"message,omitempty"`
	// Detail is for the instructor only: never written to learner feedback
	// or results.json.
	Detail string `json:"detail,omitempty"`
}

// Finding is one integrity observation.
type Finding struct {
	Code string `json:"code"`
	// Warn findings fail the integrity check; info findings are notes.
	Warn    bool   `json:"warn"`
	Message string `json:"message"` // learner-facing, Chinese
	Detail  string `json:"detail,omitempty"`
}

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
	// SupersededBy names the learner's file that was graded instead of
	// this one (see the duplicate rule, Batch).
	SupersededBy string `json:"superseded_by,omitempty"`
	// RecordOf is, for a notebook handed in by another account than its
	// signed release record's (ReasonNotOwn), the record's learner.
	RecordOf string `json:"record_of,omitempty"`
	// Gradable is false when Reason says why nothing could be graded.
	Gradable   bool    `json:"gradable"`
	ReasonCode string  `json:"reason_code,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	NBFormat   string  `json:"nbformat,omitempty"`
	Scores     []Score `json:"scores,omitempty"`
	// Total is the automatic score; Pending is the points waiting for a
	// person; Max counts every criterion.
	Total     float64      `json:"total"`
	Pending   float64      `json:"pending"`
	Max       float64      `json:"max"`
	Integrity []Finding    `json:"integrity,omitempty"`
	Manual    []ManualItem `json:"manual,omitempty"`
	// Mistakes are the unit's typical mistakes recognised from the card's
	// numbers (Mistake* codes), for the class report.
	Mistakes []string `json:"mistakes,omitempty"`
	// StatusLine is the honest one-line summary, in Chinese.
	StatusLine string `json:"status_line"`

	source []byte     // the submitted bytes, kept for re-execution (Options.KeepSource)
	card   *card.Card // the graded card: the card cell's source when it can be read
	saved  *card.Card // the card in the saved self-check output

	record  int       // release record: RecordNone, RecordVerified or RecordInvalid
	savedAt time.Time // SavedAt, parsed
	// lmsNum and lmsWho are the LMS account that handed the file in, as its
	// Canvas or Moodle name says: the user number and the person's name
	// ("" for other names); see markLMSAccounts.
	lmsNum, lmsWho string
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
func (s *Submission) Score(id string) (Score, bool) {
	for _, x := range s.Scores {
		if x.ID == id {
			return x, true
		}
	}
	return Score{}, false
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

// Options configure a Grader.
type Options struct {
	Key    []byte
	Roster *Roster
	// Points is the rubric (nil: DefaultPoints()).
	Points map[string]float64
	// MaxBytes caps the bytes read per submission (0: DefaultMaxBytes).
	MaxBytes int64
	// Public is the unit's public teaching trace (optional): a card with
	// its numbers is the worked example, not the learner's own work.
	Public []byte
	// KeepSource keeps each submission's bytes for ExecuteAll, and adds the
	// execution criterion to the rubric (DefaultExecutionPoints unless
	// Points names it).
	KeepSource bool
}

// Grader grades submissions against the learners' variants. It is safe
// for concurrent use.
type Grader struct {
	o Options

	once     sync.Once
	variants map[string]*variantInfo // by learner id
	others   []*variantInfo          // every variant, plus the public trace
	initErr  error
	off      offRoster // variants of learners only a signed record names
}

type variantInfo struct {
	who string // learner id, or "" for the public trace
	t   *trace.Trace
	sha string
	fp  Fingerprint

	sumOnce sync.Once
	sum     *metrics.Summary
	refOnce sync.Once
	ref     *mistakeRef
}

// summary is the variant's metrics summary, computed on first use: only
// learners who submitted need it.
func (v *variantInfo) summary() *metrics.Summary {
	v.sumOnce.Do(func() { v.sum = SummaryOf(v.t) })
	return v.sum
}

// NewGrader checks the options; a missing key or roster is an error before
// any grading starts.
func NewGrader(o Options) (*Grader, error) {
	if len(o.Key) < MinKeyBytes {
		return nil, fmt.Errorf("grade: key shorter than %d bytes", MinKeyBytes)
	}
	if o.Roster == nil || len(o.Roster.Learners) == 0 {
		return nil, errors.New("grade: empty roster")
	}
	if o.Points == nil {
		o.Points = DefaultPoints()
	}
	if _, ok := o.Points[ExecutionID]; o.KeepSource && !ok {
		o.Points = maps.Clone(o.Points) // the caller's rubric stays as given
		o.Points[ExecutionID] = DefaultExecutionPoints
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return &Grader{o: o}, nil
}

// Points is the rubric in use.
func (g *Grader) Points() map[string]float64 { return g.o.Points }

// Options are the options in use, defaults filled in.
func (g *Grader) Options() Options { return g.o }

// Prepare regenerates every learner's variant (the copy check compares a
// card with all of them) and reads the public trace. Grading calls it on
// first use; call it first to get its error before any grading starts.
func (g *Grader) Prepare() error { return g.prepare() }

func (g *Grader) prepare() error {
	g.once.Do(func() {
		g.variants = map[string]*variantInfo{}
		ls := g.o.Roster.Learners
		infos := make([]*variantInfo, len(ls))
		errs := make([]error, len(ls))
		var wg sync.WaitGroup
		sem := make(chan struct{}, runtime.GOMAXPROCS(0))
		for i, l := range ls {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				b, err := Variant(g.o.Key, l.ID)
				if err == nil {
					infos[i], err = newVariantInfo(l.ID, b)
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		for i, l := range ls {
			if errs[i] != nil {
				g.initErr = fmt.Errorf("variant of %s: %w", l.ID, errs[i])
				return
			}
			g.variants[l.ID] = infos[i]
			g.others = append(g.others, infos[i])
		}
		if len(g.o.Public) > 0 {
			pub, err := newVariantInfo("", g.o.Public)
			if err != nil {
				g.initErr = fmt.Errorf("public trace: %w", err)
				return
			}
			g.others = append(g.others, pub)
		}
	})
	return g.initErr
}

func newVariantInfo(who string, b []byte) (*variantInfo, error) {
	t, err := trace.Read(bytes.NewReader(b), VariantTraceName)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &variantInfo{who: who, t: t, sha: hex.EncodeToString(sum[:]), fp: fingerprintOf(t)}, nil
}

// whose names who each prepared trace with this sha256 belongs to: a
// learner id, or "" for the public trace.
func (g *Grader) whose(sha string) []string {
	var out []string
	for _, o := range g.others {
		if o.sha == sha {
			out = append(out, o.who)
		}
	}
	return out
}

func SummaryOf(t *trace.Trace) *metrics.Summary {
	return metrics.Summarize(t, metrics.Options{SLOsMS: []float64{1000, 500}})
}

// GradeFile reads path (at most MaxBytes) and grades it.
func (g *Grader) GradeFile(path string) *Submission {
	b, err := ReadFileLimited(path, g.o.MaxBytes)
	if err != nil {
		s := &Submission{File: filepath.Base(path), Name: displayName(path), Learner: g.learnerFromName(path)}
		var u *Ungradable
		errors.As(err, &u)
		return s.Fail(u)
	}
	return g.Grade(path, b)
}

func (s *Submission) Fail(u *Ungradable) *Submission {
	s.Gradable = false
	s.ReasonCode, s.Reason = u.Code, u.Msg
	s.Scores, s.Total, s.Pending, s.Max = nil, 0, 0, 0
	s.StatusLine = "无法评分：" + u.Msg
	return s
}

// Grade grades one submission held in data; name is its path as collected
// (its base name or folder may be the learner id). It never returns nil and
// never panics on bad input: anything it cannot grade comes back with
// Gradable false and a reason.
func (g *Grader) Grade(name string, data []byte) (sub *Submission) {
	return g.grade(name, data, "")
}

// grade is Grade; account names who handed the file in when a platform
// said so (GradeAs), "" when name does (its base name or folder).
func (g *Grader) grade(name string, data []byte, account string) (sub *Submission) {
	// Known by name up front, so that even an ungradable file lands in
	// its learner's row of grades.csv.
	sub = &Submission{File: filepath.Base(name), Name: displayName(name), Learner: g.learnerFromName(name)}
	defer func() {
		if r := recover(); r != nil { // a bug must not end the batch
			sub.Fail(NewUngradable(ReasonInternal, "评分程序读这份提交时出错（%v），请老师人工查看。", r))
		}
	}()
	if int64(len(data)) > g.o.MaxBytes {
		return sub.Fail(NewUngradable(ReasonTooLarge, "文件超过 %d 字节的上限（多半是输出太大）：请清除大图表的输出后重新运行自检再提交。", g.o.MaxBytes))
	}
	if err := g.prepare(); err != nil {
		return sub.Fail(NewUngradable(ReasonVariantFailed, "无法重新生成 trace：%v", err))
	}
	nb, err := ParseNotebook(data)
	if err != nil {
		return sub.Fail(err.(*Ungradable))
	}
	sub.NBFormat = nb.Version()
	if a := nb.Assignment; a != nil {
		sub.record = RecordInvalid
		if a.Verify(g.o.Key) {
			sub.record = RecordVerified
		}
	}
	sub.setSaved(nb.ExecutedAt, SavedByExecution)
	learner, submitter, u := g.identify(name, nb)
	if u != nil {
		sub.Learner = ""
		return sub.Fail(u)
	}
	sub.Learner = learner
	if submitter != "" { // the record decides: not the submitter's own work
		if account == "" {
			account = "folder " + submitter + "/"
			if strings.TrimSuffix(sub.File, filepath.Ext(sub.File)) == submitter {
				account = "file name " + sub.File
			}
		}
		return NotOwn(sub, learner, submitter, account)
	}
	if g.o.KeepSource { // kept from here on: --execute can also run a notebook whose self-check never ran
		sub.source = data
	}
	own, err := g.variantOf(learner)
	if err != nil {
		return sub.Fail(NewUngradable(ReasonVariantFailed, "无法重新生成 trace：%v", err))
	}

	payloads, u := FindPayloads(nb)
	if u != nil {
		return sub.Fail(u)
	}
	if len(payloads) > 0 { // the self-check's own time comes first
		if t, err := time.Parse(time.RFC3339, payloads[0].Payload.CheckedAt); err == nil {
			sub.SavedAt = ""
			sub.setSaved(t, SavedBySelfCheck)
		}
	}
	var cardCells []*Cell
	for i := range nb.Cells {
		if nb.Cells[i].Role == RoleCard {
			cardCells = append(cardCells, &nb.Cells[i])
		}
	}
	if len(cardCells) > 1 {
		return sub.Fail(NewUngradable(ReasonTwoCards, "笔记本里有 %d 个口径卡单元格；只保留一个口径卡单元格，重新运行自检后再提交。", len(cardCells)))
	}
	distinct := map[string]bool{}
	for _, p := range payloads {
		distinct[string(p.Raw)] = true
	}
	if len(distinct) > 1 {
		return sub.Fail(NewUngradable(ReasonTwoCards, "输出里有 %d 张不同的口径卡；只保留一个自检单元格，从口径卡单元格开始重新运行后再提交。", len(distinct)))
	}
	if len(payloads) == 0 {
		if len(cardCells) == 1 {
			return sub.Fail(NewUngradable(ReasonSelfCheck, "没有找到自检输出：请运行最后的自检单元格，保存后再提交。评分程序不运行你的代码，它读口径卡单元格里的代码来评分；自检的输出用来确认自检运行过：没有它，要等老师重新运行这份笔记本才能评分。"))
		}
		return sub.Fail(NewUngradable(ReasonNoCard, "笔记本里没有口径卡：既没有口径卡单元格，也没有自检输出。是不是交错了文件？"))
	}
	var cardCell *Cell
	if len(cardCells) == 1 {
		cardCell = cardCells[0]
	}
	if cardCell == nil {
		cardCell = FindCardCellBySource(nb)
	}
	// The card cell's source is the card; the saved output stands in only
	// when the source cannot be read (see integrity for the finding).
	src := CardSource{Cell: cardCell}
	c := payloads[0].Payload.Card
	if cardCell != nil {
		if src.Card, src.Err = CardFromSource(cardCell.Source); src.Err == nil {
			c = src.Card
		}
	}
	sub.card, sub.saved = c, payloads[0].Payload.Card

	rep := card.Check(c, own.t)
	hidden := card.HiddenChecks(c, own.t)
	s := own.summary()
	sub.Gradable = true
	for _, r := range rep.Results {
		sub.add(ScorePublic(g.o.Points, r, c, s), learner, c)
	}
	for _, r := range hidden {
		sub.add(ScoreHidden(g.o.Points, r), learner, c)
	}
	ov, from := g.ownVariant(c, own)
	sub.add(ov, learner, c)
	sub.Mistakes = g.mistakesOf(c, own, payloads[0].Payload.Trace.SHA256, from)
	sub.Integrity = Check(g.o.Key, nb, learner, payloads, src, own.t, own.sha, g.whose, rep)
	if !g.o.Roster.Has(learner) {
		sub.Integrity = append(sub.Integrity, notOnRosterFinding(learner))
	}
	sub.StatusLine = sub.statusLine()
	return sub
}

// displayName is how outputs name a collected file: its path as given
// with forward slashes, or its base name when that path is absolute (no
// machine path in any output).
func displayName(name string) string {
	if filepath.IsAbs(name) {
		return filepath.Base(name)
	}
	return filepath.ToSlash(filepath.Clean(name))
}

// learnerFromName is the learner a collected file belongs to by its base
// name or its folder (LMS downloads name one or the other), or "".
func (g *Grader) learnerFromName(name string) string {
	base := filepath.Base(name)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if g.o.Roster.Has(stem) {
		return stem
	}
	if dir := filepath.Base(filepath.Dir(name)); dir != "." && g.o.Roster.Has(dir) {
		return dir
	}
	return ""
}

// identify finds whose submission this is: the file's base name or its
// folder as collected, else the signed release record. The record decides
// whose work it is (see record.go): when the name says one learner and a
// record the key verifies names another, the notebook is the record's
// learner's, and submitter is the learner the name says handed it in.
func (g *Grader) identify(name string, nb *Notebook) (learner, submitter string, u *Ungradable) {
	// A verified record names a learner the key released to, on the
	// roster or not (an out-of-date roster is the instructor's to fix).
	signed := ""
	if a := nb.Assignment; a != nil && a.Verify(g.o.Key) && ValidID.MatchString(a.Learner) {
		signed = a.Learner
	}
	if id := g.learnerFromName(name); id != "" {
		if signed != "" && signed != id {
			return signed, id, nil
		}
		return id, "", nil
	}
	if signed != "" {
		return signed, "", nil
	}
	if a := nb.Assignment; a != nil && a.Learner != "" {
		return "", "", NewUngradable(ReasonUnknown, "这份笔记本的发放记录写的是 %q，但签名对不上，名单里也找不到提交者：请老师核对这份文件是谁交的。", a.Learner)
	}
	return "", "", NewUngradable(ReasonUnknown, "认不出这份文件是谁的：名单里没有和文件名或文件夹对应的学习者，笔记本里也没有发放记录。请老师核对。")
}

func (s *Submission) add(x Score, learner string, c *card.Card) {
	s.Scores = append(s.Scores, x)
	// Totals stay rounded to 2 decimals (0.1 + 0.2 is not 0.3 in binary).
	s.Max = Round2(s.Max + x.Max)
	if x.Pending {
		s.Pending = Round2(s.Pending + x.Max)
		text := ManualText(x.ID, c)
		kw, hits := KeywordAssist(x.ID, text)
		s.Manual = append(s.Manual, ManualItem{Learner: learner, ID: x.ID, Title: x.Title, Text: text, Max: x.Max, Keyword: kw, Keywords: hits})
		return
	}
	s.Total = Round2(s.Total + x.Points)
}

// withholdOwnVariant is for a notebook without a valid release record whose
// file or folder name says one learner and whose LMS download name another
// (a signed record decides outright: record.go). Its numbers may fit the
// named learner's variant perfectly: whether the work is the submitter's
// own is for the instructor to decide. So it is an
// integrity warning, and the own-variant points wait for review in the
// manual queue (manual-review.csv takes a score for them like for free
// text). note tells the instructor, in Chinese, who is who.
func (s *Submission) withholdOwnVariant(f Finding, note string) {
	s.Integrity = append(s.Integrity, f)
	i := slices.IndexFunc(s.Scores, func(x Score) bool { return x.ID == OwnVariantID })
	if i < 0 || s.Scores[i].Pending {
		return
	}
	x := &s.Scores[i]
	s.Total = Round2(s.Total - x.Points)
	s.Pending = Round2(s.Pending + x.Max)
	x.Points, x.Pending, x.Status = 0, true, card.NeedsHuman
	x.Message = fmt.Sprintf("文件名说的学习者和提交这份笔记本的 LMS 账号不是同一位：这一项的 %s 分等老师核对后再定。", FmtPts(x.Max))
	s.Manual = append(s.Manual, ManualItem{Learner: s.Learner, ID: OwnVariantID, Title: x.Title, Text: note, Max: x.Max})
	s.StatusLine = s.statusLine()
}

func (s *Submission) statusLine() string {
	var pub, pubPass, hid, hidPass int
	for _, x := range s.Scores {
		switch x.Kind {
		case KindPublic:
			pub++
			if x.Status == card.Pass {
				pubPass++
			}
		case KindHidden:
			hid++
			if x.Status == card.Pass {
				hidPass++
			}
		}
	}
	line := fmt.Sprintf("自动评分 %s/%s 分；公开检查 %d/%d 通过，隐藏检查 %d/%d 通过", FmtPts(s.Total), FmtPts(s.Max), pubPass, pub, hidPass, hid)
	// Say each waiting part for what it is: the own-variant check waiting
	// for review is not a text question.
	var text, own float64
	for _, x := range s.Scores {
		switch {
		case !x.Pending:
		case x.ID == OwnVariantID:
			own += x.Max
		default:
			text += x.Max
		}
	}
	if text > 0 {
		line += fmt.Sprintf("；另有 %s 分的文字题等待老师阅读", FmtPts(text))
	}
	if own > 0 {
		line += fmt.Sprintf("；另有 %s 分的检查“%s”等待老师核对", FmtPts(own), OwnVariantTitle)
	}
	return line
}

func FmtPts(v float64) string {
	v = math.Round(v*100) / 100
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// ---- scoring ----

// ScorePublic is the score of public criterion r of card c, given points
// (the rubric) and s, the summary of the learner's own variant: full
// points for a pass, partial credit for a near miss, and free text left
// pending for a person.
func ScorePublic(points map[string]float64, r card.Result, c *card.Card, s *metrics.Summary) Score {
	x := Score{ID: r.ID, Title: r.Title, Kind: KindPublic, Status: r.Status, Max: points[r.ID], Message: r.Hint}
	if ManualIDs[r.ID] {
		x.Kind = KindManual
		if strings.TrimSpace(ManualText(r.ID, c)) != "" {
			x.Pending = true
			x.Status = card.NeedsHuman
			if r.Status == card.Fail {
				x.Message = "关键词预检没有找到相关内容：" + r.Hint + "（老师仍会阅读你的答案。）"
			} else {
				x.Message = "文字题，等待老师阅读评分。"
			}
		}
		return x
	}
	switch r.Status {
	case card.Pass:
		x.Points = x.Max
	case card.Fail:
		if f, why, ok := partial(r.ID, c, s); ok {
			if f >= 1 { // our bands agree, the exact check does not: half credit
				f, why = 0.5, "数值都接近复算结果，但没有通过精确核对（看上面的提示），给一半"
			}
			x.Points = Round2(f * x.Max)
			if x.Points > 0 {
				x.Message += fmt.Sprintf("（部分得分 %s/%s：%s。）", FmtPts(x.Points), FmtPts(x.Max), why)
			}
			x.Detail = fmt.Sprintf("partial credit %.2f", f)
		}
	}
	return x
}

// ScoreHidden is the score of hidden criterion r, given points (the rubric).
func ScoreHidden(points map[string]float64, r card.Result) Score {
	x := Score{ID: r.ID, Title: r.Title, Kind: KindHidden, Status: r.Status, Max: points[r.ID], Message: r.Hint}
	if r.Status == card.Pass {
		x.Points = x.Max
	}
	return x
}

func Round2(v float64) float64 { return math.Round(v*100) / 100 }

// Fingerprint is what tells variants apart on a card: window length,
// success P95 and cost at 1 s, qualified counts at 1 s and 0.5 s.
type Fingerprint [5]float64

func TraceFingerprint(s *metrics.Summary) Fingerprint {
	fp := Fingerprint{s.WindowS, math.NaN(), float64(s.Conditions[0].Qualified), float64(s.Conditions[1].Qualified), math.NaN()}
	if s.TTFT.P95 != nil {
		fp[1] = *s.TTFT.P95
	}
	if s.Conditions[0].CostPer1000 != nil {
		fp[4] = *s.Conditions[0].CostPer1000
	}
	return fp
}

// fingerprintOf is the trace's fingerprint, computed through metrics like
// every other number the grader compares.
func fingerprintOf(t *trace.Trace) Fingerprint {
	return TraceFingerprint(metrics.Summarize(t, metrics.Options{SLOsMS: []float64{1000, 500}}))
}

func CardFingerprint(c *card.Card) Fingerprint {
	fp := Fingerprint{c.Window.Seconds, math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	conds := CondsBySLO(c)
	if a := conds[0]; a != nil {
		fp[1], _ = ToMS(a.P95)
		fp[2] = float64(a.Qualified)
		fp[4] = a.CostPer1000.Value
	}
	if b := conds[1]; b != nil {
		fp[3] = float64(b.Qualified)
	}
	return fp
}

// Matches counts the fingerprint components that agree within the card's
// tolerances; distinctive is true when the two rare ones (P95 and cost,
// dozens of values each) both agree. Window and counts take a handful of
// values, so agreeing on them alone proves nothing.
func (a Fingerprint) Matches(b Fingerprint) (n int, distinctive bool) {
	for i := range a {
		if agree(i, a[i], b[i]) {
			n++
		}
	}
	return n, agree(1, a[1], b[1]) && agree(4, a[4], b[4])
}

// agree compares fingerprint component i: window in s, P95 in ms within
// 5 ms, counts exactly, cost within 1 %.
func agree(i int, x, want float64) bool {
	if !finiteF(x) || !finiteF(want) {
		return false
	}
	tol := 0.0
	switch i {
	case 0:
		tol = 1e-6
	case 1:
		tol = 5
	case 4:
		tol = math.Max(0.01, 0.01*math.Abs(want))
	}
	return math.Abs(x-want) <= tol
}

func boolF(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func finiteF(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Stated reports whether a card's fingerprint holds enough figures to say
// which trace they come from: both rare ones (P95 and cost) and at least
// one more. A blank card states none, and "no copy detected" on it would
// mean nothing.
func (a Fingerprint) Stated() bool {
	n := 0
	for _, v := range a {
		if finiteF(v) && v != 0 {
			n++
		}
	}
	return n >= 3 && finiteF(a[1]) && a[1] != 0 && finiteF(a[4]) && a[4] != 0
}

// ownVariant fails a card whose numbers fit another trace (another
// learner's variant or the public example) better than the learner's own,
// and a card that does not state the key figures at all. Numbers that fit
// no trace are just wrong: the public rows grade them.
//
// from is the trace the numbers were copied from (who "" is the public
// trace), nil when they were not.
func (g *Grader) ownVariant(c *card.Card, own *variantInfo) (x Score, from *variantInfo) {
	x = Score{ID: OwnVariantID, Title: OwnVariantTitle, Kind: KindHidden, Status: card.Pass, Max: g.o.Points[OwnVariantID]}
	fp := CardFingerprint(c)
	if !fp.Stated() {
		x.Status = card.Fail
		x.Message = "口径卡还没有写出能看出数字来源的关键数字（1 s 门槛下的 P95、成本，以及窗口长度或合格数）：写出你复算的数字后，这一项才能核对。"
		return x, nil
	}
	mine, _ := fp.Matches(own.fp)
	best, who := 0, ""
	for _, o := range g.others {
		if o == own {
			continue
		}
		if m, rare := fp.Matches(o.fp); rare && m > best {
			best, who, from = m, o.who, o
		}
	}
	// A copy agrees with another trace on the rare figures and on at
	// least two more key figures than with the learner's own. An honest
	// slip changes one or two figures, and lands on another learner's
	// exact numbers only by a rare coincidence.
	if best >= 4 && best-mine >= 2 {
		whose := who + " 的 trace"
		if who == "" {
			whose = "课程公开示例的 trace"
		}
		x.Status = card.Fail
		x.Message = "口径卡上的数字与发给你的那一份 trace 对不上，却与另一份 trace 高度吻合。请用发给你的 trace（笔记本旁边的 trace.jsonl）重新计算。"
		x.Detail = fmt.Sprintf("口径卡的 5 项关键数字中有 %d 项与%s吻合，与本人的 trace 只有 %d 项吻合。", best, whose, mine)
		return x, from
	}
	x.Points = x.Max
	return x, nil
}

// ---- partial credit ----

// CondsBySLO is the card's conditions for 1 s and 0.5 s, nil where missing.
func CondsBySLO(c *card.Card) [2]*card.Condition {
	var out [2]*card.Condition
	for i, slo := range []float64{1000, 500} {
		for j := range c.Conditions {
			if ms, ok := ToMS(c.Conditions[j].SLO); ok && math.Abs(ms-slo) <= 5 {
				out[i] = &c.Conditions[j]
				break
			}
		}
	}
	return out
}

// ToMS reads a time figure in ms; without a time unit, a small value is
// taken as seconds (ok is false either way, for the unit rows).
func ToMS(f card.Figure) (float64, bool) {
	u := strings.ToLower(strings.TrimSpace(f.Unit))
	switch u {
	case "s", "sec", "second", "seconds", "秒":
		return f.Value * 1000, true
	case "ms", "msec", "millisecond", "milliseconds", "毫秒":
		return f.Value, true
	}
	if f.Value < 50 {
		return f.Value * 1000, false
	}
	return f.Value, false
}

func perSecond(f card.Figure) float64 {
	u := strings.ToLower(f.Unit)
	if strings.Contains(u, "min") || strings.Contains(u, "分钟") {
		return f.Value / 60
	}
	return f.Value
}

// band is the tolerance band of a number: 1 within the exact check's
// tolerance, 0.5 within 10 %, else 0.
func band(got, want, abs float64) float64 {
	if !finiteF(got) {
		return 0
	}
	d := math.Abs(got - want)
	switch {
	case d <= math.Max(0.01*math.Abs(want), abs):
		return 1
	case d <= 0.10*math.Abs(want):
		return 0.5
	}
	return 0
}

// ratioBand: the counts themselves → 1; the right value from other
// numbers (reduced, percent as 20/100) → 0.5.
func ratioBand(r card.Ratio, num, den float64) float64 {
	if r.Num == num && r.Den == den {
		return 1
	}
	if r.Den != 0 && den != 0 && math.Abs(r.Num/r.Den-num/den) < 1e-9 {
		return 0.5
	}
	return 0
}

// partial is the partial credit of a failed criterion in [0,1] and why,
// in Chinese (never an expected value); ok is false for criteria that are
// all or nothing. Numbers are scored per condition (half each) by
// tolerance band, the path map by its structure.
func partial(id string, c *card.Card, s *metrics.Summary) (f float64, why string, ok bool) {
	conds := CondsBySLO(c)
	// perCond scores each of the two conditions and says how each did:
	// words[1] for a full half, words[0.5] for half of it, words[0] else.
	perCond := func(words map[float64]string, score func(c *card.Condition, want *metrics.Condition) float64) (float64, string, bool) {
		t := 0.0
		var parts []string
		for i, cc := range conds {
			slo := []string{"1 s", "0.5 s"}[i]
			if cc == nil {
				parts = append(parts, slo+" 门槛：没有这个条件")
				continue
			}
			v := score(cc, &s.Conditions[i])
			t += v / 2
			parts = append(parts, slo+" 门槛："+words[v])
		}
		return t, "两个门槛条件各占一半；" + strings.Join(parts, "；"), true
	}
	bandWords := map[float64]string{1: "与复算一致", 0.5: "接近复算值（相差在 10% 以内），得这一半的一半", 0: "与复算相差太多或没有填写"}
	ratioWords := map[float64]string{1: "分子和分母都对", 0.5: "比值对，但分子分母不是实际的计数，得这一半的一半", 0: "比值不对或没有填写"}
	countWords := map[float64]string{1: "与复算一致", 0: "与复算不一致"}
	switch id {
	case "figures.p95":
		if s.TTFT.P95 == nil {
			return 0, "", true
		}
		return perCond(bandWords, func(c *card.Condition, _ *metrics.Condition) float64 {
			ms, _ := ToMS(c.P95)
			return band(ms, *s.TTFT.P95, 5)
		})
	case "figures.failure_rate":
		return perCond(ratioWords, func(c *card.Condition, _ *metrics.Condition) float64 {
			return ratioBand(c.FailureRate, float64(s.Failures), float64(s.Attempts))
		})
	case "figures.qualified":
		return perCond(countWords, func(c *card.Condition, w *metrics.Condition) float64 {
			return boolF(int64(c.Qualified) == w.Qualified)
		})
	case "figures.qualified_rate":
		return perCond(ratioWords, func(c *card.Condition, w *metrics.Condition) float64 {
			return ratioBand(c.QualifiedRate, w.QualifiedRate.Num, w.QualifiedRate.Den)
		})
	case "figures.goodput":
		return perCond(bandWords, func(c *card.Condition, w *metrics.Condition) float64 {
			return band(perSecond(c.Goodput), w.GoodputPerS, 1e-3)
		})
	case "figures.cost":
		return perCond(bandWords, func(c *card.Condition, w *metrics.Condition) float64 {
			if w.CostPer1000 == nil {
				return boolF(c.CostPer1000.Value == 0)
			}
			return band(c.CostPer1000.Value, *w.CostPer1000, 0.01)
		})
	case "map.steps":
		p := c.Path
		named := map[string]bool{}
		for _, st := range p.Steps {
			if n := strings.TrimSpace(st.Name); n != "" {
				named[n] = true
			}
		}
		// The release pre-fills the task: it counts only with steps of the learner's own.
		task := len(named) > 0 && (p.Task == card.TrainingTask || p.Task == card.InferenceTask)
		f = 0.75 * float64(min(len(named), 4)) / 4
		why = fmt.Sprintf("有名字的步骤 %d 个（四个才满分）", len(named))
		if task {
			f += 0.25
			why = "选定了任务；" + why
		}
		return f, why, true
	case "map.marks":
		var d, dev, o, fl bool
		for _, st := range c.Path.Steps {
			d = d || strings.TrimSpace(st.Data) != ""
			dev = dev || strings.TrimSpace(st.Device) != ""
			o = o || strings.TrimSpace(st.Output) != ""
			fl = fl || strings.TrimSpace(st.Failure) != ""
		}
		var have, lack []string
		for _, m := range []struct {
			ok   bool
			name string
		}{{d, "数据"}, {dev, "设备"}, {o, "输出"}, {fl, "失败点"}} {
			if m.ok {
				have = append(have, m.name)
			} else {
				lack = append(lack, m.name)
			}
		}
		why = "四种标注各占四分之一；已标出：" + strings.Join(have, "、") + "；还缺：" + strings.Join(lack, "、")
		return (boolF(d) + boolF(dev) + boolF(o) + boolF(fl)) / 4, why, true
	case "map.sampling":
		sp := strings.TrimSpace(c.Path.SamplingPoint)
		if sp == "" || strings.Contains(sp, "监控") || strings.Contains(strings.ToLower(sp), "monitor") {
			return 0, "", true
		}
		return 0.5, "写了一个具体的采样位置，但它不是路径图上某个步骤的名字", true // a concrete point, but not a step of the map
	}
	return 0, "", false
}

// ---- free text ----

func ManualText(id string, c *card.Card) string {
	switch id {
	case "stream.aggregation":
		return c.Streaming.Aggregation
	case "text.counter_evidence":
		return c.CounterEvidence
	case "text.denominator":
		return c.DenominatorError
	case "text.uncertain":
		return c.Uncertain
	case "text.outputs":
		if strings.TrimSpace(c.Outputs.Training) == "" && strings.TrimSpace(c.Outputs.Inference) == "" {
			return ""
		}
		return "训练：" + c.Outputs.Training + "\n推理：" + c.Outputs.Inference
	}
	return ""
}

// keywordGroups: the ideas a good answer tends to name. The assist score
// is the share of groups named; it orders the reader's queue, nothing more.
var keywordGroups = map[string][][]string{
	"text.counter_evidence": {{"排队", "队列", "queue"}, {"超时", "timeout"}, {"ttft", "首字", "首 token", "首个 token"}, {"失败", "fail", "错误"}, {"时间线", "timeline", "等待", "wait"}},
	"text.denominator":      {{"分母", "denominator"}, {"全部尝试", "所有尝试", "全部请求", "attempt", "10 次"}, {"失败", "fail"}, {"删", "成功请求", "成功的请求", "只在成功"}, {"假结论", "错误结论", "为零", "0/", "误"}},
	"text.outputs":          {{"检查点", "checkpoint", "参数", "权重", "weight", "模型状态"}, {"回答", "响应", "response", "请求", "request"}, {"质量", "quality", "合格"}, {"更新", "update", "梯度"}, {"等待", "失败", "时延", "延迟", "latency"}},
	"stream.aggregation":    {{"事件", "event"}, {"间隔", "interval", "itl"}, {"相邻"}, {"分位", "p95", "p50", "nearest", "中位", "平均"}, {"成功"}},
	"text.uncertain":        {{"不确定", "不清楚", "不知道", "是否", "unsure"}, {"样本", "窗口", "条件", "版本", "p95"}, {"证据", "验证", "记录", "需要"}},
}

func KeywordAssist(id, text string) (float64, []string) {
	groups := keywordGroups[id]
	if len(groups) == 0 {
		return 0, nil
	}
	low := strings.ToLower(text)
	var hits []string
	for _, g := range groups {
		for _, w := range g {
			if strings.Contains(low, w) {
				hits = append(hits, w)
				break
			}
		}
	}
	return Round2(float64(len(hits)) / float64(len(groups))), hits
}

// ---- batches ----

// GradeAll grades paths on every core and returns the submissions in the
// order of paths. Each finished submission prints one progress line to
// progress (if not nil). One bad file never stops the batch.
func (g *Grader) GradeAll(paths []string, progress io.Writer) []*Submission {
	out := make([]*Submission, len(paths))
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s := g.GradeFile(p)
			out[i] = s
			if progress != nil {
				mu.Lock()
				done++
				fmt.Fprintf(progress, "grade: [%d/%d] %s: %s\n", done, len(paths), p, progressLine(s))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

func progressLine(s *Submission) string {
	if !s.Gradable {
		return "ungradable (" + s.ReasonCode + ")"
	}
	l := fmt.Sprintf("%s %s/%s", s.Learner, FmtPts(s.Total), FmtPts(s.Max))
	if s.Pending > 0 {
		l += fmt.Sprintf(" (+%s pending manual review)", FmtPts(s.Pending))
	}
	if !s.IntegrityOK() {
		l += " [integrity]"
	}
	return l
}
