package card

import (
	"fmt"
	"html"
	"strings"
)

// Status line and labels, in Chinese for the learner.
const (
	labelPass       = "通过"
	labelFail       = "未通过"
	labelNeedsHuman = "需要人工阅读"
)

func (s Status) icon() string {
	switch s {
	case Pass:
		return "✓"
	case Fail:
		return "✗"
	}
	return "?"
}

func (s Status) label() string {
	switch s {
	case Pass:
		return labelPass
	case Fail:
		return labelFail
	}
	return labelNeedsHuman
}

// StatusLine is the honest summary: machine-checked public rows passed out
// of machine-checked public rows, and how many hidden criteria remain. It
// never says "all passed".
func (r Report) StatusLine() string {
	return fmt.Sprintf("公开检查 %d/%d 通过；评分时还有 %d 项隐藏检查", r.Passed, r.Checked(), r.Hidden)
}

// humanLine says what the machine did not decide.
func (r Report) humanLine() string {
	if r.NeedsHuman == 0 {
		return ""
	}
	return fmt.Sprintf("另有 %d 项文字答案需要人工阅读，不计入上面的通过数。", r.NeedsHuman)
}

const disclaimer = "自检只是提示：保存笔记或通过公开检查不等于完成，评分时会重新计算全部检查。"

// Text is the report as plain text, one row per line.
func (r Report) Text() string {
	var b strings.Builder
	b.WriteString(r.StatusLine())
	b.WriteString("\n")
	if r.Error != "" {
		b.WriteString("错误：" + r.Error + "\n")
	}
	if l := r.humanLine(); l != "" {
		b.WriteString(l + "\n")
	}
	for _, x := range r.Results {
		fmt.Fprintf(&b, "%s %s [%s]", x.Status.icon(), x.Title, x.ID)
		if x.Status != Pass && x.Hint != "" {
			b.WriteString("\n    " + x.Hint)
		}
		b.WriteString("\n")
	}
	b.WriteString(disclaimer + "\n")
	return b.String()
}

// HTML is the report as an HTML fragment for a notebook cell. Every string
// is escaped: learner text echoed in a hint cannot inject markup.
func (r Report) HTML() string {
	e := html.EscapeString
	var b strings.Builder
	b.WriteString(`<div class="coursekit-selfcheck">`)
	fmt.Fprintf(&b, `<p class="coursekit-status"><strong>%s</strong></p>`, e(r.StatusLine()))
	if r.Error != "" {
		fmt.Fprintf(&b, `<p class="coursekit-error" style="color:#b00">错误：%s</p>`, e(r.Error))
	}
	if l := r.humanLine(); l != "" {
		fmt.Fprintf(&b, `<p>%s</p>`, e(l))
	}
	b.WriteString(`<table class="coursekit-table" style="border-collapse:collapse">`)
	// JupyterLab right-aligns table cells; every column here is text.
	b.WriteString(`<thead><tr><th style="text-align:left">结果</th><th style="text-align:left">检查项</th><th style="text-align:left">提示</th></tr></thead><tbody>`)
	for _, x := range r.Results {
		color := map[Status]string{Pass: "#080", Fail: "#b00", NeedsHuman: "#a60"}[x.Status]
		hint := ""
		if x.Status != Pass {
			hint = x.Hint
		}
		fmt.Fprintf(&b, `<tr class="coursekit-%s"><td style="text-align:left;color:%s;white-space:nowrap" title="%s">%s %s</td><td style="text-align:left">%s<br><code style="font-size:smaller;color:#888">%s</code></td><td style="text-align:left">%s</td></tr>`,
			e(string(x.Status)), color, e(x.Status.label()), e(x.Status.icon()), e(x.Status.label()), e(x.Title), e(x.ID), e(hint))
	}
	b.WriteString(`</tbody></table>`)
	fmt.Fprintf(&b, `<p style="color:#666;font-size:smaller">%s</p>`, e(disclaimer))
	b.WriteString(`</div>`)
	return b.String()
}
