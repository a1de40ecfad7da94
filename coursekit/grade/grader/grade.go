package grader

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/grade/secret"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Options configure a Grader.
type Options struct {
	Key    []byte
	Roster *roster.Roster
	// Points is the rubric (nil: DefaultPoints()).
	Points map[string]float64
	// MaxBytes caps the bytes read per submission (0: DefaultMaxBytes).
	MaxBytes int64
	// Public is the unit's public teaching trace (optional): a card with
	// its numbers is the worked example, not the learner's own work.
	Public []byte
	// KeepSource keeps each submission's bytes for re-execution (package
	// execute), and adds the execution criterion to the rubric
	// (criteria.DefaultExecutionPoints unless Points names it).
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
	// legacySHA is the sha256 of the same variant as releases before the
	// Chinese conditions wrote it ("" for the public trace): a self-check
	// in a class released then recorded it.
	legacySHA string
	fp        criteria.Fingerprint

	sumOnce sync.Once
	sum     *metrics.Summary
	refOnce sync.Once
	ref     *mistakeRef
}

// summary is the variant's metrics summary, computed on first use: only
// learners who submitted need it.
func (v *variantInfo) summary() *metrics.Summary {
	v.sumOnce.Do(func() { v.sum = criteria.SummaryOf(v.t) })
	return v.sum
}

// NewGrader checks the options; a missing key or roster is an error before
// any grading starts.
func NewGrader(o Options) (*Grader, error) {
	if len(o.Key) < secret.MinKeyBytes {
		return nil, fmt.Errorf("grade: key shorter than %d bytes", secret.MinKeyBytes)
	}
	if o.Roster == nil || len(o.Roster.Learners) == 0 {
		return nil, errors.New("grade: empty roster")
	}
	if o.Points == nil {
		o.Points = criteria.DefaultPoints()
	}
	if _, ok := o.Points[criteria.ExecutionID]; o.KeepSource && !ok {
		o.Points = maps.Clone(o.Points) // the caller's rubric stays as given
		o.Points[criteria.ExecutionID] = criteria.DefaultExecutionPoints
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = notebook.DefaultMaxBytes
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
		onEveryCore(len(ls), func(i int) {
			b, err := assign.Variant(g.o.Key, ls[i].ID)
			if err == nil {
				infos[i], err = newVariantInfo(ls[i].ID, b)
			}
			if err == nil {
				var old []byte
				if old, err = assign.LegacyVariant(g.o.Key, ls[i].ID); err == nil {
					sum := sha256.Sum256(old)
					infos[i].legacySHA = hex.EncodeToString(sum[:])
				}
			}
			errs[i] = err
		})
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
	t, err := trace.Read(bytes.NewReader(b), assign.VariantTraceName)
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
		if o.sha == sha || o.legacySHA != "" && o.legacySHA == sha {
			out = append(out, o.who)
		}
	}
	return out
}

