// Package textcheck holds the rules the course's learner-facing Chinese
// text keeps, as functions the tests apply to every notebook and to the
// strings coursekit prints: one term per concept, full-width punctuation
// next to Chinese, no English outcome or reason code, and no long run of
// Chinese copied from the unit's source text (the seed).
package textcheck

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Variant is a wording the course does not use, and the term it uses instead.
type Variant struct {
	Never, Use string
	// GlossaryOnly marks a variant that may appear in the glossary, which
	// names it so that a learner who meets it elsewhere can map it.
	GlossaryOnly bool
	// Match, when set, finds the variant instead of the plain text Never:
	// for a wording that is wrong only in some company (掉 for "drop" is
	// spoken Chinese, the 掉 of 删掉 is not). Never still names it.
	Match *regexp.Regexp
}

// In reports whether text uses the variant.
func (v Variant) In(text string) bool {
	if v.Match != nil {
		return v.Match.MatchString(text)
	}
	return strings.Contains(text, v.Never)
}

// Variants are the words one concept must not be called (the team's
// terminology table), then the spoken shortcuts the course writes out
// (its register).
var Variants = []Variant{
	{Never: "首字延迟", Use: "首字时延（TTFT）"},
	{Never: "端到端延迟", Use: "端到端时延（E2E）"},
	{Never: "开放到达", Use: "开环", GlossaryOnly: true},
	{Never: "指标卡", Use: "指标口径卡"},
	{Never: "交付卡", Use: "指标口径卡"},
	{Never: "卡片", Use: "指标口径卡"},
	{Never: "格子", Use: "单元格"},
	{Never: "一格", Use: "单元格"},
	{Never: "质量合格", Use: "质量通过（合格只用于联合合格）"},
	{Never: "CNY", Use: "元"},
	// The step of the path where a timestamp is taken: the source says 采集点.
	{Never: "采样点", Use: "采集点（源文的用词）", GlossaryOnly: true},
	{Never: "观察点", Use: "采集点（源文的用词）", GlossaryOnly: true},
	// The person who teaches and grades.
	{Never: "助教", Use: "老师"},
	// Register.
	{Never: "卡不够用", Use: "GPU 不够用"},
	{Never: "满格", Use: "接近 100%"},
	{Never: "量的是", Use: "测量的是", Match: regexp.MustCompile(`(?:^|[^测计度衡数质容流重])量的是`)},
	{Never: "掉", Use: "下降、降到（“掉”只作删掉、关掉这类补语）", Match: regexp.MustCompile(`(?:^|[^删丢去关停扔抹甩拿])掉`)},
	{Never: "不足以下", Use: "不足以支撑……的结论"},
	// Translated English (the third review): "helper", "plumbing code".
	{Never: "帮手", Use: "辅助函数"},
	{Never: "管道代码", Use: "底层代码（“管道”只指命名管道这类东西）", Match: regexp.MustCompile(`管道(代码|都在)`)},
}

// Terms reports the variants text uses, each once, in Variants order.
// glossary is true for the glossary, where GlossaryOnly variants are allowed.
func Terms(text string, glossary bool) []Variant {
	var out []Variant
	for _, v := range Variants {
		if v.GlossaryOnly && glossary {
			continue
		}
		if v.In(text) {
			out = append(out, v)
		}
	}
	return out
}

// The two callout labels: a figure is read with 看图要点, a table with
// 看表要点. 读图提示, 读表时注意 and the like are the same callout under
// another name.
const (
	FigureCallout = "看图要点"
	TableCallout  = "看表要点"
)

var calloutLabel = regexp.MustCompile(`[读看][图表]时?(?:要点|提示|注意|须知)`)

// CalloutLabels reports the callout labels of text other than
// FigureCallout and TableCallout, each as written.
func CalloutLabels(text string) []string {
	var out []string
	for _, m := range calloutLabel.FindAllString(text, -1) {
		if m != FigureCallout && m != TableCallout {
			out = append(out, m)
		}
	}
	return out
}

// isHan reports a Chinese character (CJK unified ideographs and extension A).
func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// asciiPunct are the ASCII marks Chinese text writes full-width.
const asciiPunct = ",;:?!()"

