package roster

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"
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
	index   map[string]int
	lms     map[string]int // by LMSID
}

// ValidID keeps learner ids usable as directory and file names.
var ValidID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`)

// ReadRoster reads a CSV with a header row and an id column ("id",
// "learner_id", "student_id" or "login"); "name", "email" and "lms_id"
// (or "lms_user_id": the number Canvas and Moodle put in downloaded file
// names) are optional.
func ReadRoster(r io.Reader) (*Roster, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("roster: %w", err)
	}
	if len(rows) == 0 {
		return nil, errors.New("roster: empty; want a header row with an id column")
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	idCol := -1
	for _, name := range []string{"id", "learner_id", "student_id", "login"} {
		if i, ok := col[name]; ok {
			idCol = i
			break
		}
	}
	if idCol < 0 {
		return nil, fmt.Errorf("roster: no id column in header %q", rows[0])
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
	var extraCols []int
	for i, h := range rows[0] {
		if i != idCol {
			extraCols = append(extraCols, i)
			ro.Columns = append(ro.Columns, strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		}
	}
	for n, row := range rows[1:] {
		if len(row) == 0 || (len(row) == 1 && strings.TrimSpace(row[0]) == "") {
			continue
		}
		id := ""
		if idCol < len(row) {
			id = strings.TrimSpace(row[idCol])
		}
		if !ValidID.MatchString(id) {
			return nil, fmt.Errorf("roster:%d: learner id %q: use 1-64 letters, digits and . _ @ + - (it names files)", n+2, id)
		}
		if _, dup := ro.index[id]; dup {
			return nil, fmt.Errorf("roster:%d: learner id %q appears twice", n+2, id)
		}
		lms := get(row, lmsCol)
		if lms != "" {
			if !lmsIDPattern.MatchString(lms) {
				return nil, fmt.Errorf("roster:%d: %s %q: want the LMS's number for the learner (digits), as in its download file names", n+2, lmsCol, lms)
			}
			if j, dup := ro.lms[lms]; dup {
				return nil, fmt.Errorf("roster:%d: %s %q is also learner %q's", n+2, lmsCol, lms, ro.Learners[j].ID)
			}
			ro.lms[lms] = len(ro.Learners)
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
	if len(ro.Learners) == 0 {
		return nil, errors.New("roster: no learners")
	}
	return ro, nil
}

// ReadRosterFile reads a roster CSV file.
func ReadRosterFile(path string) (*Roster, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadRoster(f)
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
// learner l: their roster name in either order, their id or their email's
// local part, compared in lower case on letters and digits only.
func NamedBy(l Learner, person string) bool {
	key := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	p := key(person)
	if p == "" {
		return false
	}
	words := strings.FieldsFunc(l.Name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	local, _, _ := strings.Cut(l.Email, "@")
	rev := slices.Clone(words)
	slices.Reverse(rev)
	return slices.ContainsFunc([]string{strings.Join(words, ""), strings.Join(rev, ""), l.ID, local}, func(c string) bool { return key(c) == p })
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

// FromLMSName is the learner an LMS bulk-download name belongs to, by the
// roster's lms_id column: a Canvas file name or a Moodle folder (or file)
// name anywhere in the path. It returns the learner id and the LMS number
// found, or "" when the name does not follow either pattern or the number
// is not on the roster.
func (r *Roster) FromLMSName(name string) (id, lmsID string) {
	if len(r.lms) == 0 {
		return "", ""
	}
	return r.fromLMSName(name)
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
	parts := strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' || r == ':' })
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		var m []string
		if m = moodleName.FindStringSubmatch(p + "_"); m == nil && i == len(parts)-1 {
			m = canvasName.FindStringSubmatch(p)
		}
		if m != nil {
			return m[2], m[1]
		}
	}
	return "", ""
}

func (r *Roster) fromLMSName(name string) (id, lmsID string) {
	num, _ := LMSAccount(name)
	if j, ok := r.lms[num]; ok && num != "" {
		return r.Learners[j].ID, num
	}
	return "", num
}
