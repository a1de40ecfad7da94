package gradescope

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/feedback"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// Gradescope autograder layout, under its root (/autograder).
const (
	GSSubmissionDir = "submission"
	GSMetadataFile  = "submission_metadata.json"
	GSResultsFile   = "results/results.json"
)

// Reason codes of a Gradescope run.
const (
	ReasonNoNotebook   = "no_notebook"
	ReasonTwoNotebooks = "two_notebooks"
	ReasonSetup        = "autograder_setup" // the instructor's setup, not the learner's file
)

// GSMetadata is the part of Gradescope's submission_metadata.json the
// grader reads: who submitted.
type GSMetadata struct {
	ID    any `json:"id"`
	Users []struct {
		Email string `json:"email"`
		Name  string `json:"name"`
		SID   any    `json:"sid"` // a string, a number or null
	} `json:"users"`
}

// sid is a user's student id as text ("" when absent).
func sid(v any) string {
	switch x := v.(type) {
	case string:
		return strings.TrimSpace(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// GSRun is one Gradescope run: the submission as graded, how the learner
// was identified, and the results.json written.
type GSRun struct {
	Sub *grader.Submission
	// IdentifiedBy is "release_record", "gradescope_sid" or
	// "gradescope_email" ("" when nobody was identified).
	IdentifiedBy string
	Notes        []string // said to the learner in results.json's output, Chinese
	Results      []byte
}

// RunGradescope grades the one notebook under root/submission (the
// Gradescope autograder layout) and writes root/results/results.json,
// validated against the spec. The learner is the one the notebook's signed
// release record names; without a valid record, users[0] of
// submission_metadata.json, by sid (a roster id) or email. Whatever is
// wrong with the submission (no notebook, two notebooks, unreadable
// metadata, an unknown learner) still gives a results.json, scoring 0 with
// the reason in Chinese. The error is for a results.json that cannot be
// written.
func RunGradescope(g *grader.Grader, root string) (*GSRun, error) {
	start := time.Now()
	run := gradeRun(g, root)
	r := Gradescope(run.Sub)
	if len(run.Notes) > 0 {
		r.Output += "\n\n" + feedback.MDEscape(strings.Join(run.Notes, " "))
	}
	if run.IdentifiedBy != "" {
		r.ExtraData["identified_by"] = run.IdentifiedBy
	}
	r.ExecutionTime = ptr(criteria.Round2(time.Since(start).Seconds()))
	var err error
	if run.Results, err = marshalResults(r); err != nil {
		return run, err
	}
	return run, writeResults(root, run.Results)
}

// WriteGradescopeFailure writes a results.json scoring 0 for a run that
// could not grade at all because of the autograder's own setup (a missing
// key or roster): Gradescope shows a clear message instead of "the
// autograder failed to execute correctly".
func WriteGradescopeFailure(root string, cause error) error {
	s := (&grader.Submission{}).Fail(notebook.NewUngradable(ReasonSetup, "评分程序的配置有问题，不是你的提交的问题；请联系老师。这次提交暂记 0 分，老师修好后会重新评分。"))
	r := Gradescope(s)
	r.ExtraData["setup_error"] = cause.Error()
	b, err := marshalResults(r)
	if err != nil {
		return err
	}
	return writeResults(root, b)
}

func marshalResults(r *GSResults) ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	b = safetext.JSON(b)
	if err := ValidateResultsJSON(b); err != nil {
		return nil, err // a bug, not bad input
	}
	return append(b, '\n'), nil
}

func writeResults(root string, b []byte) error {
	p := filepath.Join(root, filepath.FromSlash(GSResultsFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o644)
}

// gradeRun finds the one notebook, tells whose it is and grades it.
func gradeRun(g *grader.Grader, root string) *GSRun {
	o := g.Options()
	run := &GSRun{}
	fail := func(u *notebook.Ungradable) *GSRun {
		run.Sub = (&grader.Submission{}).Fail(u)
		return run
	}
	nbs, others := gsNotebooks(filepath.Join(root, GSSubmissionDir))
	switch len(nbs) {
	case 0:
		msg := "没有找到 .ipynb 笔记本：请上传发给你的那份 06-deliverable.ipynb（运行过自检并保存）。"
		if len(others) > 0 {
			msg += "你上传的是：" + shortList(others) + "。"
		}
		return fail(notebook.NewUngradable(ReasonNoNotebook, "%s", msg))
	case 1:
	default:
		return fail(notebook.NewUngradable(ReasonTwoNotebooks, "上传了 %d 个笔记本（%s）：只上传一个，即发给你的那份 06-deliverable.ipynb。", len(nbs), shortList(nbs)))
	}
	rel := nbs[0]
	// Only a regular file is read: a symlink (to the autograder's key) or
	// a FIFO in the upload is refused, naming the file and its kind.
	data, err := notebook.ReadFileLimited(filepath.Join(root, GSSubmissionDir, filepath.FromSlash(rel)), o.MaxBytes)
	if err != nil {
		run.Sub = (&grader.Submission{File: filepath.Base(rel)}).Fail(err.(*notebook.Ungradable))
		return run
	}

	// Who: the signed release record, else Gradescope's account.
	meta, metaErr := readGSMetadata(filepath.Join(root, GSMetadataFile))
	fromAccount, how := "", ""
	if metaErr == nil && len(meta.Users) > 0 {
		u := meta.Users[0]
		if id := sid(u.SID); o.Roster.Has(id) {
			fromAccount, how = id, "gradescope_sid"
		} else if id := o.Roster.ByEmail(u.Email); id != "" {
			fromAccount, how = id, "gradescope_email"
		}
	}
	signed := ""
	if nb, err := notebook.ParseNotebook(data); err == nil && nb.Assignment != nil && nb.Assignment.Verify(o.Key) && o.Roster.Has(nb.Assignment.Learner) {
		signed = nb.Assignment.Learner
	}
	switch {
	case signed != "":
		run.IdentifiedBy = "release_record"
		run.Notes = append(run.Notes, "学习者由笔记本里签名的发放记录确定。")
	case fromAccount != "":
		run.IdentifiedBy = how
		if how == "gradescope_sid" {
			run.Notes = append(run.Notes, "笔记本里没有有效的发放记录，学习者由 Gradescope 账号的学号确定。")
		} else {
			run.Notes = append(run.Notes, "笔记本里没有有效的发放记录，学习者由 Gradescope 账号的邮箱确定。")
		}
	}
	if metaErr != nil {
		run.Notes = append(run.Notes, "（读不了 Gradescope 的提交信息 "+GSMetadataFile+"，没有用它核对学习者。）")
	}
	learner := signed
	if learner == "" {
		learner = fromAccount
	}
	if learner == "" {
		// Grade still says what else is wrong (not a notebook, truncated…).
		s := g.Grade(filepath.Base(rel), data)
		if s.Gradable || s.ReasonCode == notebook.ReasonUnknown {
			msg := "无法确定这是谁的提交：笔记本里没有有效的发放记录"
			if metaErr != nil {
				msg += "，Gradescope 的提交信息也读不出来"
			} else {
				msg += "，Gradescope 账号的学号和邮箱也不在课程名单里"
			}
			s = (&grader.Submission{File: filepath.Base(rel)}).Fail(notebook.NewUngradable(notebook.ReasonUnknown, "%s。请上传发给你的那份笔记本，或联系老师。", msg))
		}
		run.Sub = s
		return run
	}
	s := g.GradeAs(learner, rel, data)
	if signed != "" && fromAccount != "" && fromAccount != signed {
		run.Sub = grader.NotOwn(s, signed, fromAccount, "Gradescope "+how)
		return run
	}
	run.Sub = s
	return run
}

// gsNotebooks lists the .ipynb files under dir (relative, slash-separated,
// sorted), skipping Jupyter checkpoints, macOS metadata and hidden
// folders, and the names of everything else uploaded.
func gsNotebooks(dir string) (nbs, others []string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // a missing folder: no notebook
		}
		if p == dir {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || name == "__MACOSX" {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.EqualFold(filepath.Ext(name), ".ipynb") && !strings.HasPrefix(name, "._") {
			nbs = append(nbs, rel)
		} else {
			others = append(others, rel)
		}
		return nil
	})
	sort.Strings(nbs)
	sort.Strings(others)
	return nbs, others
}

// shortList joins names for a learner's message: the first
// grader.ListMax, then how many more, each as safetext.Name shows it.
func shortList(names []string) string {
	shown := make([]string, 0, min(len(names), grader.ListMax))
	for _, n := range names[:min(len(names), grader.ListMax)] {
		shown = append(shown, safetext.Name(n))
	}
	s := strings.Join(shown, "、")
	if k := len(names) - len(shown); k > 0 {
		s += fmt.Sprintf("……另有 %d 个", k)
	}
	return s
}

func readGSMetadata(p string) (*GSMetadata, error) {
	b, err := notebook.ReadNamedFileLimited(p, 1<<20) // Gradescope's file, not the learner's
	if err != nil {
		return nil, err
	}
	var m GSMetadata
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", GSMetadataFile, err)
	}
	return &m, nil
}
