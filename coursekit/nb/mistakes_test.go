package nb

import (
	"math"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
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

// VLLMLines reads the unit's trace both ways: vLLM's P95 is the linear
// one over the 8 successes (1720 ms), the card's the nearest-rank one
// (2000 ms), and only the card gives a failure rate (2 of 10).
func TestVLLMLinesReadTheTraceBothWays(t *testing.T) {
	tr, err := trace.ReadFile(CourseTrace())
	if err != nil {
		t.Fatal(err)
	}
	got := VLLMLines(tr)
	for _, want := range []string{"vLLM 口径：completed = 8，failed = 2；TTFT P95 = 1720 ms（线性插值，n = 8，失败不在样本里）\n", "本课口径：TTFT P95 = 2000 ms（最近秩，n = 8）；失败率 2 / 10 = 20%"} {
		if !strings.Contains(got, want) {
			t.Errorf("VLLMLines = %q; want %q in it", got, want)
		}
	}
}
