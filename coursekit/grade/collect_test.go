package grade

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/report"
	"github.com/llmperf-course/course/coursekit/grade/roster"
)

// writeZip writes a zip of name → content, in the order given.
func writeZip(t *testing.T, path string, entries ...[2]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func lmsRoster(t *testing.T) *roster.Roster {
	t.Helper()
	ro, err := roster.ReadRoster(strings.NewReader("id,name,lms_id\nalice,Alice Li,1001\nbob,Bob Wang,1002\ncarol,Carol Zhao,1003\ndave,Dave Sun,\n"))
	if err != nil {
		t.Fatal(err)
	}
	return ro
}

// LMS file and folder names map to learners through the lms_id column.
func TestRosterFromLMSName(t *testing.T) {
	ro := lmsRoster(t)
	for name, want := range map[string]string{
		"alice_1001_55501_06-deliverable.ipynb":                            "alice", // Canvas
		"lialice_LATE_1002_55502_06-deliverable-1.ipynb":                   "bob",   // Canvas, late
		"Carol Zhao_1003_assignsubmission_file_/06-deliverable.ipynb":      "carol", // Moodle folder
		"sub/Carol Zhao_1003_assignsubmission_file_/nested/x.ipynb":        "carol",
		"Alice Li_1001_assignsubmission_file_06-deliverable.ipynb":         "alice", // Moodle, no folders
		"zed_9999_55509_06-deliverable.ipynb":                              "",      // not on the roster
		"06-deliverable.ipynb":                                             "",
		"my_notes_v2.ipynb":                                                "",
		"Bob Wang_1002_assignsubmission_onlinetext_/onlinetext.html.ipynb": "bob",
	} {
		if got, _ := ro.FromLMSName(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	for _, bad := range []string{"id,lms_id\na,12\nb,12\n", "id,lms_id\na,x12\n"} {
		if _, err := roster.ReadRoster(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "roster:3") && !strings.Contains(err.Error(), "roster:2") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// Without an lms_id for the account number, the LMS name is matched to
// the roster by name, exactly and only when it fits one learner without
// an lms_id: any word order, case, punctuation and Unicode form, never by
// likeness; a name two learners share is ambiguous, never guessed.
func TestRosterMatchLMSNameByName(t *testing.T) {
	ro, err := roster.ReadRoster(strings.NewReader("id,name,email,lms_id\n" +
		"s01,Emma Smith,,\ns02,Wang Fang,,\ns03,Wang Fang,,\ns04,\"O'Brien, Seán\",,\ns05,Mary Ann Lee,mlee@x.edu,\ns06,Li Na,,2006\ns07,Emma Smithson,,\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		id    string
		amb   string
		named bool
	}{
		"Emma Smith_1010_assignsubmission_file_/06-deliverable.ipynb":         {"s01", "", true},
		"EMMA  SMITH_1010_assignsubmission_file_/06-deliverable.ipynb":        {"s01", "", true},
		"smithemma_1010_55510_06-deliverable.ipynb":                           {"s01", "", true}, // Canvas lastfirst
		"Emma Smyth_1010_assignsubmission_file_/06-deliverable.ipynb":         {"", "", false},   // alike is not the same
		"Emma_1010_assignsubmission_file_/06-deliverable.ipynb":               {"", "", false},
		"Sea\u0301n O'Brien_1014_assignsubmission_file_/06-deliverable.ipynb": {"s04", "", true}, // decomposed é
		"leemaryann_1015_55515_06-deliverable.ipynb":                          {"s05", "", true},
		"mlee_1015_55515_06-deliverable.ipynb":                                {"s05", "", true}, // email local part
		"Wang Fang_1020_assignsubmission_file_/06-deliverable.ipynb":          {"", "s02 s03", false},
		"Li Na_1016_assignsubmission_file_/06-deliverable.ipynb":              {"", "", false}, // Li Na's account is 2006
		"Li Na_2006_assignsubmission_file_/06-deliverable.ipynb":              {"s06", "", false},
	} {
		m := ro.MatchLMSName(name)
		if m.ID != want.id || strings.Join(m.Ambiguous, " ") != want.amb || m.ByName != want.named {
			t.Errorf("%s: %+v, want %+v", name, m, want)
		}
	}
}

// An LMS bulk download: every notebook in the zip is graded, whoever's it
// is by signed metadata or LMS name; checkpoints and macOS files are
// skipped and other files ignored, both listed; a corrupt zip is one
// ungradable input and the batch goes on.
func TestCollectLMSZips(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol", "dave")
	g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: lmsRoster(t), Public: f.public})
	if err != nil {
		t.Fatal(err)
	}
	right := func(id string) string { return string(f.submitted(t, id, correctCard(t, f.variants[id]))) }
	unsigned := string(edit(t, []byte(right("bob")), func(m map[string]any, cells []any) []any {
		delete(m["metadata"].(map[string]any), "coursekit")
		return cells
	}))
	dir := t.TempDir()
	canvas := filepath.Join(dir, "canvas.zip")
	writeZip(t, canvas,
		[2]string{"alice_1001_55501_06-deliverable.ipynb", right("alice")},
		[2]string{"wangbob_LATE_1002_55502_06-deliverable.ipynb", unsigned}, // no release record: the LMS name says bob
		[2]string{"__MACOSX/._alice_1001_55501_06-deliverable.ipynb", "\x00\x05"},
		[2]string{"zhaocarol_1003_55503_trace.jsonl", "{}"},
		[2]string{"zhaocarol_1003_55503_notes.pdf", "%PDF"},
	)
	moodle := filepath.Join(dir, "moodle.zip")
	writeZip(t, moodle,
		[2]string{"Carol Zhao_1003_assignsubmission_file_/analysis/06-deliverable.ipynb", right("carol")},
		[2]string{"Carol Zhao_1003_assignsubmission_file_/analysis/.ipynb_checkpoints/06-deliverable-checkpoint.ipynb", "{"},
		[2]string{"Dave Sun_1004_assignsubmission_file_/06-deliverable.ipynb", right("dave")[:100]}, // truncated; no lms_id for dave, but the folder has his name
	)
	corrupt := filepath.Join(dir, "corrupt.zip")
	os.WriteFile(corrupt, []byte("PK\x03\x04 this is not really a zip"), 0o644)

	col, err := grader.Collect([]string{canvas, corrupt, moodle})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	var names []string
	for _, in := range col.Inputs {
		names = append(names, filepath.Base(in.Path)+":"+in.Entry)
	}
	want := "canvas.zip:alice_1001_55501_06-deliverable.ipynb canvas.zip:wangbob_LATE_1002_55502_06-deliverable.ipynb corrupt.zip: " +
		"moodle.zip:Carol Zhao_1003_assignsubmission_file_/analysis/06-deliverable.ipynb moodle.zip:Dave Sun_1004_assignsubmission_file_/06-deliverable.ipynb"
	if strings.Join(names, " ") != want {
		t.Errorf("inputs:\n%s\nwant:\n%s", strings.Join(names, " "), want)
	}
	notes := joinWarnings(col.Notes)
	for _, w := range []string{"canvas.zip: ignored 2 entries that are not notebooks: zhaocarol_1003_55503_trace.jsonl, zhaocarol_1003_55503_notes.pdf", "canvas.zip: skipped 1 macOS", "moodle.zip: skipped 1 macOS or Jupyter checkpoint"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}

	var progress strings.Builder
	subs := g.GradeInputs(col.Inputs, &progress)
	type got struct {
		learner, reason string
		ok              bool
	}
	wantSubs := []got{{"alice", "", true}, {"bob", "", true}, {"", grader.ReasonBadZip, false}, {"carol", "", true}, {"dave", notebook.ReasonTruncated, false}}
	for i, s := range subs {
		if w := wantSubs[i]; s.Learner != w.learner || s.Gradable != w.ok || s.ReasonCode != w.reason {
			t.Errorf("%s: learner %q gradable %v reason %s (%s)", names[i], s.Learner, s.Gradable, s.ReasonCode, s.Reason)
		}
	}
	if !strings.Contains(subs[2].Reason, "corrupt.zip 损坏") || subs[2].File != "corrupt.zip" {
		t.Errorf("corrupt zip: %+v", subs[2])
	}
	if subs[3].File != "06-deliverable.ipynb" || !subs[3].IntegrityOK() || !subs[0].IntegrityOK() {
		t.Errorf("carol %+v / alice %+v", subs[3].Integrity, subs[0].Integrity)
	}
	if !hasFinding(subs[1], integrity.FindNoRelease) {
		t.Errorf("bob's unsigned notebook: %+v", subs[1].Integrity)
	}
	if n := strings.Count(progress.String(), "\n"); n != 5 || !strings.Contains(progress.String(), "moodle.zip:Carol Zhao_1003_assignsubmission_file_/analysis/06-deliverable.ipynb: carol") {
		t.Errorf("progress:\n%s", progress.String())
	}
}

// The signed record decides; a notebook whose record is alice's, handed in
// from bob's LMS account, is bob's "no own submission" with a copy finding. An ungradable file still lands in the
// LMS learner's row.
func TestLMSNameAndReleaseRecordDisagree(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	g, _ := grader.NewGrader(grader.Options{Key: testKey, Roster: lmsRoster(t), Public: f.public})
	s := g.GradeCollected("wangbob_1002_55502_06-deliverable.ipynb", f.submitted(t, "alice", correctCard(t, f.variants["alice"])))
	if s.Learner != "bob" || s.Gradable || s.ReasonCode != grader.ReasonNotOwn || s.RecordOf != "alice" || !hasFinding(s, grader.FindRecordCopied) || s.IntegrityOK() {
		t.Errorf("learner %s, findings %+v", s.Learner, s.Integrity)
	}
	s = g.GradeCollected("wangbob_1002_55502_06-deliverable.ipynb", []byte("{"))
	if s.Learner != "bob" || s.Gradable {
		t.Errorf("ungradable: learner %q", s.Learner)
	}
}

// Zip bombs: an entry declaring more than the cap is refused before it is
// read; an entry lying about its size is cut off while reading. Neither
// stops the batch.
func TestZipEntryByteCap(t *testing.T) {
	f := newFixture(t, "alice")
	g, _ := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, MaxBytes: 4096})
	big := bytes.Repeat([]byte(" "), 1<<20) // 1 MiB of spaces: compresses to ~1 KiB
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("alice/honest-but-big.ipynb")
	w.Write(big)
	// A raw entry that says it is 10 bytes and inflates to 1 MiB.
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write(big)
	fw.Close()
	rw, err := zw.CreateRaw(&zip.FileHeader{Name: "alice/lying.ipynb", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(big[:10]), CompressedSize64: uint64(comp.Len()), UncompressedSize64: 10})
	if err != nil {
		t.Fatal(err)
	}
	rw.Write(comp.Bytes())
	w, _ = zw.Create("alice/06-deliverable.ipynb")
	w.Write(f.submitted(t, "alice", correctCard(t, f.variants["alice"]))[:3000])
	zw.Close()
	p := filepath.Join(t.TempDir(), "bomb.zip")
	os.WriteFile(p, buf.Bytes(), 0o644)
	col, err := grader.Collect([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Close()
	subs := g.GradeInputs(col.Inputs, nil)
	if len(subs) != 3 {
		t.Fatalf("%d submissions", len(subs))
	}
	// In name order: 06-deliverable, honest-but-big, lying.
	if s := subs[1]; s.ReasonCode != notebook.ReasonTooLarge || !strings.Contains(s.Reason, "解压后有 1048576 字节") || s.Learner != "alice" {
		t.Errorf("big entry: %s %s (%s)", s.Learner, s.ReasonCode, s.Reason)
	}
	if s := subs[2]; s.Gradable || (s.ReasonCode != notebook.ReasonTooLarge && s.ReasonCode != notebook.ReasonUnreadable) || !strings.Contains(s.Reason, "压缩包") {
		t.Errorf("lying entry: %s (%s)", s.ReasonCode, s.Reason)
	}
	if s := subs[0]; s.ReasonCode != notebook.ReasonTruncated {
		t.Errorf("the batch went on: %s (%s)", s.ReasonCode, s.Reason)
	}
}

func joinWarnings(ws []grader.Warning) string {
	var lines []string
	for _, w := range ws {
		lines = append(lines, w.Text)
	}
	return strings.Join(lines, "\n")
}

// Without a valid release record, a file named after alice in bob's LMS
// folder is graded by its name, with its own-variant points waiting for
// the instructor; what it tells the learner and the instructor names the
// file name and the LMS account, never a release record it does not have.
func TestLMSNameAndFileNameDisagree(t *testing.T) {
	f := newFixture(t, "alice", "bob", "carol")
	g, _ := grader.NewGrader(grader.Options{Key: testKey, Roster: lmsRoster(t), Public: f.public})
	nb := edit(t, f.submitted(t, "alice", correctCard(t, f.variants["alice"])), func(m map[string]any, cells []any) []any {
		delete(m["metadata"].(map[string]any), "coursekit")
		return cells
	})
	s := g.GradeCollected("Wang Bob_1002_assignsubmission_file_/alice.ipynb", nb)
	x, _ := s.Score(criteria.OwnVariantID)
	if s.Learner != "alice" || !s.Gradable || !hasFinding(s, grader.FindLMSOtherLearner) || !x.Pending || len(s.Manual) == 0 {
		t.Fatalf("learner %s, gradable %v, own variant %+v, findings %+v", s.Learner, s.Gradable, x, s.Integrity)
	}
	texts := []string{x.Message, s.Manual[len(s.Manual)-1].Text, report.ZhName(report.FindingZh, grader.FindLMSOtherLearner)}
	for _, fd := range s.Integrity {
		if fd.Code == grader.FindLMSOtherLearner {
			texts = append(texts, fd.Message)
		}
	}
	for _, text := range texts {
		if regexp.MustCompile(`发放记录(写的是|不符)|按发放记录|发给另一位`).MatchString(text) {
			t.Errorf("names a release record the notebook does not have: %q", text)
		}
	}
}
