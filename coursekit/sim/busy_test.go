package sim_test

import (
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/sim"
)

// The busy-seconds counter measures exactly the interval between two reads:
// its rate is 1 while the queue is never empty, it never goes back,
// and it stands still once the engine is idle, whatever the trailing gauge
// still remembers.
func TestBusySecondsCounter(t *testing.T) {
	cfg := sim.Config{MaxBatch: 2, DecodeStep: 5 * time.Millisecond, DefaultMaxTokens: 20, BusyWindow: 300 * time.Millisecond}
	s, ts := start(t, cfg)
	const name = "sim_device_busy_seconds_total"
	last := 0.0
	read := func() (v float64, before, after time.Time) {
		before = time.Now()
		v = scrape(t, ts.URL, name)
		after = time.Now()
		if v < last {
			t.Fatalf("%s went back from %g to %g", name, last, v)
		}
		last = v
		return v, before, after
	}
	if v, _, _ := read(); v != 0 {
		t.Errorf("idle server: %s = %g, want 0", name, v)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	var wg sync.WaitGroup
	const n = 40 // 40 requests, 2 at a time, 20 steps of ≥ 5 ms each: ≥ 2 s of work
	for range n {
		wg.Go(func() {
			resp, err := client.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","stream":true}`))
			if err == nil {
				io.Copy(io.Discard, resp.Body) // leaving early would abandon the request
				resp.Body.Close()
			}
		})
	}
	waitFor(t, "40 requests in the engine", func() bool { st := s.Stats(); return st.QueueDepth+st.BatchSize+done(s) == n })
	tokens := func() float64 { return scrape(t, ts.URL, "sim_generated_tokens_total") }
	c1, b1, a1 := read()
	t1 := tokens()
	waitFor(t, "40 full steps", func() bool { read(); return tokens() >= t1+2*40 })
	c2, b2, a2 := read()
	if q := s.Stats().QueueDepth; q < 1 {
		// 40 steps finish at most 4 of the 38 waiting requests.
		t.Fatalf("the queue emptied during the measurement (queue %d)", q)
	}
	// With a queue all along the engine never lets go of its batch, however
	// slowly a loaded machine runs the executor between steps: the counter
	// moves exactly with the clock. The server computed c1 within b1–a1 and
	// c2 within b2–a2, so c2−c1 lies between b2−a1 and a2−b1.
	busy, shortest, longest := c2-c1, b2.Sub(a1).Seconds(), a2.Sub(b1).Seconds()
	t.Logf("busy %.4f s between reads %.4f s and %.4f s apart", busy, shortest, longest)
	const slack = 1e-6 // the counter's float64 seconds
	if busy < shortest-slack || busy > longest+slack {
		t.Errorf("with a queue all along: busy %.4f s, want it between %.4f s and %.4f s (the reads' distance)", busy, shortest, longest)
	}
	wg.Wait()
	waitFor(t, "every request done", func() bool { return done(s) == n })
	waitFor(t, "an idle batch", func() bool { return s.Stats().BatchSize == 0 })
	idle1, _, _ := read()
	idle2, _, _ := read()
	if idle2 != idle1 {
		t.Errorf("idle engine: %s moved from %g to %g", name, idle1, idle2)
	}
}
