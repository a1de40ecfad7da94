// Package labfig draws the notebook labs' figures of load runs against a
// server: each run's send rate, queue depth, TTFT and device-busy gauge
// over time, goodput beside the busy gauge, runs compared side by side, the
// server's prefill inside the client's TTFT, a percentile's interval
// against the sample size, and a capacity search's steps (with its offline
// page). A Run is the client's trace and the server's gauges read during
// it, on the trace's clock.
package labfig
