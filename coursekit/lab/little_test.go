package lab

import (
	"io"
	"math"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// 07's Little's-law exercise: N ÷ W, with W the closed run's mean stay as
// printed (two decimals), must land within the exercise's 10 % of the rate
// it is compared with, in every run of the notebook's defaults. SendRate
// fails this (every user sends at t = 0, so the window holds up to one
// extra cycle a user); LittleRate, cycles over their span, does not.
func TestLittleRateIsWhatNOverWPredicts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs 07's closed loop 5 times (3 s each), one after another")
	}
	// The runs follow one another: five closed loops (each a simulator and
	// four users) side by side on two cores made the client's own delay
	// between an answer and the next send a visible part of each cycle at
	// load average 22, and N ÷ W overshot the cycle rate by more than 5 %.
	const users = 4
	for i := range 5 {
		l := Lab{Dir: t.TempDir(), Progress: io.Discard, Server: LoopLabServer()}
		r, err := l.Run("closed", "闭环", loadgen.Config{Concurrency: users, Duration: 3 * time.Second, Timeout: 1500 * time.Millisecond, MaxTokens: 32, Seed: 12})
		if err != nil {
			t.Fatal(err)
		}
		w, ok := r.MeanStayS()
		got, ok2 := r.LittleRate()
		if r.CycleRate() != got {
			t.Errorf("CycleRate %v, LittleRate %v", r.CycleRate(), got)
		}
		if i == 0 {
			t.Log(r.LittleLines())
		}
		if !ok || !ok2 {
			t.Errorf("run %d: no stay or no rate", i)
			continue
		}
		answer := users / (math.Round(w*100) / 100)
		if math.Abs(answer-got) > 0.05*got {
			t.Errorf("run %d: N/W = %d/%.2f = %.2f/s, LittleRate %.2f/s (SendRate %.2f/s)", i, users, w, answer, got, r.SendRate())
		}
		t.Logf("run %d: N/W = %.2f/s, LittleRate %.2f/s, SendRate %.2f/s", i, answer, got, r.SendRate())
	}
	if _, ok := (&Run{Trace: unitRun(t).Trace}).LittleRate(); ok {
		t.Error("an open-loop trace has no Little rate")
	}
}

// 07[2]'s config: 4 users, 32 tokens, a step of 10 ms + 3 × 2 ms for a
// batch of 4, so 4 answers every 32 × 16 ms = 7.8125/s; more users than
// the batch holds wait and add nothing, and an open loop has no estimate.
func TestConfigCycleRate(t *testing.T) {
	cfg := LoopLabServer()
	for _, c := range []struct {
		users, tokens int
		want          float64
	}{{4, 32, 4 / (32 * 0.016)}, {8, 32, 4 / (32 * 0.016)}, {1, 32, 1 / (32 * 0.010)}, {2, 64, 2 / (64 * 0.012)}, {0, 32, 0}} {
		if got := configCycleRate(cfg, c.users, c.tokens); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%d users, %d tokens: %v, want %v", c.users, c.tokens, got, c.want)
		}
	}
	if got := (&Run{Trace: unitRun(t).Trace}).ConfigCycleRate(cfg); got != 0 {
		t.Errorf("an open-loop trace's config rate is %v, want 0", got)
	}
}
