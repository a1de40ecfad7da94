// Package collect gathers every learner's deliverable notebook from the
// places a JupyterHub keeps learner files (one engine volume or one user
// directory per learner) into one folder that `coursekit grade` takes,
// each file named after its learner.
//
// It only reads the learners' files: sources are opened read-only and
// never followed through symlinks (a learner's link could point at
// another learner's work or at the host), and nothing is written outside
// the output folder. Nothing is dropped or replaced silently: a learner
// with two candidate notebooks gets both (in a folder named after them,
// which grade also reads as theirs) and a warning; a learner with none is
// reported; an output folder that already holds other or different files
// is refused before anything is written.
package collect

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// DefaultNotebook is the deliverable's file name in the course layout.
const DefaultNotebook = "06-deliverable.ipynb"

// DefaultMaxBytes caps one collected notebook (grade reads at most 8 MiB
// of a submission; a larger file is reported, not copied).
const DefaultMaxBytes = 8 << 20

// ManifestFile is written into the output folder: one row per learner
// and file, for the instructor's records (grade reads only notebooks).
const ManifestFile = "collected.csv"

// Home is one learner's files: the root of their volume or user directory.
type Home struct {
	Learner string // the learner id (file names in the output use it)
	Dir     string // the directory to search
	From    string // where it came from, for messages: "volume NAME", "dir PATH"
	// Skip, when set, says why Dir is not searched (Dirs found a symlink
	// on its path): the learner is listed as skipped with this reason.
	Skip string
}

// Options tune Collect.
type Options struct {
	Out      string   // the output folder (created if missing)
	Notebook string   // the deliverable's base name (DefaultNotebook if "")
	Roster   []string // optional learner ids: ones without a home or file are reported
	MaxBytes int64    // per file (DefaultMaxBytes if 0)
}

// File is one collected notebook.
type File struct {
	Learner string
	Source  string // Home.From + ":" + path relative to the home
	Dest    string // path relative to Options.Out
	Bytes   int64
	SHA256  string
	Same    bool // Dest already held these exact bytes (an earlier collect)
}

// Skipped is a file that looked like a deliverable and was not copied.
type Skipped struct {
	Learner, Source, Reason string
}

// Result says what Collect did, learner by learner.
type Result struct {
	Files []File
	// Several lists learners with more than one candidate (all kept).
	Several []string
	// Missing lists learners whose home holds no deliverable.
	Missing []string
	// NoHome lists roster learners with no volume or directory at all.
	NoHome []string
	// NotOnRoster lists homes whose learner is not on the roster
	// (collected all the same; grade reports them as unknown).
	NotOnRoster []string
	// Similar lists notebooks whose name resembles the deliverable's
	// (a JupyterLab copy, a renamed file): not collected, for a person to check.
	Similar []Skipped
	Skipped []Skipped
}

