// Package cardfmt prints a metrics.Summary for people: text and Markdown in
// Simplified Chinese (the course language), JSON with English keys.
//
// Every ratio is printed as numerator / denominator with its unit, and every
// percentile with its method and sample size, so a reader can recompute it.
package cardfmt

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Format is an output format of `coursekit card`.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	JSON     Format = "json"
)

// ParseFormat accepts the CLI spelling.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case Text, Markdown, JSON:
		return Format(s), nil
	case "md":
		return Markdown, nil
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown or json)", s)
}

// Write prints s in format f; source names the trace in the title.
func Write(w io.Writer, s *metrics.Summary, source string, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	case Markdown:
		_, err := io.WriteString(w, markdown(s, source))
		return err
	default:
		_, err := io.WriteString(w, text(s, source))
		return err
	}
}

// Num prints a number the short way people write it: 0.5, 4, 87.5.
func Num(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// num rounds to at most 3 decimals for display; JSON keeps full precision.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 3, 64)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func optMS(v *float64) string {
	if v == nil {
		return "无（样本为空）"
	}
	return num(*v) + " ms"
}

func pct(r metrics.Ratio) string {
	if r.Value == nil {
		return "无（分母为 0）"
	}
	return num(*r.Value*100) + "%"
}

// RatioText is "num / den 单位 = value", the way the card prints every rate.
func RatioText(r metrics.Ratio) string {
	if r.Unit == perSecond {
		v := "无（窗口为 0）"
		if r.Value != nil {
			v = num(*r.Value) + " 次/s"
		}
		return fmt.Sprintf("%s 次 / %s s = %s（%s）", num(r.Num), num(r.Den), v, unitZH(r.Unit))
	}
	return fmt.Sprintf("%s / %s = %s（%s）", num(r.Num), num(r.Den), pct(r), unitZH(r.Unit))
}

// perSecond is the one ratio unit that is a rate, not a share.
const perSecond = "qualified attempts / window second"

var unitNames = map[string]string{
	"failed attempts / attempts":                "失败尝试 / 全部尝试",
	"quality passes / rated complete successes": "质量通过 / 已评分的完整成功",
	"qualified attempts / attempts":             "联合合格尝试 / 全部尝试",
	"qualified attempts / window second":        "联合合格尝试 / 窗口秒",
	"qualified requests / requests":             "合格业务请求 / 全部业务请求",
}

func unitZH(u string) string {
	if z, ok := unitNames[u]; ok {
		return z
	}
	return u
}

func distLine(name string, d metrics.Dist) string {
	unit := "ms"
	note := ""
	switch d.Unit {
	case "event":
		note = "，单位：流式事件间隔"
	case "ms/token":
		unit = "ms/token"
	}
	if d.N == 0 {
		return fmt.Sprintf("%s（n=0，%s%s）：没有样本，分位数为空（不是 0）", name, d.Method, note)
	}
	f := func(v *float64) string { return num(*v) + " " + unit }
	if len(d.Chosen) > 0 {
		var parts []string
		for _, l := range d.Chosen {
			parts = append(parts, "P"+num(l.P*100)+" "+f(l.Value))
		}
		return fmt.Sprintf("%s（n=%d，%s%s）：%s · 最大 %s", name, d.N, d.Method, note, strings.Join(parts, " · "), f(d.Max))
	}
	return fmt.Sprintf("%s（n=%d，%s%s）：P50 %s · P90 %s · P95 %s · P99 %s · 最大 %s",
		name, d.N, d.Method, note, f(d.P50), f(d.P90), f(d.P95), f(d.P99), f(d.Max))
}

func money(v *float64, cur string) string {
	if v == nil {
		return ""
	}
	if cur == "" {
		return num(*v)
	}
	return num(*v) + " " + CurrencyName(cur)
}

func costText(s *metrics.Summary, c metrics.Condition) string {
	switch {
	case s.WindowCost == nil:
		return "无（trace 未记录窗口成本，可用 --window-cost 给出）"
	case c.CostPer1000 == nil:
		return "无（没有合格尝试，成本无法摊到合格结果上）"
	}
	return fmt.Sprintf("%s / %d × 1000 = %s / 千次合格", money(s.WindowCost, s.Currency), c.Qualified, money(c.CostPer1000, s.Currency))
}

