package lang_test

import (
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/gosrc"
	"github.com/llmperf-course/course/coursekit/lang"
)

// Every Msg literal in coursekit's code holds a Chinese and an English
// text, both non-empty, the Chinese with Chinese in it, the English with
// none, and the same format verbs in both.
func TestEveryMsgHasBothLanguages(t *testing.T) {
	files, err := gosrc.Parse("..", false)
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range files {
		// elided are the Msg literals written without their type, as
		// elements or values of a []Msg or map[K]Msg literal.
		elided := map[*ast.CompositeLit]bool{}
		ast.Inspect(f.AST, func(n ast.Node) bool {
			c, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if isMsgContainer(c.Type) {
				for _, e := range c.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Value
					}
					if el, ok := e.(*ast.CompositeLit); ok && el.Type == nil {
						elided[el] = true
					}
				}
			}
			if !isMsg(c.Type) && !elided[c] {
				return true
			}
			found++
			pos := f.Pos(c)
			if len(c.Elts) != 2 {
				t.Errorf("%s: Msg with %d texts, want 2 (zh, en)", pos, len(c.Elts))
				return true
			}
			var txt [2]string
			for i, e := range c.Elts {
				s, ok := literal(e)
				if !ok {
					t.Errorf("%s: Msg text %d is not a string literal", pos, i)
					return true
				}
				txt[i] = s
			}
			zh, en := txt[0], txt[1]
			if strings.TrimSpace(zh) == "" || strings.TrimSpace(en) == "" {
				t.Errorf("%s: empty text in Msg{%q, %q}", pos, zh, en)
			}
			if i, _ := lang.FirstCJK(zh); i < 0 && !strings.EqualFold(zh, en) {
				t.Errorf("%s: the Chinese text %q has no Chinese in it", pos, zh)
			}
			if i, r := lang.FirstCJK(en); i >= 0 {
				t.Errorf("%s: the English text %q has %q", pos, en, r)
			}
			if a, b := verbs(zh), verbs(en); a != b {
				t.Errorf("%s: format verbs differ: zh %q, en %q", pos, a, b)
			}
			return true
		})
	}
	if found < 50 {
		t.Fatalf("found only %d Msg literals; the walk missed the code", found)
	}
}

// isMsgContainer: e is the type []Msg, [N]Msg or map[K]Msg.
func isMsgContainer(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.ArrayType:
		return isMsg(x.Elt)
	case *ast.MapType:
		return isMsg(x.Value)
	}
	return false
}

func isMsg(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name == "Msg"
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "lang" && x.Sel.Name == "Msg"
	}
	return false
}

// literal is a string literal or a + of them.
func literal(e ast.Expr) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		a, ok1 := literal(x.X)
		b, ok2 := literal(x.Y)
		return a + b, ok1 && ok2 && x.Op == token.ADD
	case *ast.ParenExpr:
		return literal(x.X)
	}
	return "", false
}

// verbs lists a format string's verbs in order ("%d %s"), %% excluded; a
// % not followed by a verb letter ("95% 区间") is plain text.
// verbs lists s's format verbs by the argument each formats, so that a
// translation may reorder them with explicit indexes (%[2]d): "1:%s 2:%d".
// As in fmt, a verb without an index takes the argument after the last one.
func verbs(s string) string {
	byArg := map[int]string{}
	next := 1
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(s) && strings.IndexByte("+-#0123456789.[]*", s[j]) >= 0 {
			j++
		}
		if j < len(s) && (s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			spec := s[i+1 : j+1]
			if open, end := strings.IndexByte(spec, '['), strings.IndexByte(spec, ']'); open >= 0 && end > open {
				if n, err := strconv.Atoi(spec[open+1 : end]); err == nil {
					next = n
				}
				spec = spec[:open] + spec[end+1:]
			}
			byArg[next] += "%" + spec
			next++
			i = j
		} else if j < len(s) && s[j] == '%' {
			i = j
		}
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(byArg)) {
		out = append(out, fmt.Sprintf("%d:%s", k, byArg[k]))
	}
	return strings.Join(out, " ")
}

func TestParse(t *testing.T) {
	for _, s := range []string{"zh", "en"} {
		if l, err := lang.Parse(s); err != nil || string(l) != s {
			t.Errorf("Parse(%q) = %q, %v", s, l, err)
		}
	}
	for _, s := range []string{"fr", "", "EN", "zh_CN", "C.UTF-8"} {
		if _, err := lang.Parse(s); err == nil || !strings.Contains(err.Error(), "want zh or en") {
			t.Errorf("Parse(%q) accepted or vague: %v", s, err)
		}
	}
}

// The default is COURSEKIT_LANG, else Chinese: never the locale, which CI
// and containers set to C.UTF-8 or en_US.
func TestResolve(t *testing.T) {
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("LC_ALL", "C.UTF-8")
	t.Setenv(lang.EnvVar, "")
	if l, err := lang.Resolve(""); err != nil || l != lang.ZH {
		t.Errorf("default under an English locale = %q, %v; want zh", l, err)
	}
	t.Setenv(lang.EnvVar, "en")
	if l, err := lang.Resolve(""); err != nil || l != lang.EN {
		t.Errorf("COURSEKIT_LANG=en gave %q, %v", l, err)
	}
	if l, err := lang.Resolve("zh"); err != nil || l != lang.ZH {
		t.Errorf("--lang zh does not win over the environment: %q, %v", l, err)
	}
	if _, err := lang.Resolve("fr"); err == nil || !strings.Contains(err.Error(), "--lang") {
		t.Errorf("--lang fr: %v", err)
	}
	t.Setenv(lang.EnvVar, "fr")
	if _, err := lang.Resolve(""); err == nil || !strings.Contains(err.Error(), lang.EnvVar) {
		t.Errorf("COURSEKIT_LANG=fr: %v", err)
	}
}

