package lab

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/labfig"
	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Intervals in the lab (notebooks 03 and 10): how sure a percentile is,
// read from a trace by metrics.Summarize, whose every distribution carries
// its 95 % order-statistic interval (metrics.QuantileCI).

// TTFTInterval is the complete successes' TTFT of t at level p (one of
// metrics.Levels), nearest-rank, and its 95 % interval, with the sample
// size.
func TTFTInterval(t *trace.Trace, p float64) (value *float64, ci metrics.Interval, n int) {
	d := cardopts.MustSummarize(t, cardopts.Flags{}).TTFT
	if d.CI95 != nil {
		if iv := d.CI95.Level(p); iv != nil {
			ci = *iv
		}
	}
	return d.Percentile(p), ci, d.N
}

// IntervalText is an interval in the card's words: "[1200 ms，无上界]"
// with the smallest n that would bound a missing side.
func IntervalText(ci metrics.Interval) string {
	lo, hi := "无下界", "无上界"
	if ci.Low != nil {
		lo = numfmt.OneDecimal(*ci.Low) + " ms"
	}
	if ci.High != nil {
		hi = numfmt.OneDecimal(*ci.High) + " ms"
	}
	s := "[" + lo + "，" + hi + "]" // full-width, as beside the Chinese words
	if ci.NeedNLow > 0 {
		s += fmt.Sprintf("（下界要 n ≥ %d）", ci.NeedNLow)
	}
	if ci.NeedNHigh > 0 {
		s += fmt.Sprintf("（上界要 n ≥ %d）", ci.NeedNHigh)
	}
	return s
}

// IntervalTable is, for each trace (named by the label at the same
// place), the complete successes' TTFT at level p with its 95 % interval
// and the ranks of the order statistics that bound it, one row each, for
// nb.Table.
func IntervalTable(p float64, labels []string, traces ...*trace.Trace) [][]string {
	level := "P" + cardfmt.Num(p*100)
	rows := [][]string{{"trace", "完整成功 n", level + "（" + cardfmt.MethodName(metrics.NearestRank) + "）", "95% 区间（次序统计量法）", "区间用到的秩"}}
	for i, t := range traces {
		label := fmt.Sprintf("第 %d 份", i+1)
		if i < len(labels) {
			label = labels[i]
		}
		v, ci, n := TTFTInterval(t, p)
		ranks := "无"
		switch {
		case ci.LowRank > 0 && ci.HighRank > 0:
			ranks = fmt.Sprintf("第 %d 个到第 %d 个", ci.LowRank, ci.HighRank)
		case ci.LowRank > 0:
			ranks = fmt.Sprintf("第 %d 个起，上面没有", ci.LowRank)
		case ci.HighRank > 0:
			ranks = fmt.Sprintf("到第 %d 个为止，下面没有", ci.HighRank)
		}
		rows = append(rows, []string{label, fmt.Sprint(n), msText(v), IntervalText(ci), ranks})
	}
	return rows
}

// PercentileByN reads the complete successes' TTFT at level p of the
// first n of them, in the order they were sent, for each n in ns and for
// the whole trace: a trace cut after its n-th complete success in the
// window, summarized as a whole (metrics.Summarize). Sizes beyond the
// trace are left out.
func PercentileByN(t *trace.Trace, p float64, ns ...int) []labfig.IntervalPoint {
	var in []trace.Attempt
	for _, a := range t.Attempts {
		if t.Header.Window.Contains(a.StartMS) {
			in = append(in, a)
		}
	}
	slices.SortStableFunc(in, func(a, b trace.Attempt) int { return cmp.Compare(a.StartMS, b.StartMS) })
	at := func(cut int) labfig.IntervalPoint {
		part := &trace.Trace{Header: t.Header, Attempts: in[:cut]}
		d := cardopts.MustSummarize(part, cardopts.Flags{}).TTFT
		pt := labfig.IntervalPoint{N: d.N, Value: d.Percentile(p)}
		if d.CI95 != nil {
			if iv := d.CI95.Level(p); iv != nil {
				pt.Low, pt.High, pt.NeedNLow, pt.NeedNHigh = iv.Low, iv.High, iv.NeedNLow, iv.NeedNHigh
			}
		}
		return pt
	}
	var out []labfig.IntervalPoint
	ok := 0
	want := slices.Sorted(slices.Values(ns))
	for i, a := range in {
		if a.Outcome != trace.OK {
			continue
		}
		ok++
		if len(want) > 0 && ok == want[0] {
			out = append(out, at(i+1))
			for len(want) > 0 && want[0] <= ok {
				want = want[1:]
			}
		}
	}
	if all := at(len(in)); all.N > 0 && (len(out) == 0 || out[len(out)-1].N < all.N) {
		out = append(out, all)
	}
	return out
}