// GradeFile reads path (at most MaxBytes) and grades it. A symlink
// path is followed (the caller named it); what it names must be a
// regular file.
func (g *Grader) GradeFile(path string) *Submission {
	b, err := notebook.ReadNamedFileLimited(path, g.o.MaxBytes)
	if err != nil {
		s := &Submission{File: filepath.Base(path), Name: displayName(path), Learner: g.learnerFromName(path)}
		var u *notebook.Ungradable
		errors.As(err, &u)
		return s.Fail(u)
	}
	return g.Grade(path, b)
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
			sub.Fail(notebook.NewUngradable(notebook.ReasonInternal, "评分程序读这份提交时出错（%v），请老师人工查看。", r))
		}
	}()
	if int64(len(data)) > g.o.MaxBytes {
		return sub.Fail(notebook.NewUngradable(notebook.ReasonTooLarge, "文件超过 %d 字节的上限（多半是输出太大）：请清除大图表的输出后重新运行自检再提交。", g.o.MaxBytes))
	}
	if err := g.prepare(); err != nil {
		return sub.Fail(notebook.NewUngradable(notebook.ReasonVariantFailed, "无法重新生成 trace：%v", err))
	}
	nb, err := notebook.ParseNotebook(data)
	if err != nil {
		return sub.Fail(err.(*notebook.Ungradable))
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
	switch {
	case submitter != "" && account != "": // the record decides: not the account's own work
		return NotOwn(sub, learner, submitter, account)
	case submitter != "": // only a name says who handed it in: the batch decides (NameSays)
		sub.NameSays = submitter
	}
	if g.o.KeepSource { // kept from here on: --execute can also run a notebook whose self-check never ran
		sub.source = data
	}
	own, err := g.variantOf(learner)
	if err != nil {
		return sub.Fail(notebook.NewUngradable(notebook.ReasonVariantFailed, "无法重新生成 trace：%v", err))
	}

	payloads, u := notebook.FindPayloads(nb)
	if u != nil {
		return sub.Fail(u)
	}
	if len(payloads) > 0 { // the self-check's own time comes first
		if t, err := time.Parse(time.RFC3339, payloads[0].Payload.CheckedAt); err == nil {
			sub.SavedAt = ""
			sub.setSaved(t, SavedBySelfCheck)
		}
	}
	var cardCells []*notebook.Cell
	for i := range nb.Cells {
		if nb.Cells[i].Role == notebook.RoleCard {
			cardCells = append(cardCells, &nb.Cells[i])
		}
	}
	if len(cardCells) > 1 {
		return sub.Fail(notebook.NewUngradable(notebook.ReasonTwoCards, "笔记本里有 %d 个口径卡单元格；只保留一个口径卡单元格，重新运行自检后再提交。", len(cardCells)))
	}
	distinct := map[string]bool{}
	for _, p := range payloads {
		distinct[string(p.Raw)] = true
	}
	if len(distinct) > 1 {
		return sub.Fail(notebook.NewUngradable(notebook.ReasonTwoCards, "输出里有 %d 张不同的口径卡；只保留一个自检单元格，从口径卡单元格开始重新运行后再提交。", len(distinct)))
	}
	if len(payloads) == 0 {
		if msg, ok := notebook.CompileError(nb); ok { // it ran, and did not compile
			return sub.Fail(notebook.NewUngradable(notebook.ReasonCompileError, "%s", msg))
		}
		if len(cardCells) == 1 {
			return sub.Fail(notebook.NewUngradable(notebook.ReasonSelfCheck, "没有找到自检输出：请运行最后的自检单元格，保存后再提交。评分程序不运行你的代码，它读口径卡单元格里的代码来评分；自检的输出用来确认自检运行过：没有它，要等老师重新运行这份笔记本才能评分。"))
		}
		return sub.Fail(notebook.NewUngradable(notebook.ReasonNoCard, "笔记本里没有口径卡：既没有口径卡单元格，也没有自检输出。是不是交错了文件？"))
	}
	var cardCell *notebook.Cell
	if len(cardCells) == 1 {
		cardCell = cardCells[0]
	}
	if cardCell == nil {
		cardCell = notebook.FindCardCellBySource(nb)
	}
	// The card cell's source is the card; the saved output stands in only
	// when the source cannot be read (see integrity for the finding).
	src := integrity.CardSource{Cell: cardCell}
	c := payloads[0].Payload.Card
	if cardCell != nil {
		if src.Card, src.Err = notebook.CardFromSource(cardCell.Source); src.Err == nil {
			c = src.Card
		}
	}
	sub.card, sub.saved = c, payloads[0].Payload.Card

	rep := card.Check(c, own.t)
	hidden := card.HiddenChecks(c, own.t)
	s := own.summary()
	sub.Gradable = true
	for _, r := range rep.Results {
		sub.add(criteria.ScorePublic(g.o.Points, r, c, s), learner, c)
	}
	for _, r := range hidden {
		sub.add(criteria.ScoreHidden(g.o.Points, r), learner, c)
	}
	ov, from := g.ownVariant(c, own)
	sub.add(ov, learner, c)
	sub.Mistakes = g.mistakesOf(c, own, payloads[0].Payload.Trace.SHA256, from)
	sub.Integrity = integrity.Check(g.o.Key, nb, learner, payloads, src, own.t, own.shas(), g.whose, rep)
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
func (g *Grader) identify(name string, nb *notebook.Notebook) (learner, submitter string, u *notebook.Ungradable) {
	// A verified record names a learner the key released to, on the
	// roster or not (an out-of-date roster is the instructor's to fix).
	signed := ""
	if a := nb.Assignment; a != nil && a.Verify(g.o.Key) && roster.ValidID.MatchString(a.Learner) {
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
		return "", "", notebook.NewUngradable(notebook.ReasonUnknown, "这份笔记本的发放记录写的是 %q，但签名对不上，名单里也找不到提交者：请老师核对这份文件是谁交的。", a.Learner)
	}
	return "", "", notebook.NewUngradable(notebook.ReasonUnknown, "认不出这份文件是谁的：名单里没有和文件名或文件夹对应的学习者，笔记本里也没有发放记录。请老师核对。")
}

// shas are the sha256 a self-check on this variant may have recorded: the
// current bytes, and the legacy ones if there are any.
func (v *variantInfo) shas() []string {
	if v.legacySHA == "" {
		return []string{v.sha}
	}
	return []string{v.sha, v.legacySHA}
}

// fingerprintOf is the trace's fingerprint, computed through metrics like
// every other number the grader compares.
func fingerprintOf(t *trace.Trace) criteria.Fingerprint {
	return criteria.TraceFingerprint(criteria.SummaryOf(t))
}

// ownVariant fails a card whose numbers fit another trace (another
// learner's variant or the public example) better than the learner's own,
// and a card that does not state the key figures at all. Numbers that fit
// no trace are just wrong: the public rows grade them.
//
// from is the trace the numbers were copied from (who "" is the public
// trace), nil when they were not.
func (g *Grader) ownVariant(c *card.Card, own *variantInfo) (x criteria.Score, from *variantInfo) {
	x = criteria.Score{ID: criteria.OwnVariantID, Title: criteria.OwnVariantTitle, Kind: criteria.KindHidden, Status: card.Pass, Max: g.o.Points[criteria.OwnVariantID]}
	fp := criteria.CardFingerprint(c)
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
		x.Detail = fmt.Sprintf("口径卡的 5 项关键数字中有 %d 项与 %s 吻合，与本人的 trace 只有 %d 项吻合。", best, whose, mine)
		return x, from
	}
	x.Points = x.Max
	return x, nil
}