// Punctuation reports each place where an ASCII mark of asciiPunct touches
// a Chinese character: "TTFT:700" is fine, "时延:700" and "时延(TTFT)" are
// not (d2l-zh writes "时延：700", "时延（TTFT）"). The result quotes a few
// characters around each place.
//
// A bracket closes as it opened: "时间轴（T1)" and "(TTFT）" mix a full-width
// and a half-width bracket (a half-open interval "[0, 10)" is no mix) (the seventh review found the first in Fig.
// 01.2's title), whatever stands next to the closing one.
func Punctuation(text string) []string {
	rs := []rune(text)
	var out []string
	quote := func(i int) string { return string(rs[max(0, i-4):min(len(rs), i+5)]) }
	var open []rune // the brackets not closed yet
	for i, r := range rs {
		switch r {
		case '(', '（', '[':
			open = append(open, r)
		case ')', '）', ']': // "[0, 10)" and "(0.5, 1]" are intervals
			if len(open) > 0 {
				if top := open[len(open)-1]; top == '（' && r != '）' || top != '（' && r == '）' {
					out = append(out, quote(i))
				}
				open = open[:len(open)-1]
			}
		}
		if !strings.ContainsRune(asciiPunct, r) {
			continue
		}
		// A full-width closing mark ends Chinese too: "（Apache-2.0）,不" is
		// as wrong as "中,不".
		before := i > 0 && (isHan(rs[i-1]) || strings.ContainsRune("）」』”。；：", rs[i-1]))
		after := i+1 < len(rs) && isHan(rs[i+1])
		bad := before
		if r == '(' {
			bad = before
		} else if r == ')' {
			bad = after
		} else {
			bad = before || (after && r != ':' && r != ',') // "a,中" is a list in code; "中:x" is not
		}
		if bad {
			out = append(out, quote(i))
		}
	}
	return out
}

// labelColon is a half-width colon between a label and its count, "1 s:2".
var labelColon = regexp.MustCompile(`[^\s\d:/]:\d`)

// ChartPunctuation is Punctuation for a chart's text, which is Chinese
// and holds no code: a label's colon before its number is full-width too,
// even with no Chinese next to it ("TTFT > 1 s:2" in Fig. 01.4's funnel,
// the seventh review), and so is a comma before Chinese ("TTFT,按").
func ChartPunctuation(text string) []string {
	out := Punctuation(text)
	for _, re := range []*regexp.Regexp{labelColon, latinCommaBeforeHan} {
		for _, m := range re.FindAllStringIndex(text, -1) {
			out = append(out, text[max(0, m[0]-6):min(len(text), m[1]+3)])
		}
	}
	return out
}

var latinCommaBeforeHan = regexp.MustCompile(`[,:]\p{Han}`)

// The English codes of the trace and of metrics.Reason. Snake-case codes
// never belong in Chinese output; one-word codes only where they stand
// alone between Chinese (or at a line's edge), so that English prose in
// trace data ("after a timeout") is not mistaken for a code.
var (
	snakeCodes = regexp.MustCompile(`\b(connect_error|no_response|http_error|stream_error|empty_output|in_flight|ttft_over_slo|not_complete|quality_fail|quality_unrated)\b`)
	wordCodes  = regexp.MustCompile(`(?i)\b(timeout|cancelled|qualified|unrated|ok|true|false|pass|fail)\b`)
)

// EnglishCodes reports the outcome, reason or boolean codes text shows.
func EnglishCodes(text string) []string {
	out := snakeCodes.FindAllString(text, -1)
	for _, loc := range wordCodes.FindAllStringIndex(text, -1) {
		if standalone(text, loc[0], loc[1]) {
			out = append(out, text[loc[0]:loc[1]])
		}
	}
	return out
}

// standalone: no ASCII letter within the same run of words on either side
// (spaces skipped), so "否：timeout" or "全部记录：true" count and "a timeout,"
// does not.
func standalone(s string, from, to int) bool {
	left := strings.TrimRight(s[:from], " \t")
	right := strings.TrimLeft(s[to:], " \t")
	isWordEdge := func(r rune, ok bool) bool {
		return !ok || !(r < unicode.MaxASCII && (unicode.IsLetter(r) || r == '_' || r == '-' || r == '.' || r == '/'))
	}
	l, lok := lastRune(left)
	r, rok := firstRune(right)
	return isWordEdge(l, lok) && isWordEdge(r, rok)
}

