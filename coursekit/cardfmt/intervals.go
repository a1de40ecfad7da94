package cardfmt

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// ciMethod names the quantile interval's method the way the card names
// nearest-rank: what it is and which convention it follows.
var ciMethod = lang.Msg{"次序统计量法（按二项分布取秩，不假设分布形状；双侧，每侧 ≤ 2.5%）", "order statistics (ranks from the binomial distribution, no assumed shape; two-sided, ≤ 2.5% each side)"}

var (
	ciNoLow    = lang.Msg{"无下界", "no lower bound"}
	ciNoHigh   = lang.Msg{"无上界", "no upper bound"}
	ciNeedLow  = lang.Msg{"下界要 n ≥ %d", "lower bound needs n ≥ %d"}
	ciNeedHigh = lang.Msg{"上界要 n ≥ %d", "upper bound needs n ≥ %d"}
	ciTooFew   = lang.Msg{"（样本太少，%s）", " (too few samples: %s)"}
	ciNeedSep  = lang.Msg{"，", ", "}
	ciLine     = lang.Msg{"95%% 置信区间，%s：%s", "95%% confidence intervals, %s: %s"}
	// ciGapsNote follows the event gaps' intervals (metrics.SamplingIndependentGaps).
	ciGapsNote = lang.Msg{"；区间把每个间隔当作独立样本，但同一次尝试的间隔并不独立，所以可能偏窄；compare 按整次尝试重抽样，同一 trace 的区间更宽，尝试太少时无界", "; these intervals treat every gap as an independent sample, but the gaps of one attempt are not independent, so they may be too narrow; compare resamples whole attempts, so its interval for the same trace is wider, or unbounded with few attempts"}
	wilsonNone = lang.Msg{"；95% 区间：无（分母为 0）", "; 95% interval: none (denominator is 0)"}
	wilsonText = lang.Msg{"；95%% 区间 [%s, %s]（Wilson 得分区间）", "; 95%% interval [%s, %s] (Wilson score interval)"}
)

// CILine is the 95 % interval of every level of d, in Chinese, with the
// smallest n that would bound a missing side. Empty for an empty sample.
func CILine(d metrics.Dist) string { return CILineIn(lang.ZH, d) }

// CILineIn is CILine in l.
func CILineIn(l lang.Lang, d metrics.Dist) string {
	if d.N == 0 || d.CI95 == nil {
		return ""
	}
	unit := " ms"
	if d.Unit == metrics.UnitMSPerToken {
		unit = " ms/token"
	}
	var parts []string
	levels, ivs := metrics.Levels, make([]*metrics.Interval, 0, len(metrics.Levels))
	for _, p := range levels {
		ivs = append(ivs, d.CI95.Level(p))
	}
	if len(d.Chosen) > 0 { // --percentiles: the chosen levels instead
		levels, ivs = nil, nil
		shown := shownLevels(d) // with P95, as the distribution line
		for i := range shown {
			levels, ivs = append(levels, shown[i].P), append(ivs, &shown[i].CI95)
		}
	}
	for i, p := range levels {
		iv := ivs[i]
		lo, hi := ciNoLow.In(l), ciNoHigh.In(l)
		if iv.Low != nil {
			lo = num(*iv.Low) + unit
		}
		if iv.High != nil {
			hi = num(*iv.High) + unit
		}
		sep := ", " // a full-width comma where a side is the Chinese word
		if (iv.Low == nil || iv.High == nil) && l != lang.EN {
			sep = "，"
		}
		s := fmt.Sprintf("P%s [%s%s%s]", num(p*100), lo, sep, hi)
		var need []string
		if iv.NeedNLow > 0 {
			need = append(need, ciNeedLow.F(l, iv.NeedNLow))
		}
		if iv.NeedNHigh > 0 {
			need = append(need, ciNeedHigh.F(l, iv.NeedNHigh))
		}
		if len(need) > 0 {
			s += ciTooFew.F(l, strings.Join(need, ciNeedSep.In(l)))
		}
		parts = append(parts, s)
	}
	out := ciLine.F(l, ciMethod.In(l), strings.Join(parts, " · "))
	if len(ivs) > 0 && ivs[0].Sampling == metrics.SamplingIndependentGaps {
		out += ciGapsNote.In(l)
	}
	return out
}

// WilsonText is "；95% 区间 [a%, b%]（Wilson 得分区间）" for a share of
// counts, empty when it has no interval.
func WilsonText(r metrics.Ratio) string { return WilsonTextIn(lang.ZH, r) }

// WilsonTextIn is WilsonText in l.
func WilsonTextIn(l lang.Lang, r metrics.Ratio) string {
	if r.CI95 == nil {
		return ""
	}
	if r.CI95.Low == nil || r.CI95.High == nil {
		return wilsonNone.In(l)
	}
	return wilsonText.F(l, numfmt.PctFixed(*r.CI95.Low), numfmt.PctFixed(*r.CI95.High))
}