// validID is grade's rule for learner ids: they name files.
var validID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._@+-]{0,63}$`)

// Collect finds the deliverable in every home and copies it into o.Out:
// OUT/<id>.ipynb for one candidate, OUT/<id>/<n>-<path>.ipynb for each of
// several. Candidates are regular files named o.Notebook anywhere under
// the home, outside hidden folders and Jupyter checkpoints.
func Collect(homes []Home, o Options) (*Result, error) {
	if o.Out == "" {
		return nil, errors.New("collect: no output folder")
	}
	if o.Notebook == "" {
		o.Notebook = DefaultNotebook
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	res := &Result{}
	seen := map[string]string{}
	onRoster := map[string]bool{}
	for _, id := range o.Roster {
		onRoster[id] = true
	}
	type plan struct {
		f    File
		data []byte
	}
	var plans []plan
	homes = slices.Clone(homes)
	sort.SliceStable(homes, func(i, j int) bool { return homes[i].Learner < homes[j].Learner })
	for _, h := range homes {
		if !validID.MatchString(h.Learner) {
			res.Skipped = append(res.Skipped, Skipped{h.Learner, h.From, "the learner id cannot name a file (want 1-64 letters, digits and . _ @ + -)"})
			continue
		}
		if other, dup := seen[h.Learner]; dup {
			return nil, fmt.Errorf("collect: learner %s has two homes, %s and %s: collect each separately", h.Learner, other, h.From)
		}
		seen[h.Learner] = h.From
		if len(onRoster) > 0 && !onRoster[h.Learner] {
			res.NotOnRoster = append(res.NotOnRoster, h.Learner)
		}
		if h.Skip == "" {
			st, err := os.Lstat(h.Dir)
			if err != nil {
				return nil, fmt.Errorf("collect: %s (learner %s): %w", h.From, h.Learner, err)
			}
			h.Skip = notFolder(h.Dir, st.Mode())
		}
		if h.Skip != "" {
			res.Skipped = append(res.Skipped, Skipped{h.Learner, h.From, h.Skip})
			continue
		}
		found, err := candidates(h, o.Notebook, res)
		if err != nil {
			return nil, err
		}
		var got []plan
		for _, rel := range found {
			src := h.From + ":" + rel
			data, err := readNoFollow(filepath.Join(h.Dir, rel), o.MaxBytes)
			if err != nil {
				res.Skipped = append(res.Skipped, Skipped{h.Learner, src, err.Error()})
				continue
			}
			sum := sha256.Sum256(data)
			got = append(got, plan{File{Learner: h.Learner, Source: src, Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])}, data})
		}
		switch len(got) {
		case 0:
			res.Missing = append(res.Missing, h.Learner)
		case 1:
			got[0].f.Dest = h.Learner + ".ipynb"
		default:
			res.Several = append(res.Several, h.Learner)
			for i := range got {
				got[i].f.Dest = filepath.Join(h.Learner, fmt.Sprintf("%d-%s", i+1, flatten(strings.TrimPrefix(got[i].f.Source, h.From+":"))))
			}
		}
		plans = append(plans, got...)
	}
	for _, id := range o.Roster {
		if _, ok := seen[id]; !ok {
			res.NoHome = append(res.NoHome, id)
		}
	}

	// Check the output folder before writing anything.
	want := map[string][]byte{ManifestFile: nil}
	for _, p := range plans {
		want[p.f.Dest] = p.data
	}
	if err := checkOut(o.Out, want); err != nil {
		return nil, err
	}
	for i := range plans {
		p := &plans[i]
		same, err := writeNew(filepath.Join(o.Out, p.f.Dest), p.data)
		if err != nil {
			return nil, err
		}
		p.f.Same = same
		res.Files = append(res.Files, p.f)
	}
	if err := writeManifest(filepath.Join(o.Out, ManifestFile), res); err != nil {
		return nil, err
	}
	return res, nil
}

// candidates walks a home without following symlinks and returns the
// relative paths of the deliverable's candidates, sorted.
func candidates(h Home, notebook string, res *Result) ([]string, error) {
	stem := strings.ToLower(strings.TrimSuffix(notebook, filepath.Ext(notebook)))
	var found []string
	err := filepath.WalkDir(h.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(h.Dir, path)
			res.Skipped = append(res.Skipped, Skipped{h.Learner, h.From + ":" + rel, "unreadable: " + err.Error()})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(h.Dir, path)
		name := d.Name()
		if d.IsDir() {
			if path != h.Dir && (strings.HasPrefix(name, ".") || name == "__MACOSX") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case name == notebook && d.Type().IsRegular():
			found = append(found, rel)
		case name == notebook:
			res.Skipped = append(res.Skipped, Skipped{h.Learner, h.From + ":" + rel, regfile.Kind(d.Type()) + ", not a regular file: not followed"})
		case strings.EqualFold(filepath.Ext(name), ".ipynb") && strings.Contains(strings.ToLower(name), stem):
			res.Similar = append(res.Similar, Skipped{h.Learner, h.From + ":" + rel, "a similar name, not collected: if this is the learner's deliverable, copy it by hand"})
		}
		return nil
	})
	sort.Strings(found)
	return found, err
}

// readNoFollow reads a regular file, refusing a symlink or FIFO swapped
// in since the walk (regfile.Open) and anything over max bytes.
func readNoFollow(path string, max int64) ([]byte, error) {
	f, st, err := regfile.Open(path)
	if nr := (*regfile.NotRegularError)(nil); errors.As(err, &nr) {
		return nil, fmt.Errorf("%s, not a regular file: not read", regfile.Kind(nr.Mode))
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open: %v", err)
	}
	defer f.Close()
	if st.Size() > max {
		return nil, fmt.Errorf("%d bytes, over the %d-byte cap (--max-bytes): not copied", st.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read: %v", err)
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("grew over the %d-byte cap while read: not copied", max)
	}
	return data, nil
}

// flatten turns a relative path into one file name: notebooks/unit01/x.ipynb
// -> notebooks_unit01_x.ipynb.
func flatten(rel string) string {
	// Control codes and bidi overrides escaped first (safetext.Name), so
	// no copied file's name holds one.
	return strings.NewReplacer(string(filepath.Separator), "_", "/", "_").Replace(safetext.Name(rel))
}

// checkOut refuses an output folder that holds anything this collect would
// not write, or a planned file with other bytes: collecting never replaces
// an earlier collect's files, and re-running it unchanged is harmless.
func checkOut(out string, want map[string][]byte) error {
	st, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("collect: %s is not a folder", out)
	}
	var bad []string
	err = filepath.WalkDir(out, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, path)
		data, ok := want[rel]
		switch {
		case !ok:
			bad = append(bad, rel+" (not from this collect)")
		case rel == ManifestFile:
		default:
			old, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if !bytes.Equal(old, data) {
				bad = append(bad, rel+" (differs from what the learner has now)")
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	if len(bad) > 0 {
		return fmt.Errorf("collect: %s already holds %s; nothing was written: collect into a new folder", out, strings.Join(bad, ", "))
	}
	return nil
}

// writeNew writes data to path through a temporary file; same is true when
// path already held exactly data.
func writeNew(path string, data []byte) (same bool, err error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return true, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".collect-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return false, os.Rename(tmp.Name(), path)
}

func writeManifest(path string, r *Result) error {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	// Folder names and file names are untrusted: escaped (safetext.Name)
	// and kept from starting a formula (safetext.CSVCell) in every cell.
	write := func(row ...string) {
		for i, c := range row {
			row[i] = safetext.CSVCell(safetext.Name(c))
		}
		w.Write(row)
	}
	w.Write([]string{"learner", "status", "source", "file", "bytes", "sha256", "note"})
	for _, f := range r.Files {
		status := "collected"
		if slices.Contains(r.Several, f.Learner) {
			status = "several"
		}
		write(f.Learner, status, f.Source, filepath.ToSlash(f.Dest), strconv.FormatInt(f.Bytes, 10), f.SHA256, "")
	}
	for _, id := range r.Missing {
		write(id, "missing", "", "", "", "", "no deliverable in their files")
	}
	for _, id := range r.NoHome {
		write(id, "no-home", "", "", "", "", "no volume or directory for this learner")
	}
	for _, s := range r.Skipped {
		write(s.Learner, "skipped", s.Source, "", "", "", s.Reason)
	}
	for _, s := range r.Similar {
		write(s.Learner, "similar", s.Source, "", "", "", s.Reason)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	_, err := writeNew(path, b.Bytes())
	return err
}