func outcomeList(s *metrics.Summary) string {
	var parts []string
	for _, o := range []trace.Outcome{trace.Timeout, trace.ConnectError, trace.HTTPError, trace.StreamError, trace.Cancelled} {
		if n := s.Outcomes[o.String()]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", OutcomeName(o), n))
		}
	}
	if len(parts) == 0 {
		return "无"
	}
	return strings.Join(parts, "、")
}

func sloName(ms float64) string {
	if ms >= 1000 && int64(ms)%1000 == 0 {
		return fmt.Sprintf("TTFT ≤ %s s", num(ms/1000))
	}
	return fmt.Sprintf("TTFT ≤ %s ms", num(ms))
}

func text(s *metrics.Summary, source string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	ci := func(indent string, d metrics.Dist) {
		if l := CILine(d); l != "" {
			p("%s%s", indent, l)
		}
	}
	p("指标口径卡 · %s", source)
	p("观察点：%s时钟 · 固定窗口 [%s, %s) ms = %s s · 分位算法：%s", ClockName(s.Clock), num(s.Window.StartMS), num(s.Window.EndMS), num(s.WindowS), s.PercentileMethod)
	for _, n := range notes(s) {
		p("%s", n)
	}
	p("")
	p("分母")
	p("  全部尝试：%d 次（窗口内发起；窗口外 %d 次另计，不进入任何比值）", s.Attempts, s.OutsideWindow)
	p("  完整成功：%d · 失败：%d（%s）· 在途：%d", s.CompleteSuccess, s.Failures, outcomeList(s), s.InFlight)
	if s.RetryAmplification != nil {
		p("  业务请求：%d · 重试放大：%d 次尝试 / %d 个请求 = %s", s.Requests, s.Attempts, s.Requests, num(*s.RetryAmplification))
	}
	p("")
	p("比值（分子 / 分母 = 值，单位）")
	p("  失败率：%s%s", RatioText(s.FailureRate), WilsonText(s.FailureRate))
	p("  质量通过率：%s%s；未评分的完整成功 %d 次（不算通过）", RatioText(s.QualityPassRate), WilsonText(s.QualityPassRate), s.UnratedSuccesses)
	p("")
	p("%s", throughputTitle)
	for _, l := range throughputLines(s) {
		p("  %s", l)
	}
	p("")
	p("时延分布（只含完整成功；失败留在上面的分母里）")
	p("  %s", distLine("首字时延 TTFT", s.TTFT))
	ci("    ", s.TTFT)
	p("  缺失 TTFT：%d 次尝试没有收到首个输出，记为缺失，不是 0", s.TTFTMissing)
	p("  %s", distLine("端到端时延 E2E", s.E2E))
	ci("    ", s.E2E)
	p("  %s", distLine(EventGapName(s.Event.MultiTokenEvents), s.ITL))
	ci("    ", s.ITL)
	if s.Event.MultiTokenEvents > 0 {
		p("  注意：%d 个事件携带多个 token（最多 %d 个），事件间隔不等于 ITL（相邻输出 token 的间隔）；另报按 token 平摊的 TPOT（E2E 算到流结束；vLLM 的 TPOT 止于最后一个事件，会略小）：", s.Event.MultiTokenEvents, s.Event.MaxTokensPerEvt)
		p("  %s", distLine("TPOT = (E2E − TTFT) / (输出 token − 1)", s.TPOT))
		ci("    ", s.TPOT)
	} else if s.Event.Events > 0 {
		p("  每个事件恰好 1 个 token（%d 个事件），事件间隔就是 ITL（相邻输出 token 的间隔）", s.Event.Events)
	}
	for _, l := range ServerLines(s) {
		p("  %s", l)
	}
	if e := s.Event; e.UsageTokens > 0 && e.UsageTokens != e.UsageEventTokens {
		p("  注意：服务端报告输出 %d 个 token，事件共携带 %d 个，两者不一致，事件间隔不等于 token 间隔", e.UsageTokens, e.UsageEventTokens)
	}
	if hasLatency(s) {
		p("")
		p("%s", latencyMethod)
	}
	for _, c := range s.Conditions {
		p("")
		p("条件 %s（联合合格 = %s）", condName(c), jointRule(c))
		p("  联合合格：%s%s", RatioText(c.QualifiedRate), WilsonText(c.QualifiedRate))
		p("  goodput：%s", RatioText(c.Goodput))
		p("  每千次合格成本：%s", costText(s, c))
		p("  业务请求视角：%s%s", RatioText(c.RequestQualifiedRat), WilsonText(c.RequestQualifiedRat))
		d := c.NotQualified
		p("  未合格原因：未完整成功 %d · 质量不通过 %d · 未评分 %d · TTFT 超过门槛 %d%s", d.NotComplete, d.QualityFail, d.QualityUnrated, d.TTFTOverSLO, latencyDrops(c))
	}
	return b.String()
}

