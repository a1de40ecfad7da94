package metrics

import "github.com/llmperf-course/course/coursekit/trace"

// MeanStay is the W of Little's law, L = λW, for t: the mean time an
// attempt spends in the system, from send to its end (end − start), over
// the attempts that start in t's window and have ended. Failures count: a
// timed-out request held its place until it gave up. It is a mean, not a
// percentile, because Little's law holds for the mean. n is the number of
// attempts averaged; with none, n is 0 and ms is 0.
func MeanStay(t *trace.Trace) (ms float64, n int) {
	sum := 0.0
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if !t.Header.Window.Contains(a.StartMS) {
			continue
		}
		if v, ok := a.E2E(); ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}
