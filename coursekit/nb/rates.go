package nb

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Rates are three "per second" numbers of one trace over the same fixed
// window: samples (complete successes, what a training-style samples/s
// would count), output tokens of those successes, and qualified attempts
// (goodput under the TTFT threshold). They share a denominator but count
// different things, so their sizes cannot be ranked against each other.
type Rates struct {
	WindowS                       float64
	Samples, Tokens, Qualified    float64
	SamplesPerS, TokensPerS, Good float64
}

// PerSecond is t's three rates under the TTFT threshold sloMS, from
// metrics.Summarize (the card's own numbers).
func PerSecond(t *trace.Trace, sloMS float64) Rates {
	s := metrics.Summarize(t, metrics.Options{SLOsMS: []float64{sloMS}})
	c := s.Conditions[0]
	return Rates{
		WindowS: s.WindowS,
		Samples: s.Throughput.CompleteSuccesses.Num, Tokens: s.Throughput.OutputTokens.Num, Qualified: float64(c.Qualified),
		SamplesPerS: value(s.Throughput.CompleteSuccesses), TokensPerS: value(s.Throughput.OutputTokens), Good: c.GoodputPerS,
	}
}

func value(r metrics.Ratio) float64 {
	if r.Value == nil {
		return 0
	}
	return *r.Value
}

// String is the three rates, one a line, each with its numerator, the
// window and its own unit.
func (r Rates) String() string {
	w := Num(r.WindowS)
	return strings.Join([]string{
		fmt.Sprintf("样本/秒（完整成功）：%s 次 / %s s = %s 次/s", Num(r.Samples), w, Num(r.SamplesPerS)),
		fmt.Sprintf("输出 token/秒：%s 个 token / %s s = %s token/s", Num(r.Tokens), w, Num(r.TokensPerS)),
		fmt.Sprintf("合格请求/秒（goodput）：%s 次 / %s s = %s 次/s", Num(r.Qualified), w, Num(r.Good)),
	}, "\n")
}
