package nb

import (
	"fmt"
	"math"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Helpers that give a learner cell a table or a plain number where it
// would otherwise loop over events or attempts, dereference a pointer or
// build answers by hand: the cell reads as the lesson, not as Go.

// EventTimes are an attempt's raw time points as a table, in order: the
// send, each event with its index (from 0, the index
// trace.Attempt.WithPause and WithEventTokens take) and the tokens it
// carries, and the end of the stream. An attempt that has not ended says
// so; its end time is missing, not 0.
func EventTimes(a trace.Attempt) Rows {
	rows := Rows{{"时刻（ms）", "发生了什么", "带几个 token"}, {Num(a.StartMS), "发出请求", ""}}
	for i, e := range a.Events {
		rows = append(rows, []string{Num(e.TMS), fmt.Sprintf("事件 %d", i), Text(e.Tokens)})
	}
	if a.HasEnd {
		return append(rows, []string{Num(a.EndMS), "流结束", ""})
	}
	return append(rows, []string{Missing, "还没有结束（在途）", ""})
}

// Value is a ratio as a plain number (2 / 10 is 0.2), for a cell that
// compares it with a guess. A ratio without a denominator has no value:
// NaN, which Compare never counts as agreeing and Num shows as 缺失.
func Value(r metrics.Ratio) float64 {
	if r.Value == nil {
		return math.NaN()
	}
	return *r.Value
}

// VerdictsAt judges every attempt of t on its own under two TTFT
// thresholds, one row each: the verdict under each (VerdictText) and
// whether it changed. Notebook 04 reads who leaves when the threshold
// tightens, and who never qualified at all.
func VerdictsAt(t *trace.Trace, oldSLOMS, newSLOMS float64) Rows {
	rows := Rows{{"尝试", "门槛 " + Num(oldSLOMS) + " ms", "门槛 " + Num(newSLOMS) + " ms", "结论变了吗"}}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		before, after := VerdictText(a, oldSLOMS), VerdictText(a, newSLOMS)
		changed := metrics.RuleAt(oldSLOMS).Judge(a).Qualified != metrics.RuleAt(newSLOMS).Judge(a).Qualified
		rows = append(rows, []string{a.ID, before, after, YesNo(changed)})
	}
	return rows
}

// Prompts are the first n items of a dataset: where each comes from and
// its prompt as written (arith's are English, shared with 09's model).
func Prompts(ds *dataset.Set, n int) Rows {
	rows := Rows{{"题目编号", "题目原文"}}
	for _, it := range ds.Items[:min(n, len(ds.Items))] {
		rows = append(rows, []string{it.Ref, it.Prompt})
	}
	return rows
}

// JudgedAnswers are three answers to one arith question, each judged by
// the item's own rule: the right number, a number off by one, and the
// right number inside a sentence. Under exact (the number only) only the
// first passes: the rule was fixed before the run, wording included. A
// question that is not arith, or has no rule, gives the header alone.
func JudgedAnswers(it dataset.Item) Rows {
	rows := Rows{{"回答", "质量通过"}}
	right, ok := dataset.SolveArith(it.Prompt)
	if !ok || it.Judge == nil {
		return rows
	}
	for _, answer := range []string{Text(int(right)), Text(int(right + 1)), "答案是 " + Text(int(right)) + "。"} {
		rows = append(rows, []string{answer, YesNo(it.Judge.Judge(answer).Pass)})
	}
	return rows
}
