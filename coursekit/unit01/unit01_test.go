package unit01

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/internal/capture"
	"github.com/llmperf-course/course/coursekit/nb"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The checks are run here as the notebooks call them: with the notebook's
// own named prediction types (the generic checks take them as they are),
// before the prediction is written (nothing but the reminder) and with
// every answer right (every verdict 一致, no ✗). Each check's wrong
// answers and hints are typed in by coursekit/textcheck's answers test,
// which reads these functions' bodies.

func read(t *testing.T, name string) *trace.Trace {
	t.Helper()
	tr, err := trace.ReadFile(filepath.Join("..", "..", "data", "unit01", name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func printed(t *testing.T, f func()) string {
	t.Helper()
	out, err := capture.Stdout(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The notebooks' types, as their cells declare them (comments aside).
type (
	Prediction02 struct {
		TTFTMS           float64
		E2EMS            float64
		TPOTMS           float64
		PauseChangesTTFT nb.Guess
		MergedTPOTMS     float64
	}
	Prediction03 struct {
		Denominator string
		P95MS       float64
		Qualified   int
		GoodputPerS float64
	}
	MistakePrediction03 struct {
		FailureRateAfterDelete float64
		Product                float64
		P50WithZerosMS         float64
	}
	Rates03 struct {
		TokensPerS          float64
		LongerRaisesGoodput nb.Guess
	}
	Prediction04 struct {
		Qualified        int
		CostPer1000      float64
		FailureRateMoves nb.Guess
	}
	Prediction05 struct {
		GapsWhenMerged  int
		VLLMTPOTMS      float64
		VLLMTTFTSamples int
	}
)

func TestChecksShowNothingBeforeTheGuess(t *testing.T) {
	unit, timeline := read(t, "trace.jsonl"), read(t, "timeline.jsonl")
	for name, f := range map[string]func(){
		"CheckTimeline": func() {
			CheckTimeline(Prediction02{TTFTMS: 700, E2EMS: 1000, TPOTMS: 125, MergedTPOTMS: nb.Unset}, timeline)
		},
		"CheckPause":      func() { CheckPause(nb.Undecided, timeline) },
		"CheckMergedTPOT": func() { CheckMergedTPOT(Prediction02{MergedTPOTMS: 62.5}, timeline) },
		"CheckConclusions": func() {
			CheckConclusions(Prediction03{Denominator: "?", P95MS: 2000, Qualified: 5, GoodputPerS: 0.5}, unit)
		},
		"CheckDeletedFailures":     func() { CheckDeletedFailures(MistakePrediction03{nb.Unset, 0.525, 400}, unit) },
		"CheckMarginalProduct":     func() { CheckMarginalProduct(MistakePrediction03{0, nb.Unset, 400}, unit) },
		"CheckMissingAsZero":       func() { CheckMissingAsZero(MistakePrediction03{0, 0.525, nb.Unset}, unit) },
		"CheckStrictCount":         func() { CheckStrictCount(HandCounts{nb.Unset, 6}, unit) },
		"CheckCountWithoutQuality": func() { CheckCountWithoutQuality(HandCounts{3, nb.Unset}, unit) },
		"CheckLinearP95":           func() { CheckLinearP95(nb.Unset, unit) },
		"CheckRates":               func() { CheckRates(Rates03{TokensPerS: 3.3}, unit) },
		"CheckTighterSLO":          func() { CheckTighterSLO(Prediction04{Qualified: 4, CostPer1000: 5}, unit, 500) },
		"CheckToolReadings": func() {
			CheckToolReadings(Prediction05{GapsWhenMerged: 2, VLLMTPOTMS: nb.Unset, VLLMTTFTSamples: 8}, unit, timeline)
		},
	} {
		out := printed(t, f)
		if !strings.Contains(out, "所以要等你写下") || strings.Count(strings.TrimSpace(out), "\n") > 0 {
			t.Errorf("%s with a guess missing should print the reminder only, got:\n%s", name, out)
		}
	}
	// A missing field is named by the notebook's type, as nb.Guessed names it.
	if out := printed(t, func() { CheckTimeline(Prediction02{nb.Unset, 1000, 125, nb.No, 62.5}, timeline) }); !strings.Contains(out, "Prediction02.TTFTMS") {
		t.Errorf("the reminder should name the notebook's Prediction02.TTFTMS:\n%s", out)
	}
}

func TestChecksAcceptTheRightAnswers(t *testing.T) {
	unit, timeline := read(t, "trace.jsonl"), read(t, "timeline.jsonl")
	p02 := Prediction02{700, 1000, 125, nb.No, 62.5}
	m03 := MistakePrediction03{0, 0.525, 400}
	for name, f := range map[string]func(){
		"CheckTimeline":            func() { CheckTimeline(p02, timeline) },
		"CheckPause":               func() { CheckPause(p02.PauseChangesTTFT, timeline) },
		"CheckMergedTPOT":          func() { CheckMergedTPOT(p02, timeline) },
		"CheckR1":                  func() { CheckR1(R1Answer{200, 420, 63.3}) },
		"CheckConclusions":         func() { CheckConclusions(Prediction03{"B", 2000, 5, 0.5}, unit) },
		"CheckLooserSLO":           func() { CheckLooserSLO(At2sAnswer{7, 0.7, 2.86}, unit) },
		"CheckDeletedFailures":     func() { CheckDeletedFailures(m03, unit) },
		"CheckMarginalProduct":     func() { CheckMarginalProduct(m03, unit) },
		"CheckMissingAsZero":       func() { CheckMissingAsZero(m03, unit) },
		"CheckStrictCount":         func() { CheckStrictCount(HandCounts{3, 6}, unit) },
		"CheckCountWithoutQuality": func() { CheckCountWithoutQuality(HandCounts{3, 6}, unit) },
		"CheckLinearP95":           func() { CheckLinearP95(1720, unit) },
		"CheckRates":               func() { CheckRates(Rates03{nb.PerSecond(unit, 1000).TokensPerS, nb.No}, unit) },
		"CheckTighterSLO":          func() { CheckTighterSLO(Prediction04{4, 5, nb.No}, unit, 500) },
		"CheckSLOForGoodput":       func() { CheckSLOForGoodput(1500, unit) },
		"CheckQualifiedAt300":      func() { CheckQualifiedAt300(2, unit) },
		"CheckToolReadings":        func() { CheckToolReadings(Prediction05{2, 125, 8}, unit, timeline) },
		"CheckR3":                  func() { CheckR3(R3Answer{77.5, 77.5}, unit) },
	} {
		out := printed(t, f)
		if !strings.Contains(out, "一致 ✓") || strings.Contains(out, "✗") || strings.Contains(out, "所以要等你写下") {
			t.Errorf("%s with every answer right:\n%s", name, out)
		}
	}
}

// A wrong answer is told its own hint, from the function as the notebook
// calls it (the textcheck answers test types in every anticipated one).
func TestACheckTellsItsHint(t *testing.T) {
	timeline := read(t, "timeline.jsonl")
	out := printed(t, func() { CheckTimeline(Prediction02{700, 1000, 150, nb.No, 62.5}, timeline) })
	if !strings.Contains(out, "不一致 ✗") || !strings.Contains(out, "你算到了流结束") {
		t.Errorf("TPOT 150 should be told it counted to the stream's end:\n%s", out)
	}
}

// 04's parameter cell invites another threshold: the hints of its check
// are built from the threshold and the trace, not from 0.5 s and R4. At
// 1200 ms, "<" drops R7 (TTFT exactly 1200 ms), and the count it gives is
// also the 1 s count, so one hint names both.
func TestTighterSLOHintsFollowTheThreshold(t *testing.T) {
	unit := read(t, "trace.jsonl")
	for _, c := range []struct {
		slo   float64
		guess Prediction04
		want  []string
		never []string
	}{
		{500, Prediction04{3, 5, nb.No}, []string{"你用了 <", "TTFT ≤ 0.5 s", "500 ms 的 R4"}, []string{"R7"}},
		{500, Prediction04{5, 4, nb.No}, []string{"门槛 1 s 时的数", "会退出"}, nil},
		{500, Prediction04{4, 20.0 / 3, nb.No}, []string{"你用了 <"}, nil},
		{500, Prediction04{4, 0.005, nb.No}, []string{"0.005 元是每一次合格的成本"}, nil},
		{1200, Prediction04{5, 10.0 / 3, nb.No}, []string{"你用了 <", "TTFT ≤ 1.2 s", "1200 ms 的 R7", "门槛 1 s 时的数"}, []string{"R4", "0.5 s", "会退出"}},
		{1200, Prediction04{6, 4, nb.No}, []string{"你用了 <", "R7"}, []string{"R4", "0.5 s"}},
	} {
		out := printed(t, func() { CheckTighterSLO(c.guess, unit, c.slo) })
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("at %v ms, %+v: want %q in\n%s", c.slo, c.guess, w, out)
			}
		}
		for _, w := range c.never {
			if strings.Contains(out, w) {
				t.Errorf("at %v ms, %+v: %q should not be said:\n%s", c.slo, c.guess, w, out)
			}
		}
	}
	// At 1200 ms the right answers are 6 and 10/3.
	if out := printed(t, func() { CheckTighterSLO(Prediction04{6, 10.0 / 3, nb.No}, unit, 1200) }); strings.Contains(out, "✗") {
		t.Errorf("right answers at 1200 ms:\n%s", out)
	}
}
