package paths_test

import (
	"flag"

	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The helpers the chart packages' tests share (coursekit/charts/internal/charttest), under the
// names these tests use.
var (
	option      = charttest.Option
	unitPathMap = charttest.UnitPathMap
	decoded     = charttest.Decoded
)

type chart = charttest.Chart
