// Package lab runs the course's load experiments from a notebook: a fresh
// simulated inference server (coursekit/sim) on 127.0.0.1, one load from
// the course's client (coursekit/loadgen) against it, and the server's
// gauges (busy ratio, queue depth, batch size) sampled on the trace's own
// clock while it runs.
//
// Every run is saved, because a GoNB cell is a process of its own: a later
// cell reads the run back with Load instead of sharing a variable. A run is
// its trace (trace format v1, as `coursekit bench --out` writes it) plus a
// small JSON file with its label, gauges, one /metrics scrape and the
// client's result.
//
// Notebook 07 (open vs closed loop) is built on it:
//
//	var experiment = lab.Lab{Server: lab.LoopLabServer()}
//
//	%%
//	run := nb.Must(experiment.Run("open", "开环 12 次/s", loadgen.Config{Rate: 12, ...}))
//	fmt.Print(run.Report(1000))
//
//	%%
//	nb.Chart(labfig.Queue(nb.Must(experiment.Charts("closed", "open"))))
package lab

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Lab is one experiment: the simulated engine every run starts afresh, and
// the folder its runs are saved in. The zero value of each field but
// Server is a sensible default.
type Lab struct {
	// Server is the simulator every run starts with (a new server per run:
	// no queue or busy history carries over from one run to the next).
	Server sim.Config
	// Dir is where runs are saved. "" means a "lab" folder in the GoNB
	// kernel's own temp dir (GONB_TMP_DIR), so that a restarted kernel
	// starts clean; outside GoNB, in the system temp dir.
	Dir string
	// SampleEvery is how often the gauges are read (default 100 ms).
	SampleEvery time.Duration
	// ScrapeBeforeEnd is how long before the window ends the one /metrics
	// scrape is taken (default 100 ms): what a dashboard showed then.
	ScrapeBeforeEnd time.Duration
	// Progress is where a short Chinese line goes about once a second while
	// a run lasts (elapsed time, sent, in flight, ended), and a last one
	// when it is done, so that a cell is not silent for seconds. nil means
	// standard output, which GoNB shows in the cell as the run goes;
	// io.Discard silences it. The lines are not part of the run.
	Progress io.Writer
	// HideCounts limits the progress lines to the elapsed time, for a run
	// whose counts a prediction asks about (see WithCountsHidden).
	HideCounts bool
}

// WithCountsHidden is the lab with progress lines that show only the
// elapsed time when hide is true: a cell that runs before its prediction
// is written passes !nb.Guessed(prediction), since the counts would give
// the answer away.
func (l Lab) WithCountsHidden(hide bool) Lab {
	l.HideCounts = hide
	return l
}

// RunFor is Run for a cell that runs its load before its prediction is
// checked: while prediction has a guess not written yet (nb.Written), the
// progress lines show only the elapsed time, since the counts would give
// the answer away. The cell then asks nb.Guessed(prediction) before it
// shows the run.
func (l Lab) RunFor(prediction any, name, label string, load loadgen.Config) (*Run, error) {
	l.HideCounts = !nb.Written(prediction)
	return l.Run(name, label, load)
}

// Run is one saved run: what the client recorded and what the server's
// gauges read meanwhile.
type Run struct {
	// Name is the file name the run is saved under (name.jsonl, name.run.json).
	Name string `json:"name"`
	// Label is what charts and tables call the run, e.g. "闭环 4 个用户".
	Label string `json:"label"`
	// Trace is every attempt the client made, failures included.
	Trace *trace.Trace `json:"-"`
	// Gauges are the server's gauges read every SampleEvery, at TMS on the
	// trace's clock (ms since the run started).
	Gauges []labfig.Gauge `json:"gauges"`
	// Metrics is the /metrics text scraped ScrapeBeforeEnd before the
	// window ended (Prometheus text format), or why it could not be read.
	Metrics string `json:"metrics"`
	// Sent and Recorded are the client's counts: equal unless attempts were
	// lost, which the client reports as an error.
	Sent     int64 `json:"sent"`
	Recorded int64 `json:"recorded"`
	// LagP99MS is the 99th percentile (nearest rank) of how late the open
	// loop sent against its schedule, in ms: small means the schedule held.
	LagP99MS float64 `json:"lag_p99_ms"`
	// Engine is the real engine the run measured (RunEngine); nil for the
	// simulator.
	Engine *EngineInfo `json:"engine,omitempty"`
}

