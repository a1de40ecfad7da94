package lab

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/sim"
	"github.com/llmperf-course/course/coursekit/trace"
)

// small is a lab on a fast simulator. The tests whose runs take seconds and
// whose checks do not compare timings between runs run side by side
// (t.Parallel): they wait on simulated clocks and use little CPU. The
// capacity searches stay sequential: the flake hunt gives each a process of
// its own (docker/test/flakehunt.py).
func small(t *testing.T) Lab {
	return Lab{Dir: t.TempDir(), Progress: io.Discard, Server: sim.Config{MaxBatch: 2, DecodeStep: time.Millisecond, DefaultMaxTokens: 4, Seed: 1, BusyWindow: 200 * time.Millisecond}}
}

// A run is saved and read back whole: every attempt sent is in the trace,
// the gauges were sampled on the trace's clock, /metrics was scraped.
func TestRunSavesWhatLoadReadsBack(t *testing.T) {
	l := small(t)
	run, err := l.Run("closed", "闭环 2 个用户", loadgen.Config{Concurrency: 2, Duration: 300 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if run.Sent == 0 || run.Sent != run.Recorded || int64(len(run.Trace.Attempts)) != run.Sent {
		t.Fatalf("sent %d, recorded %d, in trace %d", run.Sent, run.Recorded, len(run.Trace.Attempts))
	}
	if len(run.Gauges) == 0 {
		t.Fatal("no gauge was sampled")
	}
	for i := 1; i < len(run.Gauges); i++ {
		if run.Gauges[i].TMS < run.Gauges[i-1].TMS {
			t.Fatalf("gauges out of time order: %+v", run.Gauges)
		}
	}
	if got := run.MetricLines("sim_device_busy_ratio", "sim_queue_depth"); len(got) != 2 {
		t.Errorf("metrics lines %q from:\n%s", got, run.Metrics)
	}
	back, err := l.Load("closed")
	if err != nil {
		t.Fatal(err)
	}
	if back.Label != run.Label || len(back.Trace.Attempts) != len(run.Trace.Attempts) || len(back.Gauges) != len(run.Gauges) || back.Metrics != run.Metrics {
		t.Fatalf("loaded run differs: %+v vs %+v", back, run)
	}
	cs, err := l.Charts("closed")
	if err != nil || len(cs) != 1 || cs[0].Name != "闭环 2 个用户" || cs[0].Trace == nil {
		t.Fatalf("charts: %+v %v", cs, err)
	}
	rep := run.Report(1000)
	for _, want := range []string{"闭环 2 个用户", "次/s", "失败率", "最近秩"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	if _, _, ok := run.WindowBusy(); !ok && len(run.Gauges) > 3 {
		t.Error("no busy reading in the window")
	}
	for _, f := range []string{"closed.jsonl", "closed.run.json"} {
		if _, err := os.Stat(filepath.Join(l.Dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestLoadNamesTheMissingRunInChinese(t *testing.T) {
	l := small(t)
	_, err := l.Load("open")
	if err == nil || !strings.Contains(err.Error(), "还没有名为“open”的运行") {
		t.Fatalf("err %v", err)
	}
	if _, err := l.Run("../x", "", loadgen.Config{}); err == nil {
		t.Fatal("a run name with a path must be refused")
	}
}

func TestGaugeRangeAndFailureSplit(t *testing.T) {
	r := &Run{Gauges: []labfig.Gauge{{TMS: 0, Busy: 0, QueueDepth: 0}, {TMS: 100, Busy: 0.9, QueueDepth: 3}, {TMS: 200, Busy: 1, QueueDepth: 7}, {TMS: 300, Busy: 0.5, QueueDepth: 1}}}
	lo, hi, ok := r.GaugeRange(Busy, 100, 300)
	if !ok || lo != 0.9 || hi != 1 {
		t.Errorf("busy [100,300): %v %v %v", lo, hi, ok)
	}
	r.Sent, r.Recorded, r.LagP99MS = 12, 11, 0.5
	if got, want := r.SentLine(), "发出 12 次，记录 11 次；发送滞后 P99 = 0.50 ms\n"; got != want {
		t.Errorf("SentLine = %q; want %q", got, want)
	}
	if q := r.MaxQueue(0, 1000); q != 7 {
		t.Errorf("max queue %d", q)
	}
	if _, _, ok := r.GaugeRange(Queue, 1000, 2000); ok {
		t.Error("no sample in [1000, 2000)")
	}
	tr, err := trace.ReadFile("../../data/unit01/trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if before, after := FailureSplit(tr); before != 2 || after != 0 {
		t.Errorf("R9 and R10 failed before any output: %d, %d", before, after)
	}
	late := tr.Attempts[0].Clone()
	late.ID, late.Outcome = "X", trace.Timeout
	tr.Attempts = append(tr.Attempts, late)
	if _, after := FailureSplit(tr); after != 1 {
		t.Errorf("a timeout after the first output: %d", after)
	}
	if got, want := FailureSplitLine(tr), "窗口内失败 3 次：拿到首字之后才失败的 1 次，一个输出都没拿到的 2 次（课程卡记为缺失，vLLM 的 ttfts 里是 0.0）\n"; got != want {
		t.Errorf("FailureSplitLine = %q; want %q", got, want)
	}
}

// While a run lasts, a short Chinese line about once a second says how far
// it is (elapsed, sent, in flight, ended), and a last line when it is done;
// the run it records is the same as without them.
func TestRunPrintsProgressAboutOnceASecond(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	l := small(t)
	l.Progress = &out
	load := loadgen.Config{Concurrency: 2, Duration: 2200 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3}
	run, err := l.Run("progress", "闭环 2 个用户", load)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("want a line at about 1 s and 2 s and a last one, got %q", lines)
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "压测结束") || !strings.Contains(last, fmt.Sprintf("共发出 %d 次", run.Sent)) {
		t.Errorf("last line %q should say the run ended and how many were sent (%d)", last, run.Sent)
	}
	going := lines[:len(lines)-1]
	if len(going) == 0 || len(going) > 3 {
		t.Errorf("a 2.2 s run should print one or two lines while it goes (about once a second), got %q", going)
	}
	for _, line := range going {
		for _, want := range []string{"压测进行中", " s", "已发出", "在途", "已结束"} {
			if !strings.Contains(line, want) {
				t.Errorf("progress line %q lacks %q", line, want)
			}
		}
		if strings.ContainsAny(line, ",;:()") {
			t.Errorf("progress line %q: Chinese text takes full-width punctuation", line)
		}
	}
	// What is recorded does not change: every attempt in the trace, the
	// gauges through the run (a starved machine reads fewer: a ticker drops
	// the ticks it could not deliver), no progress text in the saved files.
	if run.Sent == 0 || run.Sent != run.Recorded || int64(len(run.Trace.Attempts)) != run.Sent || len(run.Gauges) < 2 {
		t.Fatalf("sent %d, recorded %d, in trace %d, gauges %d", run.Sent, run.Recorded, len(run.Trace.Attempts), len(run.Gauges))
	}
	// A reading every 100 ms at most, besides the last one at the end: no
	// more readings than a 100 ms ticker started with the run has fired by
	// the last reading. Each tick's reading comes at or after its tick, so
	// a late first tick (whose reading lands close to the next) cannot add
	// one; the count is checked against the run's clock, not each gap.
	span := run.Gauges[len(run.Gauges)-1].TMS - run.Gauges[0].TMS
	lastMS := run.Gauges[len(run.Gauges)-1].TMS
	if most := int(lastMS/100) + 1; len(run.Gauges) > most {
		t.Errorf("%d gauge readings by %.0f ms into the run: want at most %d (one each 100 ms, and the last)", len(run.Gauges), lastMS, most)
	}
	if span < 1000 {
		t.Errorf("gauges span %.0f ms of a 2.2 s run", span)
	}
	for _, f := range []string{"progress.jsonl", "progress.run.json"} {
		b, err := os.ReadFile(filepath.Join(l.Dir, f))
		if err != nil || bytes.Contains(b, []byte("压测")) {
			t.Errorf("%s: %v, or it holds a progress line", f, err)
		}
	}
}

// A run whose counts a prediction asks about shows only how long it has
// gone until the prediction is written.
func TestHiddenCountsShowOnlyTheTime(t *testing.T) {
	t.Parallel()
	load := loadgen.Config{Concurrency: 2, Duration: 1200 * time.Millisecond, Timeout: 5 * time.Second, MaxTokens: 4, Seed: 3}
	// RunFor hides the counts while the prediction has a blank, and shows
	// them once it is written.
	for _, c := range []struct {
		prediction any
		hidden     bool
	}{
		{struct{ ClosedPerS float64 }{nb.Unset}, true},
		{struct{ ClosedPerS float64 }{6}, false},
	} {
		var out bytes.Buffer
		l := small(t)
		l.Progress = &out
		if _, err := l.RunFor(c.prediction, "hidden", "闭环 2 个用户", load); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if !strings.Contains(text, "压测进行中") || !strings.Contains(text, "压测结束") {
			t.Fatalf("progress %q", text)
		}
		if shown := regexp.MustCompile(`\d+ 次`).MatchString(text); shown == c.hidden {
			t.Errorf("prediction %v: counts shown %v: %q", c.prediction, shown, text)
		}
	}
}
