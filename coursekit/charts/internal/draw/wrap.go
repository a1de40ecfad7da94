package draw

import (
	"strings"
	"unicode"
)

// Wrap breaks s into lines of at most width CJK characters (an ASCII
// character counts about half) and never drops any of it: chart text is
// read, not guessed from "分配到某个推理实例的…". It breaks between CJK
// characters and at spaces, keeps an ASCII word whole when it fits on a
// line, lets a closing punctuation mark overhang rather than start a line,
// and never leaves one character alone on the last line ("刻").
func Wrap(s string, width float64) string {
	return strings.Join(WrapLines(s, width), "\n")
}

// WrapLines is Wrap's lines.
func WrapLines(s string, width float64) []string {
	var lines [][]string // each line as its tokens
	var cur []string
	w := 0.0
	flush := func() {
		for len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			lines = append(lines, cur)
		}
		cur, w = nil, 0
	}
	for _, tok := range wrapTokens(s, width) {
		tw := TextWidth(tok)
		if strings.TrimSpace(tok) == "" && len(cur) == 0 {
			continue // a break eats the space it breaks at
		}
		if w+tw > width && len(cur) > 0 && !noLineStart(tok) {
			flush()
			if strings.TrimSpace(tok) == "" {
				continue
			}
		} else if w+tw > width && len(cur) > 1 && noLineStart(tok) && !noLineStart(cur[len(cur)-1]) && strings.TrimSpace(cur[len(cur)-1]) != "" {
			// Punctuation that may not start a line would overhang the
			// width: the word before it goes down with it.
			last := cur[len(cur)-1]
			cur = cur[:len(cur)-1]
			flush()
			cur, w = []string{last}, TextWidth(last)
		}
		cur = append(cur, tok)
		w += tw
	}
	flush()
	// No orphan: a last line of one character takes the previous line's last
	// token (two, if that one may not start a line).
	if n := len(lines); n > 1 && len([]rune(strings.Join(lines[n-1], ""))) == 1 {
		prev := lines[n-2]
		k := 1
		for k < len(prev) && (noLineStart(prev[len(prev)-k]) || strings.TrimSpace(prev[len(prev)-k]) == "") {
			k++
		}
		if k < len(prev) {
			moved := append([]string(nil), prev[len(prev)-k:]...)
			lines[n-2] = prev[:len(prev)-k]
			lines[n-1] = append(moved, lines[n-1]...)
		} else { // the previous line is one word: the character overhangs it
			lines[n-2] = append(prev, lines[n-1]...)
			lines = lines[:n-1]
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimSpace(strings.Join(l, ""))
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// wrapTokens splits s into the units wrap may not break: an ASCII word (cut
// into line-sized pieces if it is longer than a line), a space, or one
// other character.
func wrapTokens(s string, width float64) []string {
	var toks []string
	var word []rune
	end := func() {
		for len(word) > 0 {
			n, w := 0, 0.0
			for n < len(word) && w+runeWidth(word[n]) <= width {
				w += runeWidth(word[n])
				n++
			}
			n = max(n, 1)
			toks = append(toks, string(word[:n]))
			word = word[n:]
		}
	}
	for _, r := range s {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-/%+'", r)) {
			word = append(word, r)
			continue
		}
		end()
		toks = append(toks, string(r))
	}
	end()
	return toks
}

// noLineStart is a token a line may not start with: closing punctuation.
func noLineStart(tok string) bool {
	return len([]rune(tok)) == 1 && strings.ContainsAny(tok, "，。、：；！？）」』》”’,.;:!?)]")
}

// TextWidth is s's width in CJK characters (an ASCII character about half).
func TextWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) float64 {
	if r < 0x2E80 {
		return 0.55
	}
	return 1
}