// dir is where runs live; it is created on first use.
func (l Lab) dir() (string, error) {
	d := l.Dir
	if d == "" {
		d = filepath.Join(cmp.Or(os.Getenv("GONB_TMP_DIR"), os.TempDir()), "lab")
	}
	return d, os.MkdirAll(d, 0o755)
}

func (l Lab) paths(name string) (tracePath, runPath string, err error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", "", fmt.Errorf("lab: run name %q: want a plain file name such as \"open\"", name)
	}
	d, err := l.dir()
	if err != nil {
		return "", "", err
	}
	return filepath.Join(d, name+".jsonl"), filepath.Join(d, name+".run.json"), nil
}

// Run starts a fresh simulator on a free port of 127.0.0.1, sends load to
// it (load.URL is set here), samples the gauges, scrapes /metrics once just
// before the window ends, stops the server and saves the run under name,
// replacing an earlier run of that name. label names the run in charts.
func (l Lab) Run(name, label string, load loadgen.Config) (*Run, error) {
	return l.RunContext(context.Background(), name, label, load)
}

// RunContext is Run with a context: cancelling it ends the load early
// (every attempt sent is still recorded, as loadgen does).
func (l Lab) RunContext(ctx context.Context, name, label string, load loadgen.Config) (*Run, error) {
	tracePath, runPath, err := l.paths(name)
	if err != nil {
		return nil, err
	}
	srv := sim.New(l.Server)
	url, serverDone, err := serve(ctx, srv)
	if err != nil {
		return nil, err
	}

	run := &Run{Name: name, Label: label}
	load.URL = url
	var mu sync.Mutex // Progress runs on loadgen's goroutine
	load.ProgressEvery = cmp.Or(l.SampleEvery, 100*time.Millisecond)
	user := load.Progress
	load.Progress = func(p loadgen.Progress) {
		st := srv.Stats()
		mu.Lock()
		run.Gauges = append(run.Gauges, labfig.Gauge{TMS: float64(p.Elapsed.Microseconds()) / 1000,
			Busy: st.Busy, QueueDepth: st.QueueDepth, BatchSize: st.BatchSize})
		mu.Unlock()
		if user != nil {
			user(p)
		}
	}
	if err := l.record(ctx, run, load, tracePath, runPath, serverDone); err != nil {
		return nil, err
	}
	return run, nil
}

// serve serves srv on a free port of 127.0.0.1 until stop is called.
func serve(ctx context.Context, srv *sim.Server) (url string, stop func() error, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("lab: no free port on 127.0.0.1: %w", err)
	}
	sctx, cancel := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(sctx, ln) }()
	return "http://" + ln.Addr().String(), func() error { cancel(); return <-served }, nil
}

// startSim starts a fresh simulator c on a free port of 127.0.0.1.
func startSim(ctx context.Context, c sim.Config) (url string, stop func() error, err error) {
	return serve(ctx, sim.New(c))
}

// record sends load, writes its trace, scrapes load.URL's /metrics once
// just before the window ends, stops the server (stop runs whatever
// happens, so no server outlives a failed run), and saves the run.
func (l Lab) record(ctx context.Context, run *Run, load loadgen.Config, tracePath, runPath string, stop func() error) error {
	scraped := make(chan string, 1)
	at := load.Warmup + load.Duration - cmp.Or(l.ScrapeBeforeEnd, 100*time.Millisecond)
	scrape := time.AfterFunc(max(at, 0), func() { scraped <- scrapeMetrics(load.URL + "/metrics") })

	f, err := os.Create(tracePath)
	if err != nil {
		scrape.Stop()
		return errors.Join(err, stop())
	}
	w := bufio.NewWriter(f)
	load.Progress = l.printProgress(load.Progress)
	res, runErr := loadgen.Run(ctx, load, w)
	if !scrape.Stop() {
		run.Metrics = <-scraped
	} else {
		run.Metrics = "（运行在抓取 /metrics 之前就结束了）"
	}
	if err := errors.Join(runErr, w.Flush(), f.Close(), stop()); err != nil {
		return fmt.Errorf("lab: run %q: %w", run.Name, err)
	}
	run.Sent, run.Recorded, run.LagP99MS = res.Sent, res.Recorded, res.Lag.P99
	return save(run, tracePath, runPath)
}

