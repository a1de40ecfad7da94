package nb

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Rates are two "per second" numbers of one inference trace over the same
// fixed window: the output tokens of its complete successes, and its
// qualified attempts (goodput under the TTFT threshold). They share a
// denominator but count different things in different units (token/s,
// 次/s), so they are never ranked against each other. A training job's
// samples/s counts training samples: it is not in an inference trace.
type Rates struct {
	WindowS           float64
	Tokens, Qualified float64
	TokensPerS, Good  float64
	// QualifiedTokensPerS is a likely mistake, not a rate the unit reports:
	// the output tokens of the qualified attempts alone over the window
	// (03 hints with it). Output token/s counts every complete success,
	// whatever the threshold.
	QualifiedTokensPerS float64
	// GoodUnknown: no attempt was rated, so Qualified and Good are not
	// measurements (metrics.GoodputUnrated): goodput is unknown, not 0.
	GoodUnknown bool
}

// PerSecond is t's two rates under the TTFT threshold sloMS, from
// the trace's summary (coursekit/cardopts: the card's own numbers).
func PerSecond(t *trace.Trace, sloMS float64) Rates {
	s := cardopts.MustSummarize(t, cardopts.TTFT(sloMS))
	c := s.Conditions[0]
	rule, qualifiedTokens := metrics.RuleAt(sloMS), 0
	for i := range t.Attempts {
		a := &t.Attempts[i]
		if t.Header.Window.Contains(a.StartMS) && rule.Judge(a).Qualified {
			qualifiedTokens += a.OutputTokens
		}
	}
	return Rates{
		QualifiedTokensPerS: float64(qualifiedTokens) / s.WindowS,
		WindowS:             s.WindowS,
		Tokens:              s.Throughput.OutputTokens.Num, Qualified: float64(c.Qualified),
		TokensPerS: value(s.Throughput.OutputTokens), Good: c.GoodputPerS, GoodUnknown: c.Unknown != "",
	}
}

func value(r metrics.Ratio) float64 {
	if r.Value == nil {
		return 0
	}
	return *r.Value
}

// String is the two rates, one a line, each with its numerator, the
// window, its own unit and what it counts.
func (r Rates) String() string {
	w := Num(r.WindowS)
	good := fmt.Sprintf("合格尝试/秒（goodput）：%s 次 / %s s = %s 次/s（数的是联合合格的尝试）", Num(r.Qualified), w, Num(r.Good))
	if r.GoodUnknown {
		good = "合格尝试/秒（goodput）：" + cardfmt.UnknownUnrated.In(lang.ZH) + "（没有一次尝试有质量评分，不是 0）"
	}
	return strings.Join([]string{
		fmt.Sprintf("输出 token/秒：%s 个 token / %s s = %s token/s（数的是 token，回答越长越大）", Num(r.Tokens), w, Num(r.TokensPerS)),
		good,
	}, "\n")
}
