package paths

import (
	"strings"
	"testing"
	"unicode"

	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
)

func noSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// wrap never drops text, never exceeds the width but for one closing
// punctuation mark, never leaves one character alone on the last line, and
// never breaks inside an ASCII word that fits on a line.
func TestWrapKeepsEveryCharacter(t *testing.T) {
	const base = "请求先在网关排队，再被分配到某个推理实例的调度器，等到空闲槽位后开始 prefill，之后逐个 token 解码并以 SSE 事件流回客户端的时刻"
	for _, width := range []float64{5, 9, 10, 11, 13} {
		for n := 1; n <= len([]rune(base)); n++ {
			s := string([]rune(base)[:n])
			got := wrap(s, width)
			if strings.Contains(got, "…") {
				t.Fatalf("wrap(%q, %v) cut the text: %q", s, width, got)
			}
			if noSpace(got) != noSpace(s) {
				t.Fatalf("wrap(%q, %v) = %q: text changed", s, width, got)
			}
			lines := strings.Split(got, "\n")
			if last := []rune(lines[len(lines)-1]); len(lines) > 1 && len(last) == 1 {
				t.Fatalf("wrap(%q, %v) leaves %q alone on the last line: %q", s, width, string(last), got)
			}
			for _, l := range lines {
				if w := draw.TextWidth(l); w > width+1 {
					t.Fatalf("wrap(%q, %v): line %q is %v wide", s, width, l, w)
				}
				if strings.HasPrefix(l, "，") || strings.HasPrefix(l, "。") {
					t.Fatalf("wrap(%q, %v): line starts with punctuation: %q", s, width, l)
				}
			}
			for _, word := range []string{"prefill", "token", "SSE"} {
				if strings.Contains(s, word) && !strings.Contains(got, word) {
					t.Fatalf("wrap(%q, %v) broke the word %q: %q", s, width, word, got)
				}
			}
		}
	}
}
