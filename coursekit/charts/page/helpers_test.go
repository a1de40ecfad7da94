package page_test

import "github.com/llmperf-course/course/coursekit/charts/internal/charttest"

// The helpers the chart packages' tests share (coursekit/charts/internal/charttest), under the
// names these tests use.
var (
	readTrace = charttest.UnitTrace
)