func markdown(s *metrics.Summary, source string) string {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	p("### 指标口径卡 · `%s`", strings.ReplaceAll(source, "`", "'"))
	p("")
	p("- 观察点：%s时钟；固定窗口 [%s, %s) ms = %s s；分位算法：%s", ClockName(s.Clock), num(s.Window.StartMS), num(s.Window.EndMS), num(s.WindowS), s.PercentileMethod)
	for _, n := range notes(s) {
		p("- **%s**", n)
	}
	p("- 全部尝试 %d（窗口外另计 %d）；完整成功 %d；失败 %d（%s）；在途 %d", s.Attempts, s.OutsideWindow, s.CompleteSuccess, s.Failures, outcomeList(s), s.InFlight)
	p("- 失败率：%s%s", RatioText(s.FailureRate), WilsonText(s.FailureRate))
	p("- 质量通过率：%s%s；未评分成功 %d", RatioText(s.QualityPassRate), WilsonText(s.QualityPassRate), s.UnratedSuccesses)
	p("- %s：%s", throughputTitle, strings.Join(throughputLines(s), "；"))
	ci := func(d metrics.Dist) {
		if l := CILine(d); l != "" {
			p("  - %s", l)
		}
	}
	p("- %s；缺失 TTFT %d 次（不是 0）", distLine("首字时延 TTFT", s.TTFT), s.TTFTMissing)
	ci(s.TTFT)
	p("- %s", distLine("端到端时延 E2E", s.E2E))
	ci(s.E2E)
	p("- %s", distLine(EventGapName(s.Event.MultiTokenEvents), s.ITL))
	ci(s.ITL)
	if s.Event.MultiTokenEvents > 0 {
		p("- 多 token 事件 %d 个；%s", s.Event.MultiTokenEvents, distLine("TPOT", s.TPOT))
		ci(s.TPOT)
	}
	for _, l := range ServerLines(s) {
		p("- %s", html.EscapeString(l)) // attempt ids and bad values come from the trace
	}
	p("")
	head := "| 指标 |"
	sep := "|---|"
	for _, c := range s.Conditions {
		head += " " + condName(c) + " |"
		sep += "---|"
	}
	p("%s", head)
	p("%s", sep)
	row := func(name string, f func(c metrics.Condition) string) {
		r := "| " + name + " |"
		for _, c := range s.Conditions {
			r += " " + f(c) + " |"
		}
		p("%s", r)
	}
	if hasLatency(s) {
		row("联合合格的定义", jointRule)
	}
	row("成功 TTFT P95", func(metrics.Condition) string { return optMS(s.TTFT.P95) + fmt.Sprintf("（n=%d）", s.TTFT.N) })
	row("失败率", func(metrics.Condition) string { return RatioText(s.FailureRate) })
	row("联合合格", func(c metrics.Condition) string { return RatioText(c.QualifiedRate) })
	row("联合合格 95% 区间", func(c metrics.Condition) string {
		return strings.TrimPrefix(WilsonText(c.QualifiedRate), "；95% 区间 ")
	})
	row("goodput", func(c metrics.Condition) string { return RatioText(c.Goodput) })
	row("每千次合格成本", func(c metrics.Condition) string { return costText(s, c) })
	row("合格业务请求", func(c metrics.Condition) string { return RatioText(c.RequestQualifiedRat) })
	if hasLatency(s) {
		row("未合格原因", func(c metrics.Condition) string {
			d := c.NotQualified
			return fmt.Sprintf("未完整成功 %d · 质量不通过 %d · 未评分 %d · TTFT 超过门槛 %d%s", d.NotComplete, d.QualityFail, d.QualityUnrated, d.TTFTOverSLO, latencyDrops(c))
		})
		p("")
		p("%s", latencyMethod)
	}
	return b.String()
}
