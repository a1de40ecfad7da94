package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ExecJob is one prepared notebook to run.
type ExecJob struct {
	// Name is unique in the batch and safe in a container name.
	Name string
	// Dir holds Notebook and the learner's trace; it is mounted read-only.
	Dir      string
	Notebook string
	// CellTimeout bounds each cell; the caller's context bounds the whole.
	CellTimeout time.Duration
	// MaxBytes caps the executed notebook read back.
	MaxBytes int64
}

// ExecResult is what came back from one run.
type ExecResult struct {
	Executed []byte // the executed notebook (may be partial after a failure)
	Log      string // the runner's log, tail only
	ExitCode int
	TimedOut bool // the whole-notebook timeout fired
	TooLarge bool // the executed notebook exceeded MaxBytes
	// Infra is a failure of the grading environment (engine or image
	// missing, container not started): nothing the learner did.
	Infra   error
	Elapsed time.Duration
}

// Executor runs one prepared notebook in isolation.
type Executor interface {
	Run(ctx context.Context, job ExecJob) ExecResult
}

// ContainerExecutor runs notebooks in the course image with podman (or a
// docker-compatible engine): no network, no capabilities, no new
// privileges, a pid limit and optionally a memory limit; the submission is
// mounted read-only and copied inside, and docker/nbrun.py (in the image)
// executes it with the GoNB kernel.
type ContainerExecutor struct {
	Engine    string // "podman" (default) or "docker"
	Image     string
	Memory    string // e.g. "2g"; "" for no limit
	PidsLimit int    // default 512
	ExtraArgs []string
}

// execScript runs inside the container: $1 the notebook, $2 the per-cell
// timeout in seconds. The executed notebook goes to stdout, the log to
// stderr, and the exit status is nbrun's.
const execScript = `set -u
w=$(mktemp -d) || exit 120
cp -R /submission/. "$w/" || exit 121
python3 /opt/coursekit/nbrun.py --timeout-cell "$2" --out "$w/.executed" "$w/$1" 1>&2
rc=$?
[ -f "$w/.executed/$1" ] && cat "$w/.executed/$1"
exit $rc`

// CheckImage fails when the engine or the image is missing: a clear error
// before any grading, not one per submission.
func (e *ContainerExecutor) CheckImage(ctx context.Context) error {
	if e.Image == "" {
		return errors.New("no image given")
	}
	engine := e.engine()
	if _, err := exec.LookPath(engine); err != nil {
		return fmt.Errorf("the container engine %s is not installed or not on PATH (%v): install %s, or give --engine docker", engine, err, engine)
	}
	out, err := exec.CommandContext(ctx, engine, "image", "inspect", "--format", "{{.Id}}", e.Image).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s image inspect %s: %v: %s (build it first: make test-image, or podman build -f docker/Dockerfile -t %s .)",
			engine, e.Image, err, strings.TrimSpace(string(out)), e.Image)
	}
	return nil
}

func (e *ContainerExecutor) engine() string {
	if e.Engine == "" {
		return "podman"
	}
	return e.Engine
}

// Args is the engine command line for job (exported for tests and logs).
func (e *ContainerExecutor) Args(job ExecJob) []string {
	pids := e.PidsLimit
	if pids <= 0 {
		pids = 512
	}
	args := []string{"run", "--rm", "--name", "coursekit-grade-" + job.Name,
		"--network", "none", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
		"--pids-limit", strconv.Itoa(pids), "-v", job.Dir + ":/submission:ro"}
	if e.Memory != "" {
		args = append(args, "--memory", e.Memory)
	}
	args = append(args, e.ExtraArgs...)
	secs := int(job.CellTimeout.Round(time.Second) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return append(args, e.Image, "sh", "-c", execScript, "coursekit-grade", job.Notebook, strconv.Itoa(secs))
}

// Run starts the container and waits for it; when ctx ends, the container
// is removed (killing the engine's client alone may leave it running).
func (e *ContainerExecutor) Run(ctx context.Context, job ExecJob) ExecResult {
	start := time.Now()
	engine := e.engine()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	stdout := &capBuffer{max: job.MaxBytes, over: cancel}
	stderr := &tailBuffer{max: 64 << 10}
	cmd := exec.CommandContext(runCtx, engine, e.Args(job)...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	name := "coursekit-grade-" + job.Name
	cmd.Cancel = func() error {
		rm := exec.CommandContext(context.Background(), engine, "rm", "-f", "-t", "0", name)
		rm.Run()
		return cmd.Process.Kill()
	}
	cmd.WaitDelay = 20 * time.Second
	err := cmd.Run()
	res := ExecResult{Executed: stdout.buf.Bytes(), Log: stderr.String(), Elapsed: time.Since(start), TooLarge: stdout.exceeded}
	var exit *exec.ExitError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut = true
		res.ExitCode = -1
	case ctx.Err() != nil:
		res.Infra = fmt.Errorf("stopped by the grader: %w", ctx.Err())
		res.ExitCode = -1
	case res.TooLarge:
		res.ExitCode = -1
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
		if res.ExitCode >= 120 && res.ExitCode <= 127 { // the engine or the script's setup failed
			res.Infra = fmt.Errorf("%s run exited %d: %s", engine, res.ExitCode, lastLines(res.Log, 3))
		}
	case err != nil:
		res.Infra = err
		res.ExitCode = -1
	}
	return res
}

// capBuffer keeps at most max bytes and calls over once when more come.
type capBuffer struct {
	buf      bytes.Buffer
	max      int64
	exceeded bool
	over     func()
}

func (c *capBuffer) Write(p []byte) (int, error) {
	if c.exceeded {
		return len(p), nil
	}
	if c.max > 0 && int64(c.buf.Len()+len(p)) > c.max {
		c.exceeded = true
		c.over()
		return len(p), nil
	}
	return c.buf.Write(p)
}

// tailBuffer keeps the last max bytes written.
type tailBuffer struct {
	buf []byte
	max int
	cut bool
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if t.cut {
		return "…\n" + string(t.buf)
	}
	return string(t.buf)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
