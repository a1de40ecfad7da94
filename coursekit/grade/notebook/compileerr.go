package notebook

import (
	"encoding/json"
	"fmt"
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// ReasonCompileError: no self-check output, and a cell's saved output is
// GoNB's compile error (the learner ran it and saw the error).
const ReasonCompileError = "compile_error"

// gonbErrClass marks GoNB's compile error HTML (docker/nbrun.py looks for
// it too).
const gonbErrClass = "gonb-err-location"

var (
	// oldCardField is the compiler's words for a card cell in the layout
	// before payload schema v2 (P95 or FailureRate inside a condition).
	oldCardField = regexp.MustCompile(`unknown field (P95|FailureRate) in struct literal of type (card\.)?Condition`)
	gonbLine     = regexp.MustCompile(`gonb-cell-line-info">Cell\[\d+\]: Line (\d+)<`)
	gonbMsg      = regexp.MustCompile(`(?s)class="gonb-err-location">([^<]*)</span></span>(.*?)(?:<div class="gonb-err-context">|</div>)`)
	anyTag       = regexp.MustCompile(`(?s)<[^>]*>`)
)

// maxCompilerWords bounds the compiler's words quoted to the learner.
const maxCompilerWords = 160

// CompileError finds GoNB's compile error in the saved outputs (the card
// cell first, then the others in order) and says it to the learner: the
// cell, the line and the compiler's first line, bounded. The text is
// plain (HTML entities decoded, tags dropped): escape it where it is
// shown. ok is false when no cell holds such an output.
func CompileError(nb *Notebook) (msg string, ok bool) {
	cells := make([]*Cell, 0, len(nb.Cells))
	for i := range nb.Cells {
		if nb.Cells[i].Role == RoleCard {
			cells = append([]*Cell{&nb.Cells[i]}, cells...)
		} else {
			cells = append(cells, &nb.Cells[i])
		}
	}
	for _, c := range cells {
		for _, data := range c.Outputs {
			raw, has := data["text/html"]
			if !has {
				continue
			}
			h, err := Multiline(json.RawMessage(raw))
			if err != nil || !strings.Contains(h, gonbErrClass) {
				continue
			}
			return compileMessage(c, h), true
		}
	}
	return "", false
}

func compileMessage(c *Cell, h string) string {
	where := fmt.Sprintf("第 %d 个单元格", c.Index+1)
	switch c.Role {
	case RoleCard:
		where = "口径卡单元格"
	case RoleSelfCheck:
		where = "自检单元格"
	}
	if m := gonbLine.FindStringSubmatch(h); m != nil {
		where += "第 " + m[1] + " 行"
	}
	words := ""
	if m := gonbMsg.FindStringSubmatch(h); m != nil {
		words = plainLine(m[2])
		if words == "" {
			words = plainLine(m[1])
		}
	}
	msg := "编译错误：" + where + "没有通过编译"
	if words != "" {
		msg += "，编译器说：“" + words + "”"
	}
	if oldCardField.MatchString(words) {
		msg += "。这是旧版口径卡的写法：成功 P95 和失败率不随门槛变，现在只在卡上写一次（写在 SuccessSamples、Attempts 旁边），门槛条件里不再有这两项"
	}
	return msg + "。自检因此没有输出口径卡。请按提示改正这一行，重新运行口径卡单元格和最后的自检单元格，保存后再提交。"
}

// plainLine is the first non-blank line of an HTML fragment as text, at
// most maxCompilerWords runes.
func plainLine(frag string) string {
	s := html.UnescapeString(anyTag.ReplaceAllString(frag, ""))
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			s = line
			break
		}
	}
	s = strings.TrimSpace(s)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if r := []rune(s); len(r) > maxCompilerWords {
		s = string(r[:maxCompilerWords]) + "…"
	}
	return s
}
