package labfig_test

import (
	"regexp"

	"github.com/llmperf-course/course/coursekit/charts/internal/charttest"
)

var scriptSrc = regexp.MustCompile(`(?i)<script[^>]*\ssrc\s*=`)

// The helpers the chart packages' tests share (coursekit/charts/internal/charttest), under the
// names these tests use.
var (
	labTrace = charttest.LabTrace
	labRun   = charttest.LabRun
	option   = charttest.Option
	decoded  = charttest.Decoded
)

type chart = charttest.Chart

const evil = charttest.Evil
