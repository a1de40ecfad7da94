package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

const executionTitle = "在课程镜像里从头重新运行"

// Finding codes of re-execution; stable, English, for tools.
const (
	FindExecRestored    = "exec_restored"     // locked cells were put back before the run
	FindExecCardDiffers = "exec_card_differs" // the run's card is not the submitted one
	FindExecEnvironment = "exec_environment"  // the grading environment could not run it
	FindGradedFromRerun = "graded_from_rerun" // no self-check output: graded from the run
)

// ExecOptions configure ExecuteAll.
type ExecOptions struct {
	Executor Executor
	// Release is the released deliverable notebook (as given to assign);
	// each learner's locked cells are regenerated from it.
	Release []byte
	// CellTimeout bounds each cell (default 2 min); Timeout the whole
	// notebook, container start included (default 10 min).
	CellTimeout, Timeout time.Duration
	// Jobs is how many notebooks run at once (default: the number of CPUs).
	Jobs int
	// WorkDir holds the per-submission folders while they run (default:
	// the system temp dir); they are removed afterwards.
	WorkDir string
	// KeepDir, if set, receives each executed notebook and its log.
	KeepDir string
	// MaxBytes caps an executed notebook (default 8 × the submission cap).
	MaxBytes int64
}

// ExecuteAll re-runs every gradable submission (graded with KeepSource) and
// adds its execution score. An error means nothing was run (bad options);
// a timeout, crash or environment failure marks only that submission.
// A submission ungradable only because its self-check never ran is run
// too and, if the run succeeds, graded from it; other ungradable
// submissions are not run. The returned notes are for the instructor
// (e.g. an executed copy that could not be kept); they never stop the batch.
func ExecuteAll(ctx context.Context, g *grader.Grader, subs []*grader.Submission, o ExecOptions, progress io.Writer) (notes []grader.Warning, err error) {
	if o.Executor == nil {
		return nil, errors.New("execute: no executor")
	}
	gopt := g.Options()
	if !gopt.KeepSource {
		return nil, errors.New("execute: the grader was made without KeepSource")
	}
	// The release must personalize: checked once, before any run.
	probe := gopt.Roster.Learners[0].ID
	v, err := assign.Variant(gopt.Key, probe)
	if err != nil {
		return nil, err
	}
	if _, err := assign.Personalize(gopt.Key, o.Release, probe, v); err != nil {
		return nil, fmt.Errorf("execute: %w", err)
	}
	if o.CellTimeout <= 0 {
		o.CellTimeout = 2 * time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.Jobs <= 0 {
		o.Jobs = runtime.NumCPU()
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 8 * gopt.MaxBytes
	}
	if o.KeepDir != "" {
		if err := os.MkdirAll(o.KeepDir, 0o755); err != nil {
			return nil, err
		}
	}

	var todo []int
	for i, s := range subs {
		if s.Source() != nil && (s.Gradable || s.ReasonCode == notebook.ReasonSelfCheck || s.ReasonCode == notebook.ReasonCompileError) {
			todo = append(todo, i)
		}
	}
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Jobs)
	for _, i := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			s := subs[i]
			name := fmt.Sprintf("%d-%s", i+1, safeName(s.Learner))
			res, keepErr := executeOne(ctx, g, s, name, o)
			mu.Lock()
			defer mu.Unlock()
			if keepErr != nil {
				notes = append(notes, grader.Warnf("%s：重新运行的副本没有保存下来（%v）", "%s: the executed copy was not kept: %v", s.File, keepErr))
			}
			if progress != nil {
				done++
				what := "still ungradable"
				if x, ok := s.Score(criteria.ExecutionID); ok {
					what = string(x.Status)
				}
				fmt.Fprintf(progress, "execute: [%d/%d] %s: %s in %.1f s\n", done, len(todo), s.File, what, res.Elapsed.Seconds())
			}
		}()
	}
	wg.Wait()
	return notes, nil
}

