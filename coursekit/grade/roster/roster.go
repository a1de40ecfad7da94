package roster

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/llmperf-course/course/coursekit/internal/csvhead"
	"github.com/llmperf-course/course/coursekit/internal/csvtext"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// Learner is one roster row.
type Learner struct {
	ID    string
	Name  string
	Email string
	// LMSID is the learner's number in the LMS (optional column lms_id):
	// Canvas and Moodle put it in the names of bulk-downloaded files.
	LMSID string
	// Extra is the row's other columns, as Roster.Columns names them.
	Extra []string
}

// Roster is the class list, in file order.
type Roster struct {
	Learners []Learner
	// Columns are the roster's columns other than the id (姓名, email,
	// lms_id, section ...), as headed, carried into grades.csv.
	Columns []string
	// Path and Encoding are the file ReadRosterFile read and, when it was
	// not UTF-8, the encoding it was decoded from (csvtext.GB18030): the
	// caller warns.
	Path, Encoding string
	index          map[string]int
	lms            map[string]int // by LMSID
}

// ValidID keeps learner ids usable as directory and file names.
var ValidID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`)

// ReadRoster reads a CSV with a header row and an id column ("id",
// "learner_id", "student_id" or "login"); "name", "email" and "lms_id"
// (or "lms_user_id": the number Canvas and Moodle put in downloaded file
// names) are optional. Errors are named "roster:LINE"; see
// ReadRosterNamed.
func ReadRoster(r io.Reader) (*Roster, error) { return ReadRosterNamed(r, "roster") }

// ReadRosterNamed is ReadRoster for a file called name in messages: every
// bad row is reported, each as NAME:LINE (a learner id that cannot name
// files, an id or lms_id twice, an lms_id that is not a number).
func ReadRosterNamed(r io.Reader, name string) (*Roster, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var rows [][]string
	var lines []int
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		rows, lines = append(rows, row), append(lines, line)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty; want a header row with an id column", name)
	}
	if err := csvhead.Check(rows[0]); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, lines[0], err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	idCol := -1
	for _, c := range []string{"id", "learner_id", "student_id", "login"} {
		if i, ok := col[c]; ok {
			idCol = i
			break
		}
	}
	if idCol < 0 {
		return nil, fmt.Errorf("%s:%d: no id column in header %q", name, lines[0], rows[0])
	}
	get := func(row []string, name string) string {
		if i, ok := col[name]; ok && i < len(row) {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	lmsCol := "lms_id"
	if _, ok := col[lmsCol]; !ok {
		lmsCol = "lms_user_id"
	}
	ro := &Roster{index: map[string]int{}, lms: map[string]int{}}
	type firstAt struct {
		id   string
		line int
	}
	folded := map[string]firstAt{} // lower-cased id → where first, for ids equal but for case
	var extraCols []int
	for i, h := range rows[0] {
		if i != idCol {
			extraCols = append(extraCols, i)
			ro.Columns = append(ro.Columns, strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		}
	}
	var errs []error
	idLine, lmsLine := map[string]int{}, map[string]int{}
	for n, row := range rows[1:] {
		line := lines[n+1]
		if len(row) == 0 || (len(row) == 1 && strings.TrimSpace(row[0]) == "") {
			continue
		}
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, a...)))
		}
		id := ""
		if idCol < len(row) {
			id = strings.TrimSpace(row[idCol])
		}
		if !ValidID.MatchString(id) {
			bad("learner id %q: use 1-64 letters, digits and . _ @ + - (it names files)", id)
			continue
		}
		if first, dup := idLine[id]; dup {
			bad("learner id %q appears twice (first on line %d)", id, first)
			continue
		}
		idLine[id] = line
		// Not the end of the row's checks: its lms_id is checked too, so
		// that every bad row is listed in one pass.
		if f, dup := folded[strings.ToLower(id)]; dup {
			bad("learner id %q differs from %q (line %d) only in case; ids name folders and files, which macOS and Windows match in any case: rename one", id, f.id, f.line)
		} else {
			folded[strings.ToLower(id)] = firstAt{id, line}
		}
		lms := get(row, lmsCol)
		if lms != "" {
			if !lmsIDPattern.MatchString(lms) {
				bad("%s %q: want the LMS's number for the learner (digits), as in its download file names", lmsCol, lms)
				continue
			}
			if j, dup := ro.lms[lms]; dup {
				bad("%s %q is also learner %q's (line %d)", lmsCol, lms, ro.Learners[j].ID, lmsLine[lms])
				continue
			}
			ro.lms[lms] = len(ro.Learners)
			lmsLine[lms] = line
		}
		ro.index[id] = len(ro.Learners)
		extra := make([]string, len(extraCols))
		for j, i := range extraCols {
			if i < len(row) {
				extra[j] = strings.TrimSpace(row[i])
			}
		}
		ro.Learners = append(ro.Learners, Learner{ID: id, Name: cmp.Or(get(row, "name"), get(row, "姓名")), Email: get(row, "email"), LMSID: lms, Extra: extra})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if len(ro.Learners) == 0 {
		return nil, fmt.Errorf("%s: no learners", name)
	}
	return ro, nil
}

// MaxFileBytes caps a roster file: a longer one, a FIFO or a device is
// refused unread, naming the file.
const MaxFileBytes = 64 << 20

// ReadRosterFile reads a roster CSV file; errors name it as given.
func ReadRosterFile(path string) (*Roster, error) {
	b, err := regfile.ReadNamed(path, "a roster", MaxFileBytes)
	if err != nil {
		return nil, err
	}
	text, enc, err := csvtext.Decode(b, path)
	if err != nil {
		return nil, err
	}
	ro, err := ReadRosterNamed(bytes.NewReader(text), path)
	if err != nil {
		return nil, err
	}
	ro.Path, ro.Encoding = path, enc
	return ro, nil
}

// NewRoster builds a roster from ids, for tests and tools.
func NewRoster(ids ...string) (*Roster, error) {
	var b strings.Builder
	b.WriteString("id\n")
	for _, id := range ids {
		b.WriteString(id + "\n")
	}
	return ReadRoster(strings.NewReader(b.String()))
}

// Has reports whether id is on the roster.
func (r *Roster) Has(id string) bool {
	_, ok := r.index[id]
	return ok
}

// Learner is the roster row of id.
func (r *Roster) Learner(id string) (Learner, bool) {
	i, ok := r.index[id]
	if !ok {
		return Learner{}, false
	}
	return r.Learners[i], true
}

// NamedBy reports whether person, a name as an LMS download writes it, is
// learner l: their roster name with its words in any rotation ("Emma
// Smith", "Smith Emma", Canvas's "smithemma"; "Smith, Mary Ann" and "Mary
// Ann Smith"), their id or their email's local part. Names are compared
// exactly on their letters and digits, in lower case and Unicode NFC (a
// zip made on a Mac writes "é" as two code points): never by likeness.
func NamedBy(l Learner, person string) bool {
	p := nameKey(person)
	if p == "" {
		return false
	}
	words := strings.FieldsFunc(norm.NFC.String(l.Name), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) })
	local, _, _ := strings.Cut(l.Email, "@")
	forms := []string{l.ID, local}
	for i := range words {
		forms = append(forms, strings.Join(append(slices.Clone(words[i:]), words[:i]...), ""))
	}
	return slices.ContainsFunc(forms, func(c string) bool { return nameKey(c) == p })
}

// nameKey is s as NamedBy compares it: NFC, letters (with their marks)
// and digits only, lower case.
func nameKey(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
			return unicode.ToLower(r)
		}
		return -1
	}, norm.NFC.String(s))
}

// ByEmail is the id of the learner with this email (case-insensitive), or "".
func (r *Roster) ByEmail(email string) string {
	email = strings.TrimSpace(email)
	if email == "" {
		return ""
	}
	for _, l := range r.Learners {
		if strings.EqualFold(l.Email, email) {
			return l.ID
		}
	}
	return ""
}

var (
	lmsIDPattern = regexp.MustCompile(`^[0-9]{1,20}$`)
	// Canvas: name_12345_67890_file.ipynb, or name_LATE_12345_67890_file.ipynb
	// (user id, then submission id, then the uploaded file name).
	canvasName = regexp.MustCompile(`^([^_]*?)_+(?:LATE_)?([0-9]+)_[0-9]+_.+$`)
	// Moodle: "Full Name_12345_assignsubmission_file_" (a folder per learner),
	// or the same prefix on the file name when downloaded without folders.
	moodleName = regexp.MustCompile(`^(.+)_([0-9]+)_assignsubmission_[a-z]+_`)
)

// canvasLate is a Canvas download name of a file handed in after the due
// date: name_LATE_12345_67890_file.ipynb.
var canvasLate = regexp.MustCompile(`^[^_]*?_+LATE_[0-9]+_[0-9]+_.+$`)

// CanvasLate reports whether any part of the path name is a Canvas
// download name marked late (_LATE_).
func CanvasLate(name string) bool {
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' || r == ':' }) {
		if canvasLate.MatchString(part) {
			return true
		}
	}
	return false
}

// FromLMSName is the learner an LMS bulk-download name belongs to (see
// MatchLMSName): the learner id and the LMS number, or "" for the id when
// the name follows neither pattern or names no roster learner exactly and
// unambiguously.
func (r *Roster) FromLMSName(name string) (id, lmsID string) {
	m := r.MatchLMSName(name)
	return m.ID, m.Num
}

// LMSMatch is whose a Canvas or Moodle download name is.
type LMSMatch struct {
	ID     string // the learner, "" when none can be told
	Num    string // the LMS account number in the name ("" when it has none)
	Person string // the person's name as the LMS wrote it
	Part   string // the part of the path that is the LMS name (a Moodle folder, a Canvas file)
	// ByName: matched by the person's name, not by the roster's lms_id.
	ByName bool
	// Ambiguous lists the roster learners the person's name fits when it
	// fits more than one: the name was not matched (never a guess).
	Ambiguous []string
}

// MatchLMSName is whose an LMS bulk-download name is: a Canvas file name
// or a Moodle folder (or file) name anywhere in the path. The account
// number decides when the roster's lms_id column has it. Otherwise the
// person's name the LMS wrote (Moodle's "Full Name", Canvas's
// "lastfirst") is matched exactly (NamedBy) against the roster learners
// without an lms_id: one learner is a match; none is no match; more than
// one (two learners of the same name) is Ambiguous and no match. A name
// that fits a learner whose lms_id is another number is no match either:
// the roster says that learner's account is another one.
func (r *Roster) MatchLMSName(name string) LMSMatch {
	num, person, part := lmsAccount(name)
	m := LMSMatch{Num: num, Person: person, Part: part}
	if num == "" {
		return m
	}
	if j, ok := r.lms[num]; ok {
		m.ID = r.Learners[j].ID
		return m
	}
	var fits []string
	hasLMS := false
	for _, l := range r.Learners {
		if NamedBy(l, person) {
			fits = append(fits, l.ID)
			hasLMS = hasLMS || l.LMSID != ""
		}
	}
	switch {
	case len(fits) > 1:
		m.Ambiguous = fits
	case len(fits) == 1 && !hasLMS:
		m.ID, m.ByName = fits[0], true
	}
	return m
}

// ByLMSID is the id of the learner whose lms_id is num, or "".
func (r *Roster) ByLMSID(num string) string {
	if j, ok := r.lms[num]; ok {
		return r.Learners[j].ID
	}
	return ""
}

// HasLMSIDs says whether any roster row has an lms_id.
func (r *Roster) HasLMSIDs() bool { return r != nil && len(r.lms) > 0 }

// LMSNumber is the LMS user number in a Canvas or Moodle bulk-download
// name, or "" when the name follows neither pattern. It needs no roster,
// so a batch can warn when a zip has LMS names but the roster no lms_id.
func LMSNumber(name string) string {
	n, _ := LMSAccount(name)
	return n
}

// LMSAccount is the LMS user number and the person's name as the LMS
// wrote them in a Canvas file name ("lastfirst") or a Moodle folder or
// file name ("Full Name"), the part nearest the file first; "" when the
// name follows neither pattern.
func LMSAccount(name string) (num, person string) {
	num, person, _ = lmsAccount(name)
	return num, person
}

// lmsAccount is LMSAccount, and the part of the path that is the LMS name.
func lmsAccount(name string) (num, person, part string) {
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' || r == ':' })
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		var m []string
		if m = moodleName.FindStringSubmatch(p + "_"); m == nil && i == len(parts)-1 {
			m = canvasName.FindStringSubmatch(p)
		}
		if m != nil {
			return m[2], m[1], p
		}
	}
	return "", "", ""
}
