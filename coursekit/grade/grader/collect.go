package grader

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Reason codes of collect.
const (
	ReasonBadZip = "bad_zip" // a zip that cannot be opened
)

// FindLMSOtherLearner: the LMS name names another learner than the file
// or folder name the submission was graded by (it has no valid release
// record: a signed one decides, see record.go).
const FindLMSOtherLearner = "lms_name_other_learner"

// Input is one submission to grade: a notebook file, or a notebook entry
// of a zip (an LMS bulk download).
type Input struct {
	Path  string // the notebook file, or the zip holding Entry
	Entry string // the entry's name inside the zip; "" for a file
	// Rel is the file's path under the folder argument it was found in
	// ("" for a file or zip named directly).
	Rel   string
	named bool // named on the command line: a symlink to it is followed
	zf    *zip.File
	fail  *notebook.Ungradable // the input cannot be read at all (a corrupt zip)
}

// String names the input for progress lines: PATH, or ZIP:ENTRY, as
// safetext.Name shows it (invalid UTF-8 as U+FFFD, control codes escaped).
func (in Input) String() string {
	if in.Entry == "" {
		return safetext.Name(in.Path)
	}
	return safetext.Name(in.Path + ":" + in.Entry)
}

// Display names the input in outputs, with no machine path: REL (or the
// base name), or ZIP:ENTRY with the zip's base name, as safetext.Name
// shows it.
func (in Input) Display() string {
	base := filepath.Base(in.Path)
	if in.Rel != "" {
		base = filepath.ToSlash(in.Rel)
	}
	if in.Entry == "" {
		return safetext.Name(base)
	}
	return safetext.Name(base + ":" + in.Entry)
}

// Collection is what Collect found.
type Collection struct {
	Inputs []Input
	// Notes say what was skipped and why, for the instructor: entries
	// that are not notebooks, checkpoints and macOS metadata in zips.
	Notes   []Warning
	closers []io.Closer
}

// Close closes the zips the inputs read from.
func (c *Collection) Close() error {
	var errs []error
	for _, z := range c.closers {
		errs = append(errs, z.Close())
	}
	c.closers = nil
	return errors.Join(errs...)
}

