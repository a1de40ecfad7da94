package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/execute"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
)

// execFlags are grade's --execute options: re-run each submission in the
// course image, offline, after restoring its locked cells.
type execFlags struct {
	on          *bool
	engine      *string
	image       *string
	release     *string
	cellTimeout *time.Duration
	timeout     *time.Duration
	jobs        *int
	memory      *string
	keep        *bool
	extra       *string
}

func addExecFlags(fs *flag.FlagSet) *execFlags {
	return &execFlags{
		on:          fs.Bool("execute", false, "also re-run every gradable submission in the course image (no network), locked cells restored first"),
		engine:      fs.String("engine", "podman", "container engine for --execute (podman or docker)"),
		image:       fs.String("image", "llmperf-course-lab:latest", "the course image for --execute"),
		release:     fs.String("release", "", "the released deliverable (as given to assign), for --execute (default: the one built into coursekit, as assign uses)"),
		cellTimeout: fs.Duration("cell-timeout", 2*time.Minute, "--execute: time limit per cell"),
		timeout:     fs.Duration("timeout", 10*time.Minute, "--execute: time limit per notebook, container start included"),
		jobs:        fs.Int("jobs", 0, "--execute: notebooks run at once (default: number of CPUs)"),
		memory:      fs.String("memory", "2g", "--execute: memory limit per container (\"\" for none)"),
		keep:        fs.Bool("keep-executed", true, "--execute: keep each executed notebook and its log under OUT/executed"),
		extra:       fs.String("engine-args", "", "--execute: extra engine run arguments, space-separated, e.g. --cpus=1 (default: none)"),
	}
}

// prepare checks everything --execute needs before any grading starts and
// returns the options, or nil when --execute is off.
func (f *execFlags) prepare(out string) (*execute.ExecOptions, *execute.ContainerExecutor, error) {
	if !*f.on {
		return nil, nil, nil
	}
	release, _, err := releaseNotebook(*f.release)
	if err != nil {
		return nil, nil, setupf("grade --execute: release notebook: %v", err)
	}
	ex := &execute.ContainerExecutor{Engine: *f.engine, Image: *f.image, Memory: *f.memory, ExtraArgs: strings.Fields(*f.extra)}
	if err := ex.CheckImage(context.Background()); err != nil {
		return nil, nil, setupf("grade --execute: %v", err)
	}
	o := &execute.ExecOptions{Executor: ex, Release: release, CellTimeout: *f.cellTimeout, Timeout: *f.timeout, Jobs: *f.jobs}
	if *f.keep {
		o.KeepDir = filepath.Join(out, "executed")
	}
	return o, ex, nil
}

// run re-executes subs; Ctrl-C stops the running containers (each is
// removed by name) and the batch still writes what it has.
func (f *execFlags) run(g *grader.Grader, subs []*grader.Submission, o *execute.ExecOptions, progress, stdout io.Writer) (notes []grader.Warning, err error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	notes, err = execute.ExecuteAll(ctx, g, subs, *o, progress)
	if err != nil {
		return nil, fmt.Errorf("grade --execute: %w", err)
	}
	n, passed, env := 0, 0, 0
	for _, s := range subs {
		x, ok := s.Score(criteria.ExecutionID)
		if !ok {
			continue
		}
		n++
		if x.Status == card.Pass {
			passed++
		}
		if slices.ContainsFunc(s.Integrity, func(f integrity.Finding) bool { return f.Code == execute.FindExecEnvironment }) {
			env++
		}
	}
	el := time.Since(start)
	per := 0.0
	if n > 0 {
		per = el.Seconds() / float64(n)
	}
	fmt.Fprintf(stdout, "executed %s in the course image in %.1f s (%.1f s per submission): %d passed the execution criterion\n", nouns(n, "submission", "submissions"), el.Seconds(), per, passed)
	if env > 0 {
		fmt.Fprintf(stdout, "WARNING: %s could not be run because of the grading environment (scored 0 for execution, finding exec_environment): fix it and grade again\n", nouns(env, "submission", "submissions"))
	}
	return notes, nil
}
