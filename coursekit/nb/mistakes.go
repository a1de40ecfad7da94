package nb

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// 03's hand counts, each the unit's definition with one thing wrong, so
// that a learner cell names the mistake it demonstrates instead of writing
// a loop over the attempts (issue 33: learner cells read like the lesson).

// TTFTsMissingAsZero is 03's error C: every attempt's TTFT, a missing one
// (a failure before its first output) taken as 0, under nearest rank.
func TTFTsMissingAsZero(t *trace.Trace) metrics.Dist {
	var ttfts []float64
	for _, a := range t.Attempts {
		v, _ := a.TTFT() // the mistake: v is 0 when there was no first output
		ttfts = append(ttfts, v)
	}
	return metrics.NewDist(ttfts, metrics.NearestRank, "ms")
}

// CountWithLessThan is 03's error D: the jointly qualified attempts
// counted with TTFT < sloMS where the definition says ≤.
func CountWithLessThan(t *trace.Trace, sloMS float64) int {
	n := 0
	for _, a := range t.Attempts {
		if v, ok := a.TTFT(); a.Outcome == trace.OK && ok && a.Quality == trace.Pass && v < sloMS {
			n++
		}
	}
	return n
}

// CountWithoutQuality is 03's error E: the jointly qualified attempts
// counted with the quality condition forgotten.
func CountWithoutQuality(t *trace.Trace, sloMS float64) int {
	n := 0
	for _, a := range t.Attempts {
		if v, ok := a.TTFT(); a.Outcome == trace.OK && ok && v <= sloMS {
			n++
		}
	}
	return n
}

// PercentileLines are the successes' TTFT P50 and P95 under nearest rank
// (the course's) and linear interpolation (numpy's, the tools'), one line
// each in Chinese: 03's exercise on how the method moves the number.
func PercentileLines(t *trace.Trace) string {
	var b strings.Builder
	for _, m := range []metrics.Method{metrics.NearestRank, metrics.Linear} {
		s := cardopts.MustSummarize(t, cardopts.Flags{Method: m})
		fmt.Fprintf(&b, "%s：P50 = %s，P95 = %s（n = %d）\n", cardfmt.MethodName(m), MS(s.TTFT.P50), MS(s.TTFT.P95), s.TTFT.N)
	}
	return b.String()
}

// LinearP95 is the successes' TTFT P95 by linear interpolation, in ms: the
// number 03's exercise asks for, missing when there is no success.
func LinearP95(t *trace.Trace) *float64 {
	return cardopts.MustSummarize(t, cardopts.Flags{Method: metrics.Linear}).TTFT.P95
}

// AtSLO is t's condition at one TTFT threshold in ms (its qualified
// count, goodput and cost per 1000 qualified), so that a learner cell
// reads nb.AtSLO(unit, 1000).Qualified, not a summary's Conditions[0].
func AtSLO(t *trace.Trace, sloMS float64) metrics.Condition {
	return cardopts.MustSummarize(t, cardopts.TTFT(sloMS)).Conditions[0]
}

// Conclusions are 03's four conclusions of t in Chinese, under each TTFT
// threshold given: the successes' P95 with its method and n, the failure
// and quality pass rates, and per threshold the qualified ratio, the
// goodput and the cost line. Each line says what its number is, not
// which card field it fills: 06 shows them and the learner picks.
func Conclusions(t *trace.Trace, slosMS ...float64) string {
	s := cardopts.MustSummarize(t, cardopts.TTFT(slosMS...))
	var b strings.Builder
	fmt.Fprintf(&b, "① 成功 TTFT 的 P95：%s（%s，n = %d）\n", MS(s.TTFT.P95), cardfmt.MethodName(s.TTFT.Method), s.TTFT.N)
	fmt.Fprintf(&b, "② 失败率：%s\n", cardfmt.RatioText(s.FailureRate))
	fmt.Fprintf(&b, "   质量通过率：%s\n", cardfmt.RatioText(s.QualityPassRate))
	for _, c := range s.Conditions {
		fmt.Fprintf(&b, "门槛 %s ms：\n", Num(c.SLOTTFTMS))
		fmt.Fprintf(&b, "③ 联合合格：%s\n", cardfmt.RatioText(c.QualifiedRate))
		fmt.Fprintf(&b, "④ goodput：%s\n", cardfmt.RatioText(c.Goodput))
		fmt.Fprintln(&b, "   "+CostLine(s, c))
	}
	return b.String()
}

// VLLMLines are a trace read two ways, one line each in Chinese: vLLM's
// (metrics.VLLMSummarize: failures counted, left out of the percentiles,
// linear interpolation) and the card's (every attempt in the failure
// rate, nearest rank), for 05's side-by-side reading.
func VLLMLines(t *trace.Trace) string {
	v := metrics.VLLMSummarize(t)
	ours := cardopts.MustSummarize(t, cardopts.Flags{})
	return fmt.Sprintf("vLLM 口径：completed = %d，failed = %d；TTFT P95 = %s（线性插值，n = %d，失败不在样本里）\n", v.Completed, v.Failed, MS(v.TTFT.P95), v.TTFT.N) +
		fmt.Sprintf("本课口径：TTFT P95 = %s（最近秩，n = %d）；失败率 %s\n", MS(ours.TTFT.P95), ours.TTFT.N, cardfmt.RatioText(ours.FailureRate))
}
