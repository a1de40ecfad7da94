package nb

import (
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// AttemptsTable is a trace as a table for reading, one row per attempt in
// file order, with Chinese headers and values: failures stay in the table
// and a missing TTFT or E2E shows as 缺失. For display only; compute with
// coursekit/metrics.
func AttemptsTable(t *trace.Trace) dataframe.DataFrame {
	rows := [][]string{{"尝试", "发起时刻(ms)", "结果", "事件数", "TTFT(ms)", "E2E(ms)", "质量"}}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		ttft, e2e := "", "" // empty is missing: Table shows 缺失
		if v, ok := a.TTFT(); ok {
			ttft = Num(v)
		}
		if v, ok := a.E2E(); ok {
			e2e = Num(v)
		}
		rows = append(rows, []string{a.ID, Num(a.StartMS), AttemptOutcome(a), Text(len(a.Events)), ttft, e2e, QualityText(a.Quality)})
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false), dataframe.WithTypes(map[string]series.Type{
		"尝试": series.String, "发起时刻(ms)": series.Float, "结果": series.String, "事件数": series.Int,
		"TTFT(ms)": series.Float, "E2E(ms)": series.Float, "质量": series.String,
	}))
}

// VerdictTable judges every attempt on its own under one TTFT SLO
// (metrics.Judge), before anything is summed: complete success, TTFT,
// quality and joint qualification with the first reason it fails.
func VerdictTable(t *trace.Trace, sloMS float64) dataframe.DataFrame {
	rows := [][]string{{"请求", "完整成功", "TTFT(ms)", "质量", "联合合格"}}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		v := metrics.Judge(a, sloMS)
		complete := "是"
		if !v.Complete {
			complete = "否：" + AttemptOutcome(a)
		}
		q := QualityText(v.Quality)
		if !v.Complete {
			q = "未评" // only complete successes are rated
		}
		ttft := Missing
		if v.TTFTMS != nil {
			ttft = Num(*v.TTFTMS)
		}
		rows = append(rows, []string{v.Attempt, complete, ttft, q, VerdictText(a, sloMS)})
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false))
}
