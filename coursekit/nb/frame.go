package nb

import (
	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

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

// ExampleRequests is notebook 00's first table: three requests as a gota
// DataFrame, their TTFT in milliseconds and their output tokens, the
// second with no TTFT measured. Its TTFT column is read as numbers, so the
// missing one is NaN, which Table shows as "缺失", not 0.
func ExampleRequests() dataframe.DataFrame {
	return dataframe.LoadRecords([][]string{
		{"请求", "TTFT（毫秒）", "输出 token 数"},
		{"r1", "180", "42"},
		{"r2", "", "17"},
		{"r3", "95", "64"},
	})
}
