package nb

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/trace"
)

// AttemptsTable is a trace as a table for reading, one row per attempt in
// file order, with Chinese headers and values: failures stay in the table
// and a missing TTFT shows as 缺失. E2E is a latency only for a complete
// success: a failed attempt's row reads 失败 there, never the time it took
// to fail (a refused connection after 3 ms must not read as a fast
// request); when it ended is in 结束时刻, a time on the trace's clock. An
// error shows twice: its kind explained in Chinese (cardfmt.ErrorKind),
// then the trace's own text, unchanged. For display only; compute with
// coursekit/metrics.
func AttemptsTable(t *trace.Trace) dataframe.DataFrame {
	rows := [][]string{{"尝试", "发起时刻（ms）", "结果", "完整成功", "事件数", "首字时延 TTFT（ms）", "端到端时延 E2E（ms）", "结束时刻（ms）", "质量", "错误说明", "错误信息（trace 原文）"}}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		ttft, e2e, end := "", Missing, "" // empty is missing: Table shows 缺失
		if v, ok := a.TTFT(); ok {
			ttft = Num(v)
		}
		if v, ok := a.E2E(); ok {
			end = Num(a.EndMS)
			e2e = Num(v)
			if a.Outcome != trace.OK {
				e2e = FailedE2E
			}
		}
		rows = append(rows, []string{a.ID, Num(a.StartMS), AttemptOutcome(a), YesNo(a.Outcome == trace.OK),
			Text(len(a.Events)), ttft, e2e, end, QualityText(a.Quality), cardfmt.ErrorKind(a), a.Error})
	}
	types := map[string]series.Type{}
	for j, name := range rows[0] {
		switch j {
		case 1, 5, 7:
			types[name] = series.Float
		case 4:
			types[name] = series.Int
		default:
			types[name] = series.String
		}
	}
	// NaNValues(nil): an empty error text is no error, not a missing value;
	// the empty TTFT or end of an attempt is still missing (a Float column).
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false), dataframe.WithTypes(types), dataframe.NaNValues(nil))
}

// FailedE2E is what AttemptsTable shows for a failed attempt's E2E: the
// time it took to fail is not an end-to-end latency.
const FailedE2E = "—（失败，不计时延）"

// VerdictTable judges every attempt on its own under one TTFT SLO, before
// anything is summed: complete success, TTFT, quality and joint
// qualification with the first reason it fails. The rule is the one the
// trace's summary counts with under that SLO (its condition's
// metrics.Rule), so the rows marked 合格 are the card's qualified.
func VerdictTable(t *trace.Trace, sloMS float64) dataframe.DataFrame {
	rule := cardopts.MustSummarize(t, cardopts.TTFT(sloMS)).Conditions[0].Rule()
	rows := [][]string{{"尝试", "完整成功", "首字时延 TTFT（ms）", "质量", "联合合格"}}
	for i := range t.Attempts {
		a := &t.Attempts[i]
		v := rule.Judge(a)
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
		rows = append(rows, []string{v.Attempt, complete, ttft, q, reasonText(v, sloMS)})
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false))
}

// conditionNames are the Chinese names of the condition keys the course's
// tools write; other keys are shown as they are.
var conditionNames = map[string]string{
	"source": "来源", "observation_point": "采集点", "model": "模型", "input_tokens": "输入长度",
	"output_tokens": "输出长度", "arrival": "到达过程", "timeout_policy": "超时策略", "retries": "重试",
	"warmup": "预热", "prefix_reuse": "前缀复用", "quality_rubric": "质量量表", "event_semantics": "事件与 token",
	"events": "事件与 token", "generator": "生成工具", "seed": "随机种子", "capture_ms": "抓取截止",
	"loop": "开环或闭环", "concurrency": "并发用户数", "rate": "计划到达率", "max_tokens": "请求的输出长度",
}

// ConditionsTable is a trace header's condition list (model, lengths,
// arrival process, timeout policy, warm-up, ...) as a two-column table,
// in the header's order: each condition under its Chinese name (with the
// key the trace uses), and its value as the trace recorded it.
func ConditionsTable(t *trace.Trace) dataframe.DataFrame {
	rows := [][]string{{"条件", "trace 里记录的值"}}
	dec := json.NewDecoder(bytes.NewReader(t.Header.Conditions))
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				break
			}
			var v json.RawMessage
			if dec.Decode(&v) != nil {
				break
			}
			var s string
			if json.Unmarshal(v, &s) != nil {
				s = string(v)
			}
			key := fmt.Sprint(k)
			if zh, ok := conditionNames[key]; ok {
				key = zh + "（" + key + "）"
			}
			rows = append(rows, []string{key, s})
		}
	}
	if len(rows) == 1 {
		rows = append(rows, []string{"（没有记录）", ""})
	}
	return dataframe.LoadRecords(rows, dataframe.DetectTypes(false))
}