// phaseNames are loadgen's phases as the progress line names them.
var phaseNames = map[string]lang.Msg{"warmup": {"预热", "warm-up"}, "window": {"窗口内", "in the window"},
	"drain": {"窗口已过，等在途的尝试结束", "window over, waiting for the attempts in flight"}, "done": {"这次压测已结束", "this run is over"}}

// phaseName is loadgen's phase p in lg (p itself when unknown).
func phaseName(lg lang.Lang, p string) string {
	if m, ok := phaseNames[p]; ok {
		return m.In(lg)
	}
	return p
}

// printProgress wraps next (which may be nil) so that it also writes a
// progress line to l.Progress when a whole second has passed since the
// last one, and a last line when the run is done. It runs on loadgen's
// progress goroutine, one call at a time.
func (l Lab) printProgress(next func(loadgen.Progress)) func(loadgen.Progress) {
	out := l.Progress
	if out == nil {
		out = os.Stdout
	}
	due := time.Second
	return func(p loadgen.Progress) {
		if next != nil {
			next(p)
		}
		switch {
		case p.Phase == "done":
			line := fmt.Sprintf("压测结束，用时 %s s", numfmt.Fixed(p.Elapsed.Seconds(), 1))
			if !l.HideCounts {
				line += fmt.Sprintf("：共发出 %d 次，已结束 %d 次（其中失败 %d 次）", p.Sent, p.Done, p.Errors)
			}
			fmt.Fprintln(out, line)
		case p.Elapsed >= due:
			due = p.Elapsed.Truncate(time.Second) + time.Second
			line := fmt.Sprintf("压测进行中 %s s（%s）", numfmt.Fixed(p.Elapsed.Seconds(), 1), phaseName(lang.ZH, p.Phase))
			if l.HideCounts {
				line += "：次数等你写下预测后再显示"
			} else {
				line += fmt.Sprintf("：已发出 %d 次，在途 %d 次，已结束 %d 次（其中失败 %d 次）", p.Sent, p.InFlight, p.Done, p.Errors)
			}
			fmt.Fprintln(out, line)
		}
	}
}

func scrapeMetrics(url string) string {
	c := http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "（没有读到 /metrics：" + err.Error() + "）"
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return "（/metrics 没有读完：" + err.Error() + "）"
	}
	return string(b)
}

// Load reads a saved run back. A run that was never made says which cell
// to run first.
func (l Lab) Load(name string) (*Run, error) {
	tracePath, runPath, err := l.paths(name)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(runPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("还没有名为“%s”的运行：先运行上面起服务、压测的那个单元格（%w）", name, err)
	}
	if err != nil {
		return nil, err
	}
	run := &Run{}
	if err := json.Unmarshal(b, run); err != nil {
		return nil, fmt.Errorf("%s: %w", runPath, err)
	}
	if run.Trace, err = trace.ReadFile(tracePath); err != nil {
		return nil, err
	}
	return run, nil
}

// LoadAll reads the named runs back, in order (see Load).
func (l Lab) LoadAll(names ...string) ([]*Run, error) {
	out := make([]*Run, 0, len(names))
	for _, n := range names {
		r, err := l.Load(n)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// Charts loads the named runs as the charts package draws them.
func (l Lab) Charts(names ...string) ([]labfig.Run, error) {
	runs, err := l.LoadAll(names...)
	if err != nil {
		return nil, err
	}
	out := make([]labfig.Run, len(runs))
	for i, r := range runs {
		out[i] = r.Chart()
	}
	return out, nil
}

// Chart is the run as the charts package draws it.
func (r *Run) Chart() labfig.Run {
	return labfig.Run{Name: r.Label, Trace: r.Trace, Gauges: r.Gauges}
}

// SentLine is the client's side of the run in one line of Chinese: sent,
// recorded and the open loop's send lag P99, the evidence that the load
// generator kept to its schedule.
func (r *Run) SentLine() string {
	return fmt.Sprintf("发出 %d 次，记录 %d 次；发送滞后 P99 = %s ms\n", r.Sent, r.Recorded, numfmt.Fixed(r.LagP99MS, 2))
}
