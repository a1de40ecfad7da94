package lab

import (
	"io"
	"math"
	"sync"
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
		t.Skip("runs 07's closed loop 5 times (3 s each)")
	}
	const users = 4
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := Lab{Dir: t.TempDir(), Progress: io.Discard, Server: LoopLabServer()}
			r, err := l.Run("closed", "闭环", loadgen.Config{Concurrency: users, Duration: 3 * time.Second, Timeout: 1500 * time.Millisecond, MaxTokens: 32, Seed: 12})
			if err != nil {
				t.Error(err)
				return
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
				return
			}
			answer := users / (math.Round(w*100) / 100)
			if math.Abs(answer-got) > 0.05*got {
				t.Errorf("run %d: N/W = %d/%.2f = %.2f/s, LittleRate %.2f/s (SendRate %.2f/s)", i, users, w, answer, got, r.SendRate())
			}
			t.Logf("run %d: N/W = %.2f/s, LittleRate %.2f/s, SendRate %.2f/s", i, answer, got, r.SendRate())
		}()
	}
	wg.Wait()
	if _, ok := (&Run{Trace: unitRun(t).Trace}).LittleRate(); ok {
		t.Error("an open-loop trace has no Little rate")
	}
}
