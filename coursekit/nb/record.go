package nb

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// What to keep per request: a trace line holds these fields, and a report
// can be recomputed by someone else only if the ones the card needs are
// kept. Recomputable drops every other field from the trace, recomputes
// the card and says, in Chinese, which numbers could not be recomputed and
// which dropped field they need.

// RecordFields are the per-attempt fields of a trace line, as the file
// names them.
var RecordFields = []string{"attempt", "request", "start_ms", "outcome", "http_status", "events",
	"end_ms", "finish_ms", "quality", "input_tokens", "output_tokens", "error", "meta"}

// lengthFields are the token lengths a kept record must have whether or
// not today's card needs them: the unit keeps input and output lengths
// with every attempt, because the next comparison (another length
// distribution, a filter by length) cannot be made without them.
var lengthFields = []string{"input_tokens", "output_tokens"}

// requiredFields are the fields every trace line must have.
var requiredFields = []string{"attempt", "start_ms", "outcome"}

// recordFieldNames say what each field holds, for the feedback.
var recordFieldNames = map[string]string{
	"attempt": "尝试编号", "request": "业务请求 ID", "start_ms": "发出时刻", "outcome": "结果状态",
	"http_status": "HTTP 状态码", "events": "流式事件的时刻与 token 数", "end_ms": "结束时刻",
	"finish_ms": "带 finish_reason 的块到达的时刻",
	"quality":   "质量判断", "input_tokens": "输入 token 数", "output_tokens": "输出 token 数",
	"error": "错误原文", "meta": "工具附加的数据",
}