func TestFirstCJK(t *testing.T) {
	for s, want := range map[string]int{"TTFT <= 1 s, P95 (n=3)": -1, "a：b": 1, "x 首字": 2, "(a)“b”": 3, "a、b": 1} {
		if i, _ := lang.FirstCJK(s); i != want {
			t.Errorf("FirstCJK(%q) = %d, want %d", s, i, want)
		}
	}
}

// A translation may reorder its verbs with indexes, never change one.
func TestVerbsByArgument(t *testing.T) {
	for _, c := range []struct {
		zh, en string
		same   bool
	}{
		{"%s 有 %d 次", "%[2]d times in %[1]s", true},
		{"%d %d %s", "%[2]d %[1]d %[3]s", true},
		{"%s %d", "%d %s", false},
		{"%s %d", "%[2]s %[1]d", false},
		{"%.1f%%", "%.1f %%", true},
	} {
		if got := verbs(c.zh) == verbs(c.en); got != c.same {
			t.Errorf("%q against %q: same %v (%q, %q), want %v", c.zh, c.en, got, verbs(c.zh), verbs(c.en), c.same)
		}
	}
}

// A count reads right for 1 in English ("during 1 attempts" in the card's
// client-lag note), and as the number alone in Chinese.
func TestN(t *testing.T) {
	m := lang.Msg{"在 %s 次尝试期间", "during %s"}
	for _, c := range []struct {
		n      int
		zh, en string
	}{
		{1, "在 1 次尝试期间", "during 1 attempt"},
		{0, "在 0 次尝试期间", "during 0 attempts"},
		{12, "在 12 次尝试期间", "during 12 attempts"},
	} {
		for l, want := range map[lang.Lang]string{lang.ZH: c.zh, lang.EN: c.en} {
			if got := m.F(l, lang.N(l, c.n, "attempt", "attempts")); got != want {
				t.Errorf("%s %d: %q, want %q", l, c.n, got, want)
			}
		}
	}
	if got := "the other " + lang.N(lang.EN, int64(1), "was", "were") + " sent"; got != "the other 1 was sent" {
		t.Errorf("%q", got)
	}
}

// countWords are English counts that read wrong for 1 ("during 1
// attempts", "the other 1 were sent", "1 warm-up records left out", "1
// steps in 4.2 s"): such a count is printed with N. A total after "of"
// ("3 of %d rows") is left alone: "of 1 rows" is the rare total of one.
var countWords = regexp.MustCompile(`%(\[\d+\])?d ((warm-up|successful|streamed|failed|output|prompt|complete) )?(attempts|were|records|runs|steps|completions|arrivals|requests|rows|successes|learners|notebooks|submissions|files|entries|responses|prompts|events|scrapes|gaps|backups|scores|tokens|points|fields)\b`)

// countWordsIn are the matches of countWords in s not after "of ".
func countWordsIn(s string) []string {
	var out []string
	for _, m := range countWords.FindAllStringIndex(s, -1) {
		if !strings.HasSuffix(s[:m[0]], "of ") {
			out = append(out, s[m[0]:m[1]])
		}
	}
	return out
}

// The rule catches what it is for and leaves a total after "of" alone.
func TestCountWords(t *testing.T) {
	for s, want := range map[string]int{
		"%d warm-up records left out": 1, "%d steps in %s s.": 1, "in %[1]d runs (%[2]s)": 1, "%d failed rows have": 1,
		"%d of %d rows drawn": 0, "%d pass of %d judged": 0, "%s in %s s": 0, "extended %d times": 0,
	} {
		if got := len(countWordsIn(s)); got != want {
			t.Errorf("%q: %d matches, want %d", s, got, want)
		}
	}
}

// No English text in coursekit's code, a Msg's English half or a message
// printed in English only, prints "%d attempts", "%d were" or another
// count of countWords: with 1 they read "1 attempts", "1 were".
func TestEnglishCountsReadRightForOne(t *testing.T) {
	files, err := gosrc.Parse("..", false)
	if err != nil {
		t.Fatal(err)
	}
	strs := 0
	for _, f := range files {
		ast.Inspect(f.AST, func(n ast.Node) bool {
			bl, ok := n.(*ast.BasicLit)
			if !ok || bl.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(bl.Value)
			if err != nil {
				return true
			}
			strs++
			if i, _ := lang.FirstCJK(s); i < 0 {
				for _, m := range countWordsIn(s) {
					t.Errorf("%s: %q reads wrong for 1: print the count with lang.N", f.Pos(bl), m)
				}
			}
			return true
		})
	}
	if strs < 1000 {
		t.Fatalf("found only %d string literals; the walk missed the code", strs)
	}
}
