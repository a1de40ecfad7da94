package card

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tolerances for comparing a learner's figure with the recomputed one:
// |got − want| ≤ max(relTol·|want|, the figure's absolute floor).
const (
	relTol      = 0.01
	countTol    = 1e-6 // counts (numerators, denominators) are whole numbers
	msTol       = 5.0  // P95 and SLO, in ms (a P95 rounded to 0.01 s passes)
	perSecTol   = 1e-3 // goodput, per second
	costTol     = 0.01 // cost per 1000, in the trace currency
	secondsTol  = 1e-6 // window length, in s
	minTextRune = 8    // shorter free text is not an answer yet
)

// consistTol is how far apart two of the card's own numbers may be and
// still agree in a hidden consistency check (goodput = qualified /
// window, cost = window cost / qualified × 1000): the band in which a
// figure check gives partial credit (see package criteria, band). A
// figure rounded or slightly off is charged once, by its figure check;
// the consistency check fails only what that band cannot explain. With
// this unit's counts (at most 10 qualified attempts), one qualified
// attempt more or less moves goodput and cost by 10 % or more, so the
// band is strict: a wrong count still fails. A figure that is the derived
// value rounded to the digits it shows (roundedFrom: 0.4 for 0.353, 13 %
// off) agrees too, whatever the distance: its figure check charges it.
const consistTol = 0.10

// consistent reports whether got agrees with want, derived from other
// numbers of the same card: less than consistTol apart (or within abs).
func consistent(got, want, abs float64) bool {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return false
	}
	d := math.Abs(got - want)
	return d <= abs || d < consistTol*math.Abs(want)*(1-1e-9)
}

func near(got, want, abs float64) bool {
	if math.IsNaN(got) || math.IsInf(got, 0) {
		return false
	}
	return math.Abs(got-want) <= math.Max(relTol*math.Abs(want), abs)
}

func sameCount(got, want float64) bool {
	return !math.IsNaN(got) && math.Abs(got-want) <= countTol
}

// norm lower-cases s, trims it, maps full-width forms to ASCII and collapses
// runs of spaces, so that units compare by meaning rather than by typing.
func norm(s string) string {
	var b strings.Builder
	space := false
	for _, r := range strings.TrimSpace(s) {
		switch {
		case r == '／':
			r = '/'
		case r >= '！' && r <= '～': // full-width ASCII block
			r = r - '！' + '!'
		case r == '\u3000':
			r = ' '
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// secondsOf is the length of one time unit in seconds ("s" → 1, "ms" →
// 0.001); ok is false for anything that is not a time unit. A leading "1"
// ("1s", "1 秒") is allowed.
func secondsOf(unit string) (float64, bool) {
	u := strings.TrimSpace(strings.TrimPrefix(norm(unit), "1"))
	switch u {
	case "s", "sec", "secs", "second", "seconds", "秒", "秒钟":
		return 1, true
	case "ms", "msec", "millisecond", "milliseconds", "毫秒":
		return 0.001, true
	case "min", "mins", "minute", "minutes", "分钟", "分":
		return 60, true
	case "h", "hr", "hour", "hours", "小时":
		return 3600, true
	}
	return 0, false
}

// toMS converts a time figure to milliseconds; ok is false without a time unit.
func toMS(f Figure) (float64, bool) {
	s, ok := secondsOf(f.Unit)
	if !ok || s > 1 { // latencies and SLOs are in s or ms
		return 0, false
	}
	return f.Value * s * 1000, true
}

// timeMatches reports whether a time figure equals wantMS. Without a valid
// unit the value is tried as seconds and as milliseconds: the unit row
// reports the missing unit, the figure row judges the number.
func timeMatches(f Figure, wantMS float64) bool {
	if ms, ok := toMS(f); ok {
		return near(ms, wantMS, msTol)
	}
	return near(f.Value*1000, wantMS, msTol) || near(f.Value, wantMS, msTol)
}

// splitPer splits "a/b", "a per b" or "a每b" into its two sides.
func splitPer(unit string) (num, den string, ok bool) {
	u := norm(unit)
	for _, sep := range []string{"/", "÷", " per ", "每"} {
		if i := strings.Index(u, sep); i >= 0 {
			return strings.TrimSpace(u[:i]), strings.TrimSpace(u[i+len(sep):]), true
		}
	}
	return "", "", false
}

// rateFactor is what converts a "things per time unit" value into per
// second; ok is false unless the unit names something per a time unit.
func rateFactor(unit string) (num string, factor float64, ok bool) {
	num, den, ok := splitPer(unit)
	if !ok {
		return "", 0, false
	}
	s, ok := secondsOf(den)
	if !ok {
		return num, 0, false
	}
	return num, 1 / s, true
}

// Words the unit checks look for. Lists are generous: the check is about
// naming the right things, not about one spelling.
var (
	attemptWords  = []string{"尝试", "attempt", "请求", "request", "全部", "所有", "总", "all", "total"}
	successWords  = []string{"成功", "success", "complete", "完成"}
	inclusiveWord = []string{"全部", "所有", "总", "含", "包括", "all", "total", "includ"}
	failWords     = []string{"失败", "fail", "error", "错误", "超时", "timeout"}
	qualWords     = []string{"合格", "qualif", "达标", "good"}
	wrongRateNum  = []string{"token", "sample", "样本", "字", "byte", "gpu"}
	perThousand   = []string{"千", "1000", "1,000", "1k", "k次", "thousand"}
)

// denominatorIsAttempts reports whether a ratio's denominator text counts
// every attempt rather than successes only.
func denominatorIsAttempts(den string) bool {
	if !containsAny(den, attemptWords...) {
		return false
	}
	return !containsAny(den, successWords...) || containsAny(den, inclusiveWord...)
}

// currencyWords are the spellings of a trace's currency.
func currencyWords(currency string) []string {
	switch strings.ToUpper(currency) {
	case "CNY", "RMB":
		return []string{"元", "cny", "rmb", "¥", "￥", "人民币"}
	case "USD":
		return []string{"usd", "$", "美元", "dollar"}
	case "EUR":
		return []string{"eur", "€", "欧元"}
	case "":
		return nil
	}
	return []string{strings.ToLower(currency)}
}

func runeCount(s string) int { return utf8.RuneCountInString(strings.TrimSpace(s)) }

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
