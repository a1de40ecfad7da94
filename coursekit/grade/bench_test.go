package grade

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/grade/execute"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/report"
)

// BenchmarkGrade1000 grades 1,000 generated submissions (60 % right, 25 %
// with the typical mistakes, 15 % broken) from disk, as `coursekit grade`
// does, and writes every output, the class report included. One op is the whole batch; run it with
// `go test -run '^$' -bench Grade1000 -benchtime 1x ./coursekit/grade/`
// (GRADE_BENCH_N=200 for a smaller class). It is a benchmark, not a timed
// test: the figure depends on the machine.
func BenchmarkGrade1000(b *testing.B) {
	n := 1000
	if s := os.Getenv("GRADE_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%04d", i)
	}
	f := newFixture(b, ids...)
	dir := b.TempDir()
	var paths []string
	for i, id := range ids {
		var nb []byte
		switch {
		case i%20 < 12:
			nb = f.submitted(b, id, correctCard(b, f.variants[id]))
		case i%20 < 17:
			nb = f.submitted(b, id, mistakenCard(b, f.variants[id]))
		case i%20 == 17:
			nb = f.nb[id] // self-check never run
		case i%20 == 18:
			good := f.submitted(b, id, correctCard(b, f.variants[id]))
			nb = good[:len(good)/2]
		default:
			nb = []byte(`{"nbformat":3,"worksheets":[]}`)
		}
		p := filepath.Join(dir, "in", id+".ipynb")
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, nb, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	b.ResetTimer()
	for b.Loop() {
		g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, Public: f.public})
		if err != nil {
			b.Fatal(err)
		}
		subs := g.GradeAll(paths, nil)
		if err := report.Write(batch.NewBatch(f.roster, nil, subs), filepath.Join(dir, "out")); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if st, err := os.Stat(filepath.Join(dir, "out", report.ClassFile)); err != nil || st.Size() == 0 {
		b.Fatalf("no class report: %v", err) // the figure includes writing it
	}
}

// BenchmarkExecute20 is `coursekit grade --execute` on 20 submissions (16
// right, 4 with the typical mistakes): each re-run in the course image
// (IMAGE, default llmperf-course-lab:latest; build it with `make
// test-image`) with no network, EXEC_JOBS at a time (default: CPUs). It
// reports the wall time per submission and each container's own time.
//
//	go test -run '^$' -bench Execute20 -benchtime 1x ./coursekit/grade/
func BenchmarkExecute20(b *testing.B) {
	image := cmp.Or(os.Getenv("IMAGE"), "llmperf-course-lab:latest")
	ex := &execute.ContainerExecutor{Image: image, Memory: "2g"}
	if err := ex.CheckImage(context.Background()); err != nil {
		b.Fatal(err)
	}
	jobs := 0
	fmt.Sscan(os.Getenv("EXEC_JOBS"), &jobs)
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = fmt.Sprintf("x%02d", i)
	}
	f := newFixture(b, ids...)
	release, err := os.ReadFile(releasePath)
	if err != nil {
		b.Fatal(err)
	}
	rec := &timedExecutor{Executor: ex}
	b.ResetTimer()
	for b.Loop() {
		g, err := grader.NewGrader(grader.Options{Key: testKey, Roster: f.roster, KeepSource: true})
		if err != nil {
			b.Fatal(err)
		}
		var subs []*grader.Submission
		for i, id := range ids {
			c := correctCard(b, f.variants[id])
			if i%5 == 4 {
				c = mistakenCard(b, f.variants[id])
			}
			subs = append(subs, g.Grade(id+".ipynb", f.submitted(b, id, c)))
		}
		start := time.Now()
		if _, err := execute.ExecuteAll(context.Background(), g, subs, execute.ExecOptions{Executor: rec, Release: release, Jobs: jobs, WorkDir: b.TempDir()}, nil); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		for _, s := range subs {
			if x, _ := s.Score(criteria.ExecutionID); x.Status != card.Pass {
				b.Fatalf("%s: execution %s: %s (%s)", s.Learner, x.Status, x.Message, x.Detail)
			}
		}
		b.ReportMetric(wall.Seconds()/float64(len(subs)), "s/submission")
		b.ReportMetric(rec.mean().Seconds(), "s/container")
		b.ReportMetric(rec.max().Seconds(), "s/slowest-container")
	}
}

// timedExecutor records each run's own time.
type timedExecutor struct {
	execute.Executor
	mu sync.Mutex
	el []time.Duration
}

func (t *timedExecutor) Run(ctx context.Context, job execute.ExecJob) execute.ExecResult {
	r := t.Executor.Run(ctx, job)
	t.mu.Lock()
	t.el = append(t.el, r.Elapsed)
	t.mu.Unlock()
	return r
}

func (t *timedExecutor) mean() time.Duration {
	var sum time.Duration
	for _, d := range t.el {
		sum += d
	}
	return sum / time.Duration(max(len(t.el), 1))
}

func (t *timedExecutor) max() time.Duration { return slices.Max(append(t.el, 0)) }
