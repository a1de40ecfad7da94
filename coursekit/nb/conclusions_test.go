package nb

import (
	"math"
	"strings"
	"testing"
)

// A learner cell reads one threshold's numbers off AtSLO, the condition
// metrics.Summarize gives that threshold on the same trace: 5 qualified at
// 1 s, 4 at 0.5 s (R6's 800 ms leaves), 7 at 2 s (R8's 2000 ms is ≤).
func TestAtSLOIsThatThresholdsCondition(t *testing.T) {
	u := readUnit(t)
	for _, c := range []struct {
		slo           float64
		qualified     int64
		goodput, cost float64
	}{{1000, 5, 0.5, 4}, {500, 4, 0.4, 5}, {2000, 7, 0.7, 0.02 / 7 * 1000}} {
		got := AtSLO(u, c.slo)
		if got.SLOTTFTMS != c.slo || got.Qualified != c.qualified || got.GoodputPerS != c.goodput ||
			got.CostPer1000 == nil || math.Abs(*got.CostPer1000-c.cost) > 1e-9 {
			t.Errorf("AtSLO(unit, %v) = %d qualified, %v/s, cost %s; want %d, %v/s, %v", c.slo, got.Qualified, got.GoodputPerS, MS(got.CostPer1000), c.qualified, c.goodput, c.cost)
		}
	}
}

// 03 and 06 print the same four conclusions: the P95 with its method and
// n, the failure rate with its denominator, and per threshold the
// qualified ratio, the goodput and the cost, each labelled by what it is,
// not by the card field it goes into, so that 06's learner picks them.
func TestConclusionsGiveEveryThreshold(t *testing.T) {
	got := Conclusions(readUnit(t), 1000, 500)
	for _, want := range []string{"P95：2000 ms（最近秩，n = 8）", "失败率：2 / 10", "门槛 1000 ms", "门槛 500 ms",
		"联合合格：5 / 10", "联合合格：4 / 10", "每千次合格成本：0.02 元 ÷ 4 × 1000 = 5 元/千次合格"} {
		if !strings.Contains(got, want) {
			t.Errorf("Conclusions lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "goodput："); n != 2 {
		t.Errorf("%d goodput lines for two thresholds:\n%s", n, got)
	}
	if strings.Contains(got, "窗口 10 s：尝试 10 次") {
		t.Errorf("Conclusions lists the card's stated numbers in its order (the window and the attempts on a line): the learner would copy them:\n%s", got)
	}
}
