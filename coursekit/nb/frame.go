package nb

import (
	"strconv"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/llmperf-course/course/coursekit/charts"
	"github.com/llmperf-course/course/coursekit/trace"
)

// AttemptsFrame is a trace as a gota table, one row per attempt in file
// order, for display. Missing values (no TTFT, no end) are NaN, which
// Table shows as "缺失". Compute with coursekit/metrics, not with this
// table: gota turns int64 and time values into NaN.
func AttemptsFrame(t *trace.Trace) dataframe.DataFrame {
	rows := [][]string{trace.CSVHeader}
	for i := range t.Attempts {
		rows = append(rows, trace.CSVRecord(&t.Header, &t.Attempts[i]))
	}
	types := map[string]series.Type{}
	for _, c := range trace.CSVHeader {
		types[c] = series.String
	}
	for _, c := range []string{"start_ms", "ttft_ms", "e2e_ms", "end_ms"} {
		types[c] = series.Float
	}
	for _, c := range []string{"line", "events", "streamed_tokens"} {
		types[c] = series.Int
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false), dataframe.WithTypes(types))
}

// AttemptsTable is a trace for the learner's eyes: one row per attempt in
// file order, with Chinese headers and values (结果 完整成功 / 首字前超时 /
// 连接失败 …, 质量通过 / 未评分), missing times shown as "缺失". The error
// column keeps the trace's own words. For display only, like AttemptsFrame.
func AttemptsTable(t *trace.Trace) dataframe.DataFrame {
	rows := [][]string{{"请求", "结果", "完整成功", "首字时延 TTFT(ms)", "端到端时延 E2E(ms)", "质量", "错误信息(trace 原文)"}}
	f := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		ttft, hasTTFT := a.TTFT()
		e2e, hasE2E := a.E2E()
		complete := "否"
		if a.Outcome == trace.OK {
			complete = "是"
		}
		q := charts.QualityLabel(a.Quality)
		if a.Outcome != trace.OK && a.Quality == trace.Unrated {
			q = "无(没有完整回答)"
		}
		rows = append(rows, []string{a.ID, charts.OutcomeLabel(a.Outcome, hasTTFT), complete, f(ttft, hasTTFT), f(e2e, hasE2E), q, a.Error})
	}
	types := map[string]series.Type{}
	for j, name := range rows[0] {
		types[name] = series.String
		if j == 3 || j == 4 {
			types[name] = series.Float
		}
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false), dataframe.WithTypes(types), dataframe.NaNValues(nil))
}
