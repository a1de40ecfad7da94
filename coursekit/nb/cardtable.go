package nb

import (
	"github.com/go-gota/gota/dataframe"

	"github.com/llmperf-course/course/coursekit/card"
)

// CardTable is the recomputed-figures part of a learner's card as a
// table, one row per SLO condition: exactly what the card says (never the
// expected values), each figure with its unit and each ratio as
// numerator / denominator with its unit, so that a missing unit or a bare
// percentage shows at a glance. An empty unit reads （无单位）. The card's
// one success P95 and one failure rate stand in the first row; the rows
// after it say they do not change with the SLO.
func CardTable(c *card.Card) dataframe.DataFrame {
	rows := [][]string{{"门槛", "成功 P95", "失败率", "联合合格率", "合格数", "goodput", "每千次合格成本"}}
	for i, x := range c.Conditions {
		p95, fail := figure(c.P95), ratio(c.FailureRate)
		if i > 0 {
			p95, fail = sameAbove, sameAbove
		}
		rows = append(rows, []string{figure(x.SLO), p95, fail, ratio(x.QualifiedRate),
			Text(x.Qualified), figure(x.Goodput), figure(x.CostPer1000)})
	}
	if len(c.Conditions) == 0 {
		rows = append(rows, []string{"（还没有填写门槛条件）", figure(c.P95), ratio(c.FailureRate), "", "", "", ""})
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false))
}

// sameAbove fills the card-level columns of every condition but the first.
const sameAbove = "同上（不随门槛变）"

func unitText(u string) string {
	if u == "" {
		return "（无单位）"
	}
	return u
}

func figure(f card.Figure) string { return Num(f.Value) + " " + unitText(f.Unit) }

func ratio(r card.Ratio) string {
	if r.Unit == "" {
		return Num(r.Num) + " / " + Num(r.Den) + "（无单位）"
	}
	return Num(r.Num) + " / " + Num(r.Den) + "（" + r.Unit + "）"
}