func lastRune(s string) (rune, bool) {
	rs := []rune(s)
	if len(rs) == 0 {
		return 0, false
	}
	return rs[len(rs)-1], true
}

func firstRune(s string) (rune, bool) {
	for _, r := range s {
		return r, true
	}
	return 0, false
}

// CopyRun is the length, in Chinese characters, of the shortest run that
// counts as copied from the seed.
const CopyRun = 18

// hanRuns splits text the way the copy check reads it: NFKC-normalised,
// whitespace removed, then cut at every letter or digit that is not
// Chinese. Punctuation stays inside a run, so a sentence copied with its
// commas is one run; each run is returned as its Chinese characters only.
func hanRuns(text string) []string {
	t := norm.NFKC.String(text)
	var runs []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			runs = append(runs, cur.String())
			cur.Reset()
		}
	}
	for _, r := range t {
		switch {
		case unicode.IsSpace(r):
		case isHan(r):
			cur.WriteRune(r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flush()
		}
	}
	flush()
	return runs
}

// window is the fingerprint of CopyRun Chinese characters.
func window(rs []rune) uint64 {
	sum := sha256.Sum256([]byte(string(rs)))
	return binary.BigEndian.Uint64(sum[:8])
}

// Fingerprint is the set of every CopyRun-character window of the seed's
// runs, hashed, so that the check needs no copy of the seed itself.
func Fingerprint(seed string) map[uint64]bool {
	fp := map[uint64]bool{}
	for _, run := range hanRuns(seed) {
		rs := []rune(run)
		for i := 0; i+CopyRun <= len(rs); i++ {
			fp[window(rs[i:i+CopyRun])] = true
		}
	}
	return fp
}

// Copied reports the runs of text that share at least CopyRun consecutive
// Chinese characters with the seed whose Fingerprint is fp, each as the
// longest stretch of overlapping windows.
func Copied(text string, fp map[uint64]bool) []string {
	var out []string
	for _, run := range hanRuns(text) {
		rs := []rune(run)
		for i := 0; i+CopyRun <= len(rs); {
			if !fp[window(rs[i:i+CopyRun])] {
				i++
				continue
			}
			j := i + 1
			for j+CopyRun <= len(rs) && fp[window(rs[j:j+CopyRun])] {
				j++
			}
			out = append(out, string(rs[i:j+CopyRun-1]))
			i = j + CopyRun - 1
		}
	}
	return out
}

// FormatFingerprint writes fp one hex value a line, sorted, for testdata.
func FormatFingerprint(fp map[uint64]bool) string {
	keys := make([]uint64, 0, len(fp))
	for k := range fp {
		keys = append(keys, k)
	}
	sortUint64(keys)
	var b strings.Builder
	b.WriteString("# SHA-256 (first 8 bytes) of every 18-character Chinese window of the unit's seed text; see seed_test.go\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "%016x\n", k)
	}
	return b.String()
}

// ParseFingerprint reads FormatFingerprint's output.
func ParseFingerprint(s string) (map[uint64]bool, error) {
	fp := map[uint64]bool{}
	for n, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var v uint64
		if _, err := fmt.Sscanf(line, "%016x", &v); err != nil {
			return nil, fmt.Errorf("line %d: %q: %w", n+1, line, err)
		}
		fp[v] = true
	}
	return fp, nil
}

func sortUint64(x []uint64) {
	for i := 1; i < len(x); i++ {
		for j := i; j > 0 && x[j] < x[j-1]; j-- {
			x[j], x[j-1] = x[j-1], x[j]
		}
	}
}

// costResult is the unit a cost per 1,000 qualified ends with.
var costResult = regexp.MustCompile(`^元\s*/\s*千次合格`)

// CostUnitMissing reports the lines of text that state a cost per 1,000
// qualified (they name 每千次合格成本) whose last amount in 元 lacks the
// unit 元/千次合格: "= 4 元" is a total, "= 4 元/千次合格" the figure. The
// 元 of 单元格 or 单元 is not money.
func CostUnitMissing(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if !strings.Contains(line, "每千次合格成本") {
			continue
		}
		money := strings.ReplaceAll(line, "单元", "单_")
		if i := strings.LastIndex(money, "元"); i >= 0 && !costResult.MatchString(money[i:]) {
			out = append(out, line)
		}
	}
	return out
}