// ---- batches ----

// GradeAll grades paths on every core and returns the submissions in the
// order of paths. Each finished submission prints one progress line to
// progress (if not nil). One bad file never stops the batch.
func (g *Grader) GradeAll(paths []string, progress io.Writer) []*Submission {
	return gradeEach(len(paths), func(i int) string { return paths[i] }, func(i int) *Submission { return g.GradeFile(paths[i]) }, progress)
}

// gradeEach grades items 0 to n-1 on every core and returns their
// submissions in that order; each finished one prints a progress line,
// naming the item, to progress (if not nil).
func gradeEach(n int, name func(i int) string, grade func(i int) *Submission, progress io.Writer) []*Submission {
	out := make([]*Submission, n)
	var mu sync.Mutex
	done := 0
	onEveryCore(n, func(i int) {
		s := grade(i)
		out[i] = s
		if progress != nil {
			mu.Lock()
			done++
			fmt.Fprintf(progress, "grade: [%d/%d] %s: %s\n", done, n, name(i), progressLine(s))
			mu.Unlock()
		}
	})
	return out
}

// onEveryCore runs f(0) to f(n-1), as many at once as there are cores,
// and returns when all are done.
func onEveryCore(n int, f func(i int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f(i)
		}()
	}
	wg.Wait()
}

func progressLine(s *Submission) string {
	if !s.Gradable {
		return "ungradable (" + s.ReasonCode + ")"
	}
	l := fmt.Sprintf("%s %s/%s", s.Learner, criteria.FmtPts(s.Total), criteria.FmtPts(s.Max))
	if s.Pending > 0 {
		l += fmt.Sprintf(" (+%s pending manual review)", criteria.FmtPts(s.Pending))
	}
	if !s.IntegrityOK() {
		l += " [integrity]"
	}
	return l
}