// KeepOnly is t written out with only the kept per-attempt fields (the
// header stays whole) and read back, as someone who received only those
// fields would read it. An error is the reader's: a field every line must
// have is gone, or a name is not one of RecordFields.
func KeepOnly(t *trace.Trace, keep []string) (*trace.Trace, error) {
	for _, k := range keep {
		if !slices.Contains(RecordFields, k) {
			return nil, fmt.Errorf("没有叫 %q 的字段：可选的是 %s", k, strings.Join(RecordFields, "、"))
		}
	}
	var full bytes.Buffer
	w, err := trace.NewWriter(&full, t.Header)
	if err != nil {
		return nil, err
	}
	for i := range t.Attempts {
		if err := w.Write(&t.Attempts[i]); err != nil {
			return nil, err
		}
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(&full)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 0; sc.Scan(); n++ {
		line := sc.Bytes()
		if n > 0 { // the header line stays as it is
			var m map[string]json.RawMessage
			if err := json.Unmarshal(line, &m); err != nil {
				return nil, err
			}
			for k := range m {
				if !slices.Contains(keep, k) {
					delete(m, k)
				}
			}
			if line, err = json.Marshal(m); err != nil {
				return nil, err
			}
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return trace.Read(&out, "只保留所选字段的 trace")
}

// cardNumber is one number of the card, as the card prints it.
type cardNumber struct {
	name string
	text func(s *metrics.Summary) string
}

var cardNumbers = []cardNumber{
	{"窗口内尝试数", func(s *metrics.Summary) string { return fmt.Sprint(s.Attempts) }},
	{"业务请求数", func(s *metrics.Summary) string { return fmt.Sprint(s.Requests) }},
	{"重试放大", func(s *metrics.Summary) string { return optNum(s.RetryAmplification) }},
	{"失败率", func(s *metrics.Summary) string { return cardfmt.RatioText(s.FailureRate) }},
	{"成功 TTFT 的 P50 与 P95", func(s *metrics.Summary) string { return MS(s.TTFT.P50) + "、" + MS(s.TTFT.P95) }},
	{"成功 E2E 的 P95", func(s *metrics.Summary) string { return MS(s.E2E.P95) }},
	{"事件间隔的 P95", func(s *metrics.Summary) string { return MS(s.ITL.P95) }},
	{"质量通过率", func(s *metrics.Summary) string { return cardfmt.RatioText(s.QualityPassRate) }},
	{"联合合格数与 goodput", func(s *metrics.Summary) string {
		c := s.Conditions[0]
		if c.Unknown != "" {
			return cardfmt.UnknownUnrated.In(lang.ZH)
		}
		return fmt.Sprint(c.Qualified) + "、" + cardfmt.RatioText(c.Goodput)
	}},
	{"每千次合格成本", func(s *metrics.Summary) string {
		if s.Conditions[0].Unknown != "" {
			return cardfmt.UnknownUnrated.In(lang.ZH)
		}
		return optNum(s.Conditions[0].CostPer1000)
	}},
	{"输出 token 吞吐", func(s *metrics.Summary) string {
		return Num(s.Throughput.OutputTokens.Num) + " / " + Num(s.Throughput.OutputTokens.Den)
	}},
}

func optNum(v *float64) string {
	if v == nil {
		return Missing
	}
	return Num(*v)
}

// differing names the card numbers that differ between two summaries.
func differing(a, b *metrics.Summary) []string {
	var out []string
	for _, n := range cardNumbers {
		if n.text(a) != n.text(b) {
			out = append(out, n.name)
		}
	}
	return out
}

// Recomputable says whether the card of t under the TTFT threshold sloMS
// can be recomputed from only the kept per-attempt fields, and prints why
// in Chinese: for each dropped field that matters, the card numbers that
// come out different (or the reason the trace cannot be read back) without
// it; then the dropped fields the card does not need. An empty keep list
// asks for a choice first.
func Recomputable(t *trace.Trace, sloMS float64, keep ...string) bool {
	if len(keep) == 0 {
		fmt.Println("还没有挑字段：先把要保留的字段写进 keep，再运行本单元格。")
		return false
	}
	opts := cardopts.TTFT(sloMS)
	want := cardopts.MustSummarize(t, opts)
	kept, err := KeepOnly(t, keep)
	if err == nil && len(differing(want, cardopts.MustSummarize(kept, opts))) == 0 {
		var lengths []string
		for _, f := range lengthFields {
			if !slices.Contains(keep, f) {
				lengths = append(lengths, f+"（"+recordFieldNames[f]+"）")
			}
		}
		if len(lengths) > 0 {
			fmt.Printf("卡上的数都算得回来，但还少了 %s：本单元要求每次尝试都留下输入、输出长度，换一组长度分布、按长度筛选时，别人要靠它们才能比较。\n", strings.Join(lengths, "、"))
			return false
		}
		fmt.Printf("能重算：只凭这 %d 个字段，指标口径卡上的每个数都和原始 trace 算出的一样，输入、输出长度也都在。\n", len(keep))
		if extra := unneeded(t, opts, keep); len(extra) > 0 {
			fmt.Printf("其中 %s 对这张卡不是必需的（排查问题时仍然有用）。\n", strings.Join(extra, "、"))
		}
		return true
	}
	var te *trace.Error
	if errors.As(err, &te) && te.Field == "" || err != nil && !errors.As(err, &te) {
		fmt.Printf("不能重算：%v\n", err)
		return false
	}
	fmt.Println("不能重算：别人只拿到这些字段时，下面这些数算不回来。")
	for _, f := range RecordFields {
		if slices.Contains(keep, f) {
			continue
		}
		without := slices.DeleteFunc(slices.Clone(RecordFields), func(x string) bool { return x == f })
		tr, err := KeepOnly(t, without)
		switch {
		case err != nil && slices.Contains(requiredFields, f):
			fmt.Printf("- 少了 %s（%s）：trace 读不回来，每一行都必须有它。\n", f, recordFieldNames[f])
		case err != nil:
			fmt.Printf("- 少了 %s（%s）：trace 读不回来，有的尝试少了它就不成立（完整成功要有流式事件和结束时刻）。\n", f, recordFieldNames[f])
		default:
			if d := differing(want, cardopts.MustSummarize(tr, opts)); len(d) > 0 {
				fmt.Printf("- 少了 %s（%s）：%s 会变。\n", f, recordFieldNames[f], strings.Join(d, "、"))
			}
		}
	}
	return false
}

// unneeded are the kept fields without which the card is still the same.
func unneeded(t *trace.Trace, opts cardopts.Flags, keep []string) []string {
	want := cardopts.MustSummarize(t, opts)
	var out []string
	for _, f := range keep {
		if slices.Contains(lengthFields, f) {
			continue
		}
		less := slices.DeleteFunc(slices.Clone(keep), func(x string) bool { return x == f })
		if tr, err := KeepOnly(t, less); err == nil && len(differing(want, cardopts.MustSummarize(tr, opts))) == 0 {
			out = append(out, f)
		}
	}
	return out
}
