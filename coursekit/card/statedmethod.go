package card

import "github.com/llmperf-course/course/coursekit/metrics"

// StatedMethod reads the percentile method a card states, in the
// spellings the checks accept ("nearest-rank", "最近秩", "线性插值"); ok is
// false when it names none. grade's partial credit for figures.p95 is
// measured from the P95 of this method, as the check is.
func StatedMethod(s string) (m metrics.Method, ok bool) { return parseMethod(s) }