// executeOne prepares, runs and scores one submission; it never panics.
// A submission that was ungradable only because its self-check never ran
// is graded from the re-run instead (see rescueFromRun).
func executeOne(ctx context.Context, g *grader.Grader, s *grader.Submission, name string, o ExecOptions) (res ExecResult, keepErr error) {
	rescue := !s.Gradable
	var rep RestoreReport
	finish := func(x criteria.Score, notes []integrity.Finding) {
		if rescue {
			rescueFromRun(g, s, res, rep, x, notes)
			return
		}
		s.AddExecution(x, notes...)
	}
	defer func() {
		if r := recover(); r != nil {
			res.Infra = fmt.Errorf("grader bug: %v", r)
			finish(execScore(g, s, res, o))
		}
	}()
	dir, rep, err := prepareRun(g, s, o)
	if dir != "" {
		defer os.RemoveAll(dir)
	}
	if err != nil {
		res.Infra = err
		finish(execScore(g, s, res, o))
		return res, nil
	}
	var notes []integrity.Finding
	if rep.Changed() {
		notes = append(notes, integrity.Finding{Code: FindExecRestored,
			Message: fmt.Sprintf("重新运行前，评分程序把锁定单元格恢复成了发布时的样子（改回 %d 个，补回 %d 个，去掉重复 %d 个）；运行的是你的口径卡和课程自己的数据加载与自检。",
				len(rep.Replaced), len(rep.Inserted), len(rep.Duplicates)),
			Detail: fmt.Sprintf("replaced %v, inserted %v, duplicates removed %v", rep.Replaced, rep.Inserted, rep.Duplicates)})
	}
	runCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	res = o.Executor.Run(runCtx, ExecJob{Name: name, Dir: dir, Notebook: execNotebookName, CellTimeout: o.CellTimeout, MaxBytes: o.MaxBytes})
	x, more := execScore(g, s, res, o)
	if o.KeepDir != "" {
		keepErr = errors.Join(os.WriteFile(filepath.Join(o.KeepDir, name+".ipynb"), res.Executed, 0o644),
			os.WriteFile(filepath.Join(o.KeepDir, name+".log"), []byte(res.Log), 0o644))
	}
	finish(x, append(notes, more...))
	return res, keepErr
}

// rescueFromRun grades a submission whose self-check never ran from its re-run:
// the executed copy (locked cells restored) is graded as if submitted, and
// the restore report stands in for the integrity check the original never
// reached, so an edited or deleted locked cell is still a warning. If the
// re-run fails too, the submission stays ungradable and its reason says
// what happened.
func rescueFromRun(g *grader.Grader, s *grader.Submission, res ExecResult, rep RestoreReport, x criteria.Score, notes []integrity.Finding) {
	if x.Status != card.Pass {
		s.Reason += "（在课程镜像里从头重新运行也没有得到口径卡：" + x.Message + "）"
		s.StatusLine = "无法评分：" + s.Reason
		return
	}
	ns := g.Grade(s.Learner+".ipynb", res.Executed)
	if !ns.Gradable {
		s.Reason += "（重新运行后仍无法评分：" + ns.Reason + "）"
		s.StatusLine = "无法评分：" + s.Reason
		return
	}
	ns.KeepFileOf(s)
	for i := range notes {
		if notes[i].Code == FindExecRestored {
			notes[i].Warn = true // nothing else reported these edits
		}
	}
	ns.Integrity = append(ns.Integrity, integrity.Finding{Code: FindGradedFromRerun,
		Message: "提交的笔记本没有自检输出（自检单元格没有运行）；这次评分用的是在课程镜像里从头重新运行得到的口径卡。"})
	*s = *ns
	s.AddExecution(x, notes...)
}

const execNotebookName = "submission.ipynb"

