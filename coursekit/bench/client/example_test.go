package main

import (
	"fmt"
	"os"
	"strings"
)

// Compare matches a client's requests to the server's truth by id: the
// error is client TTFT − server TTFT; lag is each send's delay behind an
// ideal constant schedule anchored at the first send.
func ExampleCompare() {
	truth := map[string]ServerTTFT{
		"a": {TTFTMS: 10, OK: true},
		"b": {TTFTMS: 20, OK: true},
		"c": {TTFTMS: 30, OK: true},
		"d": {TTFTMS: 40, OK: true},
	}
	// 4 sends at 100 req/s: due at 0, 10, 20, 30 ms; "c" went 2 ms late.
	samples := []Sample{
		{ID: "a", StartMS: 1000, TTFTMS: 10.2, OK: true},
		{ID: "b", StartMS: 1010, TTFTMS: 20.3, OK: true},
		{ID: "c", StartMS: 1022, TTFTMS: 30.4, OK: true},
		{ID: "d", StartMS: 1030, TTFTMS: 40.5, OK: true},
	}
	r := Compare("go", 100, 4, samples, truth)
	fmt.Printf("n %d matched %d: error p50 %.1f ms, p99 %.1f ms; lag p99 %.0f ms; achieved %.0f/s; sustainable %v\n",
		r.N, r.Matched, r.ErrP50, r.ErrP99, r.LagP99, r.Achieved, r.OK)

	// One error p99 at or above 1 ms, one request the server never saw.
	samples[3].TTFTMS = 41.5
	fmt.Println(Compare("go", 100, 4, samples, truth).Why)
	samples[3].ID = "e"
	fmt.Println(Compare("go", 100, 4, samples, truth).Why)
	// Output:
	// n 4 matched 4: error p50 0.3 ms, p99 0.5 ms; lag p99 2 ms; achieved 100/s; sustainable true
	// error p99 1.50 ms
	// 1 unmatched, 1 only on the server
}

// A client that falls behind its schedule is not sustaining the rate,
// however small its error.
func ExampleCompare_lag() {
	truth := map[string]ServerTTFT{}
	var samples []Sample
	for i := range 100 {
		id := fmt.Sprint(i)
		truth[id] = ServerTTFT{TTFTMS: 5, OK: true}
		// due every 1 ms (1,000 req/s), sent every 1.2 ms
		samples = append(samples, Sample{ID: id, StartMS: 1.2 * float64(i), TTFTMS: 5.1, OK: true})
	}
	r := Compare("py", 1000, 100, samples, truth)
	fmt.Printf("achieved %.0f/s, lag p99 %.1f ms: %s\n", r.Achieved, r.LagP99, r.Why)
	// Output:
	// achieved 833/s, lag p99 19.6 ms: achieved 833/s
}

// The server's truth log and AIPerf's per-request export, matched by the
// X-Request-ID AIPerf sends; warm-up records and failures are told apart.
func ExampleReadAIPerf() {
	truth, _ := ReadTruth(strings.NewReader(`{"clock":"server monotonic","requests":[
		{"id":"r1","received_ms":100,"outcome":"ok","events":[{"ms":101.5,"tokens":1}]},
		{"id":"r2","received_ms":110,"outcome":"ok","events":[{"ms":111.0,"tokens":1}]}]}`))
	samples, err := ReadAIPerf(strings.NewReader(`
{"metadata":{"x_request_id":"w0","request_start_ns":1000000,"benchmark_phase":"warmup"},"metrics":{"time_to_first_token":{"value":3,"unit":"ms"}},"error":null}
{"metadata":{"x_request_id":"r1","request_start_ns":2000000,"benchmark_phase":"profiling"},"metrics":{"time_to_first_token":{"value":2.25,"unit":"ms"}},"error":null}
{"metadata":{"x_request_id":"r2","request_start_ns":12000000,"benchmark_phase":"profiling"},"metrics":{"error_isl":{"value":8,"unit":"tokens"}},"error":{"code":499,"type":"RequestCancellationError","message":"cancelled"}}
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range samples {
		fmt.Printf("%s start %.0f ms ttft %.2f ms ok %v\n", s.ID, s.StartMS, s.TTFTMS, s.OK)
	}
	r := Compare("aiperf", 100, 2, samples, truth)
	fmt.Printf("matched %d failed %d error p50 %.2f ms\n", r.Matched, r.Failed, r.ErrP50)
	// Output:
	// r1 start 2 ms ttft 2.25 ms ok true
	// r2 start 12 ms ttft 0.00 ms ok false
	// matched 1 failed 1 error p50 0.75 ms
}

// The table ends with each client's highest sustainable rate and its
// capacity (the rate kept, error not bounded), and the ratios of the first
// client's to the second's; "≥" marks a figure met at the highest rate
// tried, a lower bound.
func ExampleWriteTable() {
	WriteTable(os.Stdout, []Row{
		{Client: "go", Rate: 1000, N: 5000, ErrP50: 0.1, ErrP99: 0.5, LagP99: 0.2, Achieved: 1000, OK: true, Keeps: true},
		{Client: "go", Rate: 5000, N: 25000, ErrP50: 0.3, ErrP99: 1.5, LagP99: 1, Achieved: 5000, Why: "error p99 1.50 ms", Keeps: true},
		{Client: "py", Rate: 100, N: 500, ErrP50: 0.4, ErrP99: 0.9, LagP99: 1, Achieved: 100, OK: true, Keeps: true},
		{Client: "py", Rate: 200, N: 1000, ErrP50: 0.6, ErrP99: 2.5, LagP99: 3, Achieved: 200, Why: "error p99 2.50 ms", Keeps: true},
		{Client: "py", Rate: 500, N: 2000, ErrP50: 9, ErrP99: 90, LagP99: 80, Achieved: 400, Why: "achieved 400/s"},
	})
	// Output:
	// | rate (req/s) | client | n | err p50 (ms) | err p99 (ms) | lag p99 (ms) | achieved (req/s) | sustainable? |
	// |---:|---|---:|---:|---:|---:|---:|---|
	// | 1000 | go | 5000 | 0.100 | 0.500 | 0.20 | 1000 | yes |
	// | 5000 | go | 25000 | 0.300 | 1.500 | 1.00 | 5000 | no: error p99 1.50 ms |
	// | 100 | py | 500 | 0.400 | 0.900 | 1.00 | 100 | yes |
	// | 200 | py | 1000 | 0.600 | 2.500 | 3.00 | 200 | no: error p99 2.50 ms |
	// | 500 | py | 2000 | 9.000 | 90.000 | 80.00 | 400 | no: achieved 400/s |
	//
	// sustainable rate (error p99 < 1 ms and keeps the rate), go: 1000 req/s
	// sustainable rate (error p99 < 1 ms and keeps the rate), py: 100 req/s
	// sustainable rate (error p99 < 1 ms and keeps the rate) ratio go / py: 10.0x
	// capacity (keeps the rate, error not bounded), go: ≥ 5000 req/s
	// capacity (keeps the rate, error not bounded), py: 200 req/s
	// capacity (keeps the rate, error not bounded) ratio go / py: ≥ 25.0x
}
