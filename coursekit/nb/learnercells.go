package nb

import (
	"fmt"
	"time"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/trace"
	"github.com/llmperf-course/course/coursekit/web"
)

// Helpers that keep Go plumbing out of learner cells (issue 33, sixth
// review): a summary built with options, a conversion, a branch on an
// error. Each reads as what the cell shows.

// Funnel is figure 01.4: t's attempts, stage by stage, down to the ones
// qualified at the TTFT threshold sloMS (tracefig.Funnel of t's summary
// at that threshold).
func Funnel(t *trace.Trace, sloMS float64) web.Chart {
	return tracefig.Funnel(cardopts.MustSummarize(t, cardopts.TTFT(sloMS)), 0)
}

// WindowCounts are what 04 reads off the practice trace, in Chinese: the
// attempts in the window and outside it (recorded, in no denominator),
// the requests and the retry amplification, the attempts still in flight
// when it was captured, and the failed attempts (exercise 3c's failure
// rates need them). None depends on a threshold.
func WindowCounts(t *trace.Trace) string {
	s := cardopts.MustSummarize(t, cardopts.Flags{})
	return fmt.Sprintf("窗口内尝试 %d 次；窗口外（预热与窗口之后）%d 次：记录了，但不进任何分母\n", s.Attempts, s.OutsideWindow) +
		fmt.Sprintf("业务请求 %d 个，重试放大 = %d ÷ %d = %s\n", s.Requests, s.Attempts, s.Requests, Text(s.RetryAmplification)) +
		fmt.Sprintf("抓取时还没结束的在途尝试：%d 次\n", s.InFlight) +
		fmt.Sprintf("失败的尝试：%d 次（已经结束、没有成功；不含在途）\n", s.Failures)
}

// Millis is a duration in milliseconds, for a chart that takes a
// threshold or a timeout in ms.
func Millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// TableOr shows rows as Table does, or, when there are none (err), says
// why in the cell: a search can end with no step to compare, and that is
// an answer, not a crash.
func TableOr(rows Rows, err error) {
	if err != nil {
		fmt.Println(err)
		return
	}
	Table(rows)
}

// Skip reports whether a cell should stop here: when err is not nil it
// prints why (the sentence, then the error as the reason) and returns
// true. A cell reads `if nb.Skip(engine.Available(), "…") { return }`.
func Skip(err error, why string) bool {
	if err == nil {
		return false
	}
	fmt.Printf("%s原因：%v\n", why, err)
	return true
}