// prepareRun writes the restored notebook and the learner's trace into a
// fresh folder readable by the container's user.
func prepareRun(g *grader.Grader, s *grader.Submission, o ExecOptions) (string, RestoreReport, error) {
	key := g.Options().Key
	v, err := assign.Variant(key, s.Learner)
	if err != nil {
		return "", RestoreReport{}, err
	}
	personal, err := assign.Personalize(key, o.Release, s.Learner, v)
	if err != nil {
		return "", RestoreReport{}, err
	}
	restored, rep, err := Restore(key, personal, s.Source())
	if err != nil {
		return "", rep, fmt.Errorf("restore: %w", err)
	}
	dir, err := os.MkdirTemp(o.WorkDir, "coursekit-exec-")
	if err != nil {
		return "", rep, err
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return dir, rep, err
	}
	if err := os.WriteFile(filepath.Join(dir, execNotebookName), restored, 0o644); err != nil {
		return dir, rep, err
	}
	return dir, rep, os.WriteFile(filepath.Join(dir, assign.VariantTraceName), v, 0o644)
}

// nbrunFail matches nbrun.py's failure lines.
var nbrunFail = regexp.MustCompile(`(?m)^FAIL [^:]+: (cell (\d+)|notebook): (.*)$`)

// execScore turns a run into the execution criterion and its findings.
// Messages are for the learner; Detail keeps the log excerpt for the
// instructor.
func execScore(g *grader.Grader, s *grader.Submission, res ExecResult, o ExecOptions) (x criteria.Score, notes []integrity.Finding) {
	max := g.Options().Points[criteria.ExecutionID]
	x = criteria.Score{ID: criteria.ExecutionID, Title: executionTitle, Kind: criteria.KindExecution, Status: card.Fail, Max: max}
	switch {
	case res.Infra != nil:
		x.Message = "评分环境出了问题，没能重新运行你的笔记本；这不是你的错，老师会重新运行后再给这一项打分。"
		x.Detail = "environment: " + res.Infra.Error()
		return x, []integrity.Finding{{Code: FindExecEnvironment, Message: "评分环境没能运行这份笔记本，这一项等老师重新运行。", Detail: x.Detail}}
	case res.TimedOut:
		x.Message = fmt.Sprintf("从头运行整本笔记本超过了 %s 的总时限，被停止了。检查有没有死循环或特别慢的单元格。", o.Timeout)
		x.Detail = lastLines(res.Log, 5)
		return x, nil
	case res.TooLarge:
		x.Message = fmt.Sprintf("重新运行时输出超过了 %d 字节的上限：不要打印整份数据或画过大的图。", o.MaxBytes)
		return x, nil
	case res.ExitCode == 137:
		x.Message = "重新运行时进程被强行终止（多半是内存超过上限）。"
		x.Detail = lastLines(res.Log, 5)
		return x, nil
	case res.ExitCode != 0:
		x.Message, x.Detail = runFailure(res.Log, res.Executed, o.CellTimeout)
		return x, nil
	}
	nb, err := notebook.ParseNotebook(res.Executed)
	if err != nil {
		x.Message = "重新运行后读不出运行结果，老师会人工查看。"
		x.Detail = "executed notebook: " + err.Error()
		return x, nil
	}
	payloads, u := notebook.FindPayloads(nb)
	if u != nil {
		x.Message = "重新运行后自检输出的口径卡读不出来：" + u.Msg
		return x, nil
	}
	if len(payloads) == 0 {
		x.Message = "从头重新运行后没有得到自检输出：自检单元格是否还在最后，是否能运行到？"
		return x, nil
	}
	if s.SavedCard() == nil { // the self-check never ran: nothing to compare with
		x.Status, x.Points = card.Pass, max
		x.Message = "提交时没有运行自检；在课程镜像里（无网络）从头运行成功，评分用的是运行出来的口径卡。"
		return x, nil
	}
	// Against the saved output: a notebook saved without re-running after
	// the card changed runs, but not into what was handed in.
	if diff := integrity.CardDiff(s.SavedCard(), payloads[0].Payload.Card); len(diff) > 0 {
		x.Points = max / 2
		x.Message = fmt.Sprintf("笔记本能从头运行，但运行出来的口径卡和你提交的不一样（字段：%s）。提交前请重启内核、从头运行一遍再保存。", strings.Join(diff, "、"))
		x.Detail = "fields differ: " + strings.Join(diff, ", ")
		return x, []integrity.Finding{{Code: FindExecCardDiffers, Warn: true,
			Message: "在课程镜像里重新运行后得到的口径卡和提交的口径卡不一样：提交的输出不是当前口径卡单元格运行出来的。", Detail: x.Detail}}
	}
	x.Status, x.Points = card.Pass, max
	x.Message = "在课程镜像里（无网络）从头运行，得到的口径卡和提交的一致。"
	return x, nil
}

