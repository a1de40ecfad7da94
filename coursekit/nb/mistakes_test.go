package nb

import (
	"math"
	"strings"
	"testing"
)

// On the unit's trace (R9 and R10 fail before any output, R4's TTFT is
// exactly 500 ms, R5 is fast but fails quality) each mistake moves its
// number the way 03 says, away from the definition's.
func TestMistakesMoveTheNumberAsThirdLessonSays(t *testing.T) {
	u := readUnit(t)
	wrong := TTFTsMissingAsZero(u)
	if wrong.N != len(u.Attempts) || wrong.P50 == nil || *wrong.P50 != 400 {
		t.Errorf("missing as 0: n = %d (want every attempt, %d), P50 %s (want 400: two zeros pull the fifth of ten down)", wrong.N, len(u.Attempts), MS(wrong.P50))
	}
	if got := CountWithLessThan(u, 500); got != 3 {
		t.Errorf("< 500 counts %d, want 3: R4 at exactly 500 ms drops out of the correct 4", got)
	}
	if got := CountWithoutQuality(u, 1000); got != 6 {
		t.Errorf("quality forgotten at 1 s counts %d, want 6: R5 joins the correct 5", got)
	}
	if got := CountWithLessThan(u, 1000); got != 5 {
		t.Errorf("< 1000 counts %d, want the correct 5 (no TTFT sits at exactly 1000 ms)", got)
	}
}

func TestPercentileLinesNameBothMethodsInChinese(t *testing.T) {
	u := readUnit(t)
	got := PercentileLines(u)
	for _, want := range []string{"最近秩：P50 = 500 ms，P95 = 2000 ms（n = 8）", "线性插值：", "P95 = 1720 ms"} {
		if !strings.Contains(got, want) {
			t.Errorf("PercentileLines lacks %q:\n%s", want, got)
		}
	}
	if p := LinearP95(u); p == nil || math.Abs(*p-1720) > 1e-9 {
		t.Errorf("LinearP95 = %s, want 1720 ms", MS(p))
	}
}
