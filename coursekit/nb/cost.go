package nb

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// CostLine is the cost per 1000 qualified of condition c of summary s as
// one line of Chinese, with how it is computed: "每千次合格成本：0.02 元
// ÷ 5 × 1000 = 4 元/千次合格". Without a window cost, or without a
// qualified attempt, it says which is missing instead: a learner cell
// prints it without checking pointers.
func CostLine(s *metrics.Summary, c metrics.Condition) string {
	switch {
	case s.WindowCost == nil:
		return "每千次合格成本：缺失（trace 没有记录窗口成本）"
	case c.CostPer1000 == nil:
		return fmt.Sprintf("每千次合格成本：缺失（门槛 %s ms 下没有一次合格，除数是 0）", Num(c.SLOTTFTMS))
	}
	cur := cardfmt.CurrencyName(s.Currency)
	return fmt.Sprintf("每千次合格成本：%s %s ÷ %d × 1000 = %s %s", Num(*s.WindowCost), cur, c.Qualified, Num(*c.CostPer1000), cardfmt.CostUnit(s.Currency))
}