// runFailure explains a failed run from nbrun's log and, for a failing
// cell, from that cell's own output in the executed copy.
func runFailure(log string, executed []byte, cellTimeout time.Duration) (msg, detail string) {
	m := nbrunFail.FindStringSubmatch(log)
	if m == nil {
		return "重新运行没有成功（运行程序非正常退出）。", lastLines(log, 5)
	}
	reason := clip(strings.TrimSpace(m[3]), 300)
	if strings.Contains(reason, "CellTimeoutError") || strings.Contains(reason, "Timeout") {
		return fmt.Sprintf("有一个单元格的运行超过了每个单元格 %s 的时限。", cellTimeout), reason
	}
	if m[2] == "" {
		return "重新运行没有成功：" + reason, reason
	}
	n, _ := strconv.Atoi(m[2])
	head, what := cellProblem(executed, n)
	if what == "" {
		what = reason
	}
	where := fmt.Sprintf("第 %d 个单元格", n+1)
	if head != "" {
		where += "（以“" + head + "”开头）"
	}
	return fmt.Sprintf("从头重新运行时%s出错：%s", where, what), reason
}

// cellProblem is cell n's first code line and the most telling line of its
// failure: a panic, else the first stderr line, else the error output.
func cellProblem(executed []byte, n int) (head, what string) {
	var nb struct {
		Cells []struct {
			Source  json.RawMessage `json:"source"`
			Outputs []struct {
				OutputType string          `json:"output_type"`
				Name       string          `json:"name"`
				Text       json.RawMessage `json:"text"`
				EName      string          `json:"ename"`
				EValue     string          `json:"evalue"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if json.Unmarshal(executed, &nb) != nil || n < 0 || n >= len(nb.Cells) {
		return "", ""
	}
	c := nb.Cells[n]
	src, _ := notebook.Multiline(c.Source)
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "%%" {
			head = clip(l, 40)
			break
		}
	}
	// Stream outputs split lines anywhere (a kernel flushes when it
	// likes): join them before reading lines.
	var all strings.Builder
	var errOut string
	for _, o := range c.Outputs {
		switch {
		case o.OutputType == "stream" && o.Name == "stderr":
			t, _ := notebook.Multiline(o.Text)
			all.WriteString(t)
		case o.OutputType == "error" && errOut == "":
			errOut = strings.TrimSpace(o.EName + ": " + o.EValue)
		}
	}
	var stderr []string
	for _, l := range strings.Split(all.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			stderr = append(stderr, l)
		}
	}
	for _, l := range stderr {
		if strings.HasPrefix(l, "panic:") {
			return head, clip(l, 200)
		}
	}
	if len(stderr) > 0 {
		return head, clip(stderr[0], 200)
	}
	return head, clip(errOut, 200)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._@+-]+`)

func safeName(s string) string {
	s = strings.TrimLeft(unsafeChars.ReplaceAllString(s, "_"), ".")
	if s == "" {
		s = "file"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
