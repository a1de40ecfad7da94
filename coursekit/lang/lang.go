// Package lang holds the one choice of language for what coursekit prints
// for people (cards, reports, messages): Simplified Chinese, the course's
// language and the default, or English for engineers who do not read it.
//
// Every such text is a Msg, the Chinese and the English side by side, so
// the two cannot drift apart: a text exists in both or in neither. Codes,
// JSON keys and JSON output are language-neutral and never pass through here.
package lang

import (
	"fmt"
	"os"
	"strings"
	"unicode"
)

// Lang is the language of a printed text: ZH or EN.
type Lang string

const (
	ZH Lang = "zh"
	EN Lang = "en"
)

// EnvVar names the environment variable that sets the default language.
const EnvVar = "COURSEKIT_LANG"

// FlagHelp is the help of every --lang flag.
const FlagHelp = "language of the text printed for people: zh or en (default: $" + EnvVar + " if set, else zh; never guessed from LANG, so CI and the course image stay Chinese); JSON output is the same in both"

// Parse accepts "zh" or "en".
func Parse(s string) (Lang, error) {
	switch l := Lang(strings.TrimSpace(s)); l {
	case ZH, EN:
		return l, nil
	}
	return "", fmt.Errorf("unknown language %q (want zh or en)", s)
}

// Resolve is the language of a command: flag (the --lang value) if given,
// else $COURSEKIT_LANG if set, else ZH. The locale (LANG, LC_ALL) is
// deliberately ignored: C.UTF-8 and en_US are what CI and containers set,
// and the course must stay Chinese there. A bad value is an error naming
// where it came from.
func Resolve(flag string) (Lang, error) {
	if flag != "" {
		l, err := Parse(flag)
		if err != nil {
			return "", fmt.Errorf("--lang: %v", err)
		}
		return l, nil
	}
	if env := os.Getenv(EnvVar); env != "" {
		l, err := Parse(env)
		if err != nil {
			return "", fmt.Errorf("$%s: %v", EnvVar, err)
		}
		return l, nil
	}
	return ZH, nil
}

// Msg is one text in both languages: Msg{"中文", "English"}. Format verbs,
// when there are any, take the same arguments in the same order in both.
type Msg [2]string

// In is the text in l (Chinese for anything but EN).
func (m Msg) In(l Lang) string {
	if l == EN {
		return m[1]
	}
	return m[0]
}

// F formats the text in l with a.
func (m Msg) F(l Lang, a ...any) string { return fmt.Sprintf(m.In(l), a...) }

// S is the text in l; F with no arguments but without treating % specially.
func (l Lang) S(m Msg) string { return m.In(l) }

// F is m.F(l, a...).
func (l Lang) F(m Msg, a ...any) string { return m.F(l, a...) }

// FirstCJK is the byte offset and rune of the first Chinese character or
// full-width punctuation mark in s (CJK symbols such as 、and 。, full-width
// forms such as ，and （, curly quotes), or -1: English output must have
// none. The ellipsis … is not one: it shortens labels in either language.
func FirstCJK(s string) (int, rune) {
	for i, r := range s {
		switch {
		case unicode.Is(unicode.Han, r),
			r >= 0x3000 && r <= 0x303F, // CJK symbols and punctuation: 、。「」【】
			r >= 0xFF00 && r <= 0xFFEF, // full-width forms: ，：；（）
			r == '“' || r == '”' || r == '‘' || r == '’':
			return i, r
		}
	}
	return -1, 0
}

// N is the count n as a text in l: in English with the words that follow
// it, which say 1 unlike any other number ("1 attempt", "2 attempts"; "1
// was", "2 were"), in Chinese the number alone, since Chinese has no
// plural. Both halves of a Msg print it with %s: {"%s 次尝试", "%s"} with
// N(l, n, "attempt", "attempts").
func N[T ~int | ~int32 | ~int64 | ~uint | ~uint32 | ~uint64](l Lang, n T, one, many string) string {
	if l != EN {
		return fmt.Sprint(n)
	}
	if n == 1 {
		return fmt.Sprint(n, " ", one)
	}
	return fmt.Sprint(n, " ", many)
}