// Collect expands the grade command's arguments into inputs, in a stable
// order: a notebook file is itself; a directory is the .ipynb and .zip
// files under it (hidden folders and Jupyter checkpoints skipped); a .zip
// is every .ipynb entry in it, nested folders included. In a zip,
// __MACOSX, .ipynb_checkpoints and "._" files are skipped and anything
// else that is not a notebook is ignored; Notes lists both (the first
// ListMax names of each list, then how many more). A zip that cannot be
// opened is one input that grades as ungradable (ReasonBadZip).
//
// A file found in a directory is read only if it is a regular file: a
// symlink, FIFO, device or socket is never followed or opened for
// reading, and grades as ungradable (notebook.ReasonNotRegular) in the
// row of the learner its name says. A file or zip named as an argument
// may be a symlink (the instructor made it) to a regular file.
// The error is for an argument that does not exist.
func Collect(args []string) (*Collection, error) {
	c := &Collection{}
	for _, p := range args {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			c.add(p, "", true)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && path != p && (strings.HasPrefix(d.Name(), ".") || d.Name() == "__MACOSX") {
				return filepath.SkipDir
			}
			ext := strings.ToLower(filepath.Ext(path))
			if !d.IsDir() && (ext == ".ipynb" || ext == ".zip") {
				found = append(found, path)
			} else if d.Type()&fs.ModeSymlink != 0 {
				// A learner's folder that is a symlink is not walked into: it is one input
				// that grades as not_regular_file in the row its name says (read refuses it
				// unread, as it does a symlinked file), not a silent "no submission".
				if st, err := os.Stat(path); err == nil && st.IsDir() {
					found = append(found, path)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			rel, err := filepath.Rel(p, f)
			if err != nil {
				rel = filepath.Base(f)
			}
			c.add(f, rel, false)
		}
	}
	c.disambiguate()
	return c, nil
}

// MaxZipUncompressedBytes caps the sum of the uncompressed sizes a zip's entries declare (every
// entry, notebook or not): 1 GiB, over a hundred notebooks at the per-notebook cap
// (notebook.DefaultMaxBytes). A zip over it is refused whole, unread (notebook.ReasonTooLarge).
const MaxZipUncompressedBytes = 1 << 30

// disambiguate gives inputs that would be shown under one name (sub1/s03.ipynb
// and sub2/s03.ipynb are both "s03.ipynb" under their folders) their
// folder argument's name in front, so that every warning and row tells
// them apart ("sub1/s03.ipynb", "sub2/s03.ipynb").
func (c *Collection) disambiguate() {
	n := map[string]int{}
	for _, in := range c.Inputs {
		n[in.Display()]++
	}
	for i, in := range c.Inputs {
		if n[in.Display()] < 2 || in.Rel == "" {
			continue
		}
		// Path is the folder argument joined with Rel (filepath.Rel of it).
		root := strings.TrimSuffix(filepath.ToSlash(in.Path), "/"+filepath.ToSlash(in.Rel))
		if root == filepath.ToSlash(in.Path) {
			continue
		}
		c.Inputs[i].Rel = filepath.Join(filepath.Base(filepath.FromSlash(root)), in.Rel)
	}
}

// ListMax is how many names a warning lists before it says how many
// more there are: a zip of 100,000 stray files gives a short warning.
const ListMax = 20

// firstNames is the first ListMax of names joined with sep, then, when
// there are more, more(k) for the k not listed.
func firstNames(names []string, sep string, more func(k int) string) string {
	if len(names) <= ListMax {
		return strings.Join(names, sep)
	}
	return strings.Join(names[:ListMax], sep) + more(len(names)-ListMax)
}

// add adds the file or zip p; named is true for a command-line argument
// (a symlink to it is followed), false for a file found in a folder.
func (c *Collection) add(p, rel string, named bool) {
	if !strings.EqualFold(filepath.Ext(p), ".zip") {
		c.Inputs = append(c.Inputs, Input{Path: p, Rel: rel, named: named})
		return
	}
	open := regfile.Open
	if named {
		open = regfile.OpenNamed
	}
	zname := safetext.Name(filepath.Base(p))
	fh, st, err := open(p)
	if nr := (*regfile.NotRegularError)(nil); errors.As(err, &nr) {
		c.Inputs = append(c.Inputs, Input{Path: p, Rel: rel, fail: notebook.NotRegular(filepath.Base(p), nr.Mode)})
		return
	}
	var z *zip.Reader
	if err == nil {
		if z, err = zip.NewReader(fh, st.Size()); err != nil {
			fh.Close()
		}
	}
	if err != nil {
		c.Inputs = append(c.Inputs, Input{Path: p, Rel: rel, fail: notebook.NewUngradable(ReasonBadZip, "压缩包 %s 损坏或不是 zip 文件，里面的提交一份也读不出来（%v）。请重新下载或重新打包。", zname, err)})
		return
	}
	// The sizes an entry declares bound what it inflates to (archive/zip refuses more), so their
	// sum bounds the zip's work: a small zip whose entries all point at one large deflate stream
	// is refused here, at once, rather than inflated entry after entry for minutes.
	var total uint64
	for _, f := range z.File {
		total += f.UncompressedSize64
	}
	if total > MaxZipUncompressedBytes {
		fh.Close()
		c.Inputs = append(c.Inputs, Input{Path: p, Rel: rel, fail: notebook.NewUngradable(notebook.ReasonTooLarge,
			"压缩包 %s 里的文件解压后合计 %d 字节，超过 %d 字节的上限（一个压缩包解压后的总量）：一份也没有读。请分成几个较小的压缩包，或检查它是不是压缩炸弹。", zname, total, uint64(MaxZipUncompressedBytes))})
		c.Notes = append(c.Notes, Warnf("压缩包 %s 解压后合计 %d 字节，超过上限 %d 字节，整个没有读",
			"%s: its entries inflate to %d bytes in all, over the cap of %d bytes per zip; not read", zname, total, uint64(MaxZipUncompressedBytes)))
		return
	}
	c.closers = append(c.closers, fh)
	var ignored, skipped, badUTF8 []string
	var entries []Input
	for _, f := range z.File {
		name := f.Name
		if strings.HasSuffix(name, "/") {
			continue // a folder
		}
		if !utf8.ValidString(name) {
			// Shown with U+FFFD everywhere; the warning gives the bytes.
			badUTF8 = append(badUTF8, safetext.Line(name))
			name = strings.ToValidUTF8(name, "\uFFFD")
		}
		parts := strings.Split(path.Clean(strings.ReplaceAll(name, "\\", "/")), "/")
		base := parts[len(parts)-1]
		switch {
		case slices.Contains(parts, "__MACOSX") || slices.Contains(parts, ".ipynb_checkpoints") || strings.HasPrefix(base, "._"):
			skipped = append(skipped, name)
		case strings.EqualFold(path.Ext(base), ".ipynb"):
			entries = append(entries, Input{Path: p, Entry: name, Rel: rel, zf: f})
		default:
			ignored = append(ignored, safetext.Name(name))
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Entry < entries[j].Entry })
	c.Inputs = append(c.Inputs, entries...)
	if len(entries) == 0 {
		c.Notes = append(c.Notes, Warnf("压缩包 %s 里没有 .ipynb 笔记本", "%s: no .ipynb entries", zname))
	}
	if len(ignored) > 0 {
		c.Notes = append(c.Notes, Warning{
			Text: fmt.Sprintf("%s: ignored %s: %s", zname, lang.N(lang.EN, len(ignored), "entry that is not a notebook", "entries that are not notebooks"),
				firstNames(ignored, ", ", func(k int) string { return fmt.Sprintf(", … and %d more", k) })),
			Zh: fmt.Sprintf("压缩包 %s 里有 %d 个不是笔记本的文件，没有评分：%s", zname, len(ignored),
				firstNames(ignored, "、", func(k int) string { return fmt.Sprintf("……另有 %d 个", k) }))})
	}
	if len(skipped) > 0 {
		c.Notes = append(c.Notes, Warnf("压缩包 %s 里跳过了 %d 个 macOS 或 Jupyter 检查点文件（__MACOSX、._*、.ipynb_checkpoints）",
			"%s: skipped %d macOS or Jupyter checkpoint entries (__MACOSX, ._*, .ipynb_checkpoints)", zname, len(skipped)))
	}
	if len(badUTF8) > 0 {
		c.Notes = append(c.Notes, Warning{
			Text: fmt.Sprintf("%s: %d entry names are not valid UTF-8 and are shown with U+FFFD in every output; their bytes: %s", zname, len(badUTF8),
				firstNames(badUTF8, ", ", func(k int) string { return fmt.Sprintf(", … and %d more", k) })),
			Zh: fmt.Sprintf("压缩包 %s 里有 %d 个文件名不是合法的 UTF-8，各处输出里的乱码字节显示为 U+FFFD（�）；原始字节：%s", zname, len(badUTF8),
				firstNames(badUTF8, "、", func(k int) string { return fmt.Sprintf("……另有 %d 个", k) }))})
	}
}

// read reads the input, at most max bytes. A zip entry whose declared size
// is over the cap is refused before reading; while reading, the cap holds
// whatever the entry declared (a zip bomb can lie). An entry whose mode
// says it is a symlink (its data is the link's target), a FIFO or a device
// is refused as a file on disk would be, unread.
func (in Input) read(max int64) ([]byte, error) {
	if in.zf == nil {
		if in.named {
			return notebook.ReadNamedFileLimited(in.Path, max)
		}
		return notebook.ReadFileLimited(in.Path, max)
	}
	if m := in.zf.Mode(); !m.IsRegular() {
		return nil, notebook.NotRegular(path.Base(in.Entry), m)
	}
	if in.zf.UncompressedSize64 > uint64(max) {
		return nil, notebook.NewUngradable(notebook.ReasonTooLarge, "压缩包里的这个文件解压后有 %d 字节，超过 %d 字节的上限（多半是输出太大）：请清除大图表的输出后重新运行自检再提交。", in.zf.UncompressedSize64, max)
	}
	rc, err := in.zf.Open()
	if err != nil {
		return nil, notebook.NewUngradable(notebook.ReasonUnreadable, "压缩包里的这个文件读不出来：%v", err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, notebook.NewUngradable(notebook.ReasonUnreadable, "压缩包里的这个文件已损坏，或解压出来的内容与压缩包记录的大小、校验和不符（%v）：请重新打包后再提交。", err)
	}
	if int64(len(b)) > max {
		return nil, notebook.NewUngradable(notebook.ReasonTooLarge, "压缩包里的这个文件超过 %d 字节的上限（多半是输出太大）：请清除大图表的输出后重新运行自检再提交。", max)
	}
	return b, nil
}

// lmsName is the input's name as an LMS download gave it: the zip entry,
// else its path under the folder given (its base name for a file named
// directly), never a machine path.
func (in Input) lmsName() string {
	switch {
	case in.Entry != "":
		return in.Entry
	case in.Rel != "":
		return in.Rel
	}
	return filepath.Base(in.Path)
}

// name is what Grade is told the input is called: its path (the file's
// base name or its folder may be the learner id), or its name in the zip.
func (in Input) name() string {
	if in.Entry == "" {
		return in.Path
	}
	return in.Entry
}

// GradeInputs grades inputs on every core, like GradeAll, and returns the
// submissions in the order of ins; each one prints a progress line to
// progress (if not nil). Whose submission it is comes from the file or
// folder name (a learner id), else the signed release record, else an
// LMS download name (Canvas file, Moodle folder) through the roster's
// lms_id column; see GradeCollected.
func (g *Grader) GradeInputs(ins []Input, progress io.Writer) []*Submission {
	return gradeEach(len(ins), func(i int) string { return ins[i].String() }, func(i int) *Submission { return g.gradeInput(ins[i]) }, progress)
}

func (g *Grader) gradeInput(in Input) *Submission {
	s := g.gradeInputData(in)
	s.Name = in.Display()
	s.lmsNum, s.lmsWho = roster.LMSAccount(in.lmsName())
	if in.zf != nil { // an LMS download: the entry's time, if the notebook has none
		s.setSaved(in.zf.Modified, SavedByZipEntry)
	}
	return s
}

func (g *Grader) gradeInputData(in Input) *Submission {
	name := in.name()
	if in.fail != nil {
		return (&Submission{File: filepath.Base(in.Path)}).Fail(in.fail)
	}
	b, err := in.read(g.o.MaxBytes)
	if err != nil {
		s := &Submission{File: path.Base(filepath.ToSlash(name)), Learner: g.learnerFromName(name)}
		m := g.o.Roster.MatchLMSName(name)
		if s.Learner == "" {
			s.Learner = m.ID
		}
		var u *notebook.Ungradable
		if !errors.As(err, &u) {
			u = notebook.NewUngradable(notebook.ReasonUnreadable, "读不了这个文件：%v", err)
		}
		s = s.Fail(u)
		noteAmbiguousLMSName(s, m)
		s.Late = roster.CanvasLate(name)
		return s
	}
	s := g.GradeCollected(name, b)
	s.Late = roster.CanvasLate(name)
	return s
}

// GradeCollected grades data collected under name, as Grade does, and
// then, when name is an LMS download name of a known learner (by lms_id,
// or by name: see Roster.MatchLMSName; a name two learners share is a
// FindLMSNameAmbiguous finding, never a guess):
// grades it as that learner's if nothing else said whose it is; puts an
// ungradable one in that learner's row; and adds a warning finding when
// the signed release record names someone else than the LMS did.
func (g *Grader) GradeCollected(name string, data []byte) *Submission {
	s := g.Grade(name, data)
	m := g.o.Roster.MatchLMSName(name)
	lms, num := m.ID, m.Num
	if lms == "" || s.ReasonCode == ReasonNotOwn {
		noteAmbiguousLMSName(s, m)
		return s
	}
	how := "LMS lms_id " + num
	if m.ByName {
		how = fmt.Sprintf("LMS name %q (account %s; the roster has no lms_id for it)", m.Person, num)
	}
	s.NameSays = "" // the LMS account says who handed it in, not a file or folder name
	switch {
	case !s.Gradable && s.ReasonCode == notebook.ReasonUnknown:
		s = g.GradeAs(lms, name, data)
	case s.Learner == "":
		s.Learner = lms
	case s.Learner != lms && s.record == RecordVerified && m.ByName:
		// Only the roster's name column says whose account this is: a
		// name typed in a roster is no better evidence than a file name,
		// so the batch decides, as for one (package batch, markNamedFiles).
		s.NameSays = lms
	case s.Learner != lms && s.record == RecordVerified && g.rosterTypo(s.Learner, lms, name):
		// The account's LMS name is the record's learner's, not the
		// learner the roster's lms_id gives: a roster mistake, not a copy.
		// The batch says what counted for both (batch.noteRosterTypos).
		s.rosterSays = lms
		_, person := roster.LMSAccount(name)
		s.Integrity = append(s.Integrity, integrity.Finding{Code: FindRosterMismatch, Private: true,
			Message: fmt.Sprintf("名单可能有误：这份笔记本从 LMS 账号 %s（%s）交上来，名单的 lms_id 说这个账号是 %s 的，但账号的名字和签名的发放记录都是 %s：按 %[4]s 的作业评分。请核对名单的 lms_id 列。", num, person, lms, s.Learner),
			Detail:  fmt.Sprintf("roster lms_id %s is %s's, but the LMS name %q and the signed release record are %s's: graded as %[4]s's; check the roster's lms_id column", num, lms, person, s.Learner)})
	case s.Learner != lms && s.record == RecordVerified && (!g.lmsNamedAs(lms, name) || g.lmsNamedAs(s.Learner, name)):
		// Only the roster's lms_id says the account is lms's: the name
		// the LMS wrote is not theirs (a pinyin "zhengqiang" for a roster
		// name 郑强, a nickname), or is the record's learner's too (two
		// learners named 李娜). An lms_id typed into a roster is no
		// better evidence than a name typed there: the batch decides, as
		// for a file name (package batch, markNamedFiles). A record that
		// came in only here is a roster mismatch, not a copy.
		s.NameSays, s.nameByLMSID = lms, true
	case s.Learner != lms && s.record == RecordVerified:
		return NotOwn(s, s.Learner, lms, how)
	case s.Learner != lms: // no valid record: the file or folder name said s.Learner
		f := integrity.Finding{Code: FindLMSOtherLearner, Warn: true,
			Message: "文件名（或文件夹名）说的学习者和 LMS 记录的提交者不是同一位，笔记本里也没有有效的发放记录：按文件名评分，“数字来自你的 trace”一项等老师核对。",
			Detail:  fmt.Sprintf("LMS name has lms_id %s = %s; graded as %s by the file or folder name", num, lms, s.Learner)}
		if s.Gradable {
			s.withholdOwnVariant(f, fmt.Sprintf("文件名（或文件夹名）说的是 %s，LMS 记录的提交者是 %s，没有有效的发放记录：请核对这是不是提交者本人的作业。", s.Learner, lms))
		} else {
			s.Integrity = append(s.Integrity, f)
		}
	}
	return s
}

// FindLMSNameAmbiguous: an LMS download name whose account number the
// roster's lms_id column does not have fits more than one roster learner
// by name (two learners of the same name): it was not matched (never a
// guess). An instructor-only finding; the batch warns, naming the folder
// or file.
const FindLMSNameAmbiguous = "lms_name_ambiguous"

// noteAmbiguousLMSName gives s the FindLMSNameAmbiguous finding when m, its
// LMS name, fits more than one learner, saying what s was graded as.
func noteAmbiguousLMSName(s *Submission, m roster.LMSMatch) {
	if len(m.Ambiguous) == 0 {
		return
	}
	en, zh := "this file has no known learner: a row of its own", "这份文件认不出学习者，单独一行"
	switch {
	case s.Learner != "" && s.record == RecordVerified:
		en, zh = "graded as "+s.Learner+"'s by its signed release record", "按签名的发放记录计为 "+s.Learner+" 的作业"
	case s.Learner != "":
		en, zh = "graded as "+s.Learner+"'s by its file or folder name", "按文件名（或文件夹名）计为 "+s.Learner+" 的作业"
	}
	ids := strings.Join(m.Ambiguous, ", ")
	s.Integrity = append(s.Integrity, integrity.Finding{Code: FindLMSNameAmbiguous, Private: true,
		Message: fmt.Sprintf("LMS 下载名“%s”里的名字“%s”与名单上 %d 位学习者的名字相同（%s），名单里也没有账号 %s 的 lms_id：不按名字认人，不猜；%s。请在名单里给这个账号的学习者填上 lms_id %[5]s，再重新评分。", m.Part, m.Person, len(m.Ambiguous), strings.Join(m.Ambiguous, "、"), m.Num, zh),
		Detail:  fmt.Sprintf("the LMS name %q (%q, account %s) fits %d roster learners by name (%s), and the roster has no lms_id %[3]s: not matched by name, grade never guesses; %[6]s. Add lms_id %[3]s to the right learner's row and grade again", m.Part, m.Person, m.Num, len(m.Ambiguous), ids, en)})
}

// rosterTypo reports whether the LMS name that handed a file in names
// owner, the learner of its signed release record, by their roster name
// (or id, or email), and not byLMS, the learner the roster's lms_id gives
// the account: the roster has the wrong lms_id, and the work is owner's.
func (g *Grader) rosterTypo(owner, byLMS, name string) bool {
	_, person := roster.LMSAccount(name)
	o, ok1 := g.o.Roster.Learner(owner)
	l, ok2 := g.o.Roster.Learner(byLMS)
	return ok1 && ok2 && roster.NamedBy(o, person) && !roster.NamedBy(l, person)
}

// lmsNamedAs reports whether the LMS name that handed a file in names
// learner id by their roster name (or id, or email's local part): the LMS
// and the roster's lms_id agree on whose account it is.
func (g *Grader) lmsNamedAs(id, name string) bool {
	_, person := roster.LMSAccount(name)
	l, ok := g.o.Roster.Learner(id)
	return ok && roster.NamedBy(l, person)
}

// GradeAs grades data as learner's submission whatever its name says, for
// a platform that knows who submitted (Gradescope, an LMS download name).
// The release record is still checked against learner: a notebook
// released to someone else is an integrity warning.
func (g *Grader) GradeAs(learner, name string, data []byte) *Submission {
	if !g.o.Roster.Has(learner) {
		s := &Submission{File: path.Base(filepath.ToSlash(name))}
		return s.Fail(notebook.NewUngradable(notebook.ReasonUnknown, "名单里没有学习者 %q。", learner))
	}
	// Grade trusts a file named after a learner first: name it so.
	s := g.grade(filepath.Join(learner, learner+".ipynb"), data, "account "+learner)
	s.File = path.Base(filepath.ToSlash(name))
	return s
}
