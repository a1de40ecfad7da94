package main

import (
	"fmt"
	"time"

	"github.com/llmperf-course/course/coursekit/internal/numfmt"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/loadgen"
	"github.com/llmperf-course/course/coursekit/trace"
)

// runState says what ended a bench run and when, against its plan: the
// window's end, --num-requests, an interrupt, or a schedule with no send
// left before the window's end (an early drain).
func runState(res *loadgen.Result) string {
	e := res.RunEnd
	el := res.Elapsed.Seconds()
	plannedS := e.PlannedDurationMS / 1000
	endS := e.PlannedWindow.EndMS / 1000
	window := fmt.Sprintf("window [%s, %s) ms", numfmt.Num(e.PlannedWindow.StartMS), numfmt.Num(e.PlannedWindow.EndMS))
	switch e.Reason {
	case trace.RunInterrupted:
		at := 0.0
		if e.AtMS != nil {
			at = *e.AtMS / 1000
		}
		inflight := stillRunning(res.Outcomes[trace.InFlight.String()])
		if at >= endS {
			return fmt.Sprintf("interrupted at %.3fs while waiting for the last answers, after the planned %gs %s had ended (the window is complete%s)", at, plannedS, window, inflight)
		}
		return fmt.Sprintf("interrupted at %.3fs of a planned %gs window (the window ends there%s)", at, plannedS, inflight)
	case trace.RunNumRequests:
		at := el
		if e.AtMS != nil {
			at = *e.AtMS / 1000
		}
		if at < endS {
			return fmt.Sprintf("--num-requests %d reached: the last of them ended at %.3fs, so the window ends there instead of at %gs (planned %gs); done after %.1fs", e.NumRequests, at, endS, plannedS, el)
		}
		return fmt.Sprintf("--num-requests %d reached and the planned %gs %s ended; done after %.1fs", e.NumRequests, plannedS, window, el)
	}
	if res.Elapsed < time.Duration(e.PlannedWindow.EndMS*float64(time.Millisecond)) {
		return fmt.Sprintf("schedule done: no send was planned in the rest of the %gs %s, and the last answer came before its end; done after %.1fs (the window stays the planned one)", plannedS, window, el)
	}
	return fmt.Sprintf("the planned %gs %s ended; done after %.1fs (%.1fs after it, for the last answers)", plannedS, window, el, max(0, el-endS))
}

// stillRunning is the interrupt's in_flight clause; none for no attempt.
func stillRunning(n int64) string {
	if n == 0 {
		return ""
	}
	return "; the " + lang.N(lang.EN, n, "attempt still running is in_flight, not a failure", "attempts still running are in_flight, not failures")
}
