package loadgen_test

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// Before the first answer there is no TTFT: the progress line says so
// instead of showing 0 ms, and shows the percentiles once there is one.
func TestProgressNoTTFTBeforeTheFirstAnswer(t *testing.T) {
	none := loadgen.Progress{Phase: "window", Sent: 3, InFlight: 3}.String()
	if strings.Contains(none, "0.0 ms") || !strings.Contains(none, "TTFT — (no answer yet)") {
		t.Errorf("no answer yet: %q", none)
	}
	one := loadgen.Progress{Phase: "window", Sent: 3, Done: 1, TTFTN: 1, TTFTP50: 12.5, TTFTP95: 12.5}.String()
	if !strings.Contains(one, "TTFT p50 ≈12.5 ms p95 ≈12.5 ms") || strings.Contains(one, "no answer") {
		t.Errorf("one answer: %q", one)
	}
}

// Every percentile the progress line prints comes from a live HDR
// histogram, not the card's exact nearest-rank value of the trace (walk
// 35l: "TTFT p50 292.6 ms" against the card's 292.492), so each is marked
// approximate in the line itself, the final "done" line included.
func TestProgressPercentilesAreMarkedApproximate(t *testing.T) {
	for _, phase := range []string{"window", "done"} {
		s := loadgen.Progress{Phase: phase, Sent: 2, Done: 2, TTFTN: 2, TTFTP50: 292.6, TTFTP95: 430.1,
			Scheduled: true, LagP99: 16.51, RateOver: time.Second, Rate: 2}.String()
		figures := regexp.MustCompile(`p(50|95|99) (\S+)`).FindAllStringSubmatch(s, -1)
		if len(figures) != 3 {
			t.Fatalf("%s: %q: want TTFT p50, p95 and send lag p99", phase, s)
		}
		for _, f := range figures {
			if !strings.HasPrefix(f[2], "≈") {
				t.Errorf("%s: %q: %q is not marked approximate", phase, s, f[0])
			}
		}
	}
}

// The final report's rate is the run's mean over the time sends could be
// made, not the last interval's (in which nothing was left to send, which
// printed "sent 30 (0.0/s)"): the planned warm-up and window, or until the
// NumRequests cap's last answer. The line says over how long.
func TestProgressFinalRateIsTheRunsMean(t *testing.T) {
	_, url := startSim(t, fast)
	for _, c := range []struct {
		name string
		cfg  loadgen.Config
	}{
		{"planned window", loadgen.Config{URL: url, Model: "m", Rate: 40, Arrival: loadgen.Constant, Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond}},
		{"num requests", loadgen.Config{URL: url, Model: "m", Concurrency: 2, Duration: time.Minute, NumRequests: 12}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var last loadgen.Progress
			c.cfg.Progress = func(p loadgen.Progress) { last = p } // one goroutine calls it
			c.cfg.ProgressEvery = time.Hour                        // only the final report
			res, tr, _ := run(t, context.Background(), c.cfg)
			over := 500 * time.Millisecond
			if c.cfg.NumRequests > 0 {
				over = time.Duration(tr.Header.Window.EndMS * 1e6) // the window ends at the cap's last answer
			}
			if last.Phase != "done" || last.Sent != res.Sent || last.RateOver != over {
				t.Fatalf("final report %+v, want done over %v", last, over)
			}
			if want := float64(res.Sent) / over.Seconds(); last.Rate <= 0 || math.Abs(last.Rate-want) > 1e-9 {
				t.Errorf("final rate %.3f/s, want %d sends / %v = %.3f/s", last.Rate, res.Sent, over, want)
			}
			if s := last.String(); !strings.Contains(s, fmt.Sprintf("sent %d (%.1f/s over %.1f s)", res.Sent, last.Rate, over.Seconds())) {
				t.Errorf("final line %q", s)
			}
		})
	}
	// A live report's rate is over its trailing span, and says so (walk
	// 35g F5: "sent 47 (8.0/s)" read as the run's mean); the first report,
	// with no span yet, says nothing more.
	if s := (loadgen.Progress{Phase: "drain", Sent: 47, Rate: 8, RateSpan: 5 * time.Second}).String(); !strings.Contains(s, "sent 47 (8.0/s over the last 5.0 s) ") {
		t.Errorf("live line %q", s)
	}
	if s := (loadgen.Progress{Phase: "window", Sent: 5, Rate: 0}).String(); !strings.Contains(s, "sent 5 (0.0/s) ") {
		t.Errorf("first line %q", s)
	}
}

// The progress line shows the send lag as such in an open loop, whose
// sends follow a schedule, and not at all in a closed loop, which sends
// when an answer ends and so has no lag behind a plan.
func TestProgressSendLagOnlyOnASchedule(t *testing.T) {
	_, url := startSim(t, fast)
	for _, c := range []struct {
		cfg  loadgen.Config
		want bool
	}{
		{loadgen.Config{URL: url, Model: "m", Rate: 40, Duration: 300 * time.Millisecond}, true},
		{loadgen.Config{URL: url, Model: "m", Concurrency: 2, Duration: 300 * time.Millisecond}, false},
	} {
		var last loadgen.Progress
		c.cfg.Progress = func(p loadgen.Progress) { last = p }
		c.cfg.ProgressEvery = time.Hour
		run(t, context.Background(), c.cfg)
		if s := last.String(); strings.Contains(s, "send lag p99") != c.want || strings.Contains(s, " lag p99") != c.want {
			t.Errorf("concurrency %d: %q, want the send lag shown: %v", c.cfg.Concurrency, s, c.want)
		}
	}
}
