// Package tracefig draws the request-level figures of one trace: the client
// timeline of one request (Figure 01.2), every attempt as a row, the TTFT
// distribution with its P95 under two methods, the denominator funnel, the
// SLO sweep, and the server's own request gauges beside the client's
// in-flight count.
//
// The per-attempt figures draw from a Digest, a trace gathered one attempt
// at a time in memory bounded by MaxChartPoints (a reproducible sample above
// it), so `coursekit report` streams a trace of any size; every count and
// percentile they print is still the whole trace's.
package tracefig
