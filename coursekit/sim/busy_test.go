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
// its rate is near 1 while the queue is never empty, it never goes back,
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
	c1, b1, _ := read()
	t1 := tokens()
	waitFor(t, "40 full steps", func() bool { read(); return tokens() >= t1+2*40 })
	c2, _, a2 := read()
	if q := s.Stats().QueueDepth; q < 1 {
		// 40 steps finish at most 4 of the 38 waiting requests.
		t.Fatalf("the queue emptied during the measurement (queue %d)", q)
	}
	// The server computed c1 and c2 between b1–a1 and b2–a2: at most a2−b1
	// apart, so the busy time cannot exceed that, and over that longest
	// interval the rate must still be near 1.
	busy, longest := c2-c1, a2.Sub(b1).Seconds()
	t.Logf("busy %.3f s in at most %.3f s: rate ≥ %.3f", busy, longest, busy/longest)
	if busy > longest || busy/longest < 0.9 {
		t.Errorf("with a queue all along: busy %.3f s in at most %.3f s, want a rate in [0.9, 1]", busy, longest)
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
