package cardfmt

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// The unit trace's card, in every format, says that its P95 has no upper
// bound, how many samples would give one, and which method it used.
func TestCardShowsIntervals(t *testing.T) {
	s, err := metrics.SummarizeFile(filepath.Join("..", "..", "data", "unit01", "trace.jsonl"), metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := Write(&b, s, "trace.jsonl", f); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{
			"P95 [800 ms，无上界]（样本太少，上界要 n ≥ 72）", // TTFT
			ciMethod[0],
			"20%（失败尝试 / 全部尝试）；95% 区间 [5.7%, 51.0%]（Wilson 得分区间）",
			"50%（联合合格尝试 / 全部尝试）",
			"[23.7%, 76.3%]（Wilson 得分区间）",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%s card lacks %q", f, want)
			}
		}
		// Four distributions with samples in the unit trace: TTFT, E2E, ITL
		// and TPOT (shown with its intervals whenever it has samples).
		if got := strings.Count(out, ciMethod[0]); got != 4 {
			t.Errorf("%s card: %d interval lines, want 4 (TTFT, E2E, ITL, TPOT)", f, got)
		}
	}
	var b bytes.Buffer
	if err := Write(&b, s, "trace.jsonl", JSON); err != nil {
		t.Fatal(err)
	}
	var card struct {
		TTFT struct {
			CI95 map[string]map[string]any `json:"ci95"`
		} `json:"ttft_ms"`
		FailureRate struct {
			CI95 map[string]any `json:"ci95"`
		} `json:"failure_rate"`
	}
	if err := json.Unmarshal(b.Bytes(), &card); err != nil {
		t.Fatal(err)
	}
	p95 := card.TTFT.CI95["p95"]
	if high, present := p95["high"]; !present || high != nil || p95["low"] != 800.0 || p95["method"] != metrics.OrderStatistic || p95["need_n_high"] != 72.0 {
		t.Errorf("JSON ttft_ms.ci95.p95 = %v, want low 800, high null, need_n_high 72", p95)
	}
	for _, lvl := range []string{"p50", "p90", "p95", "p99"} {
		if _, ok := card.TTFT.CI95[lvl]; !ok {
			t.Errorf("JSON ttft_ms.ci95 lacks %s", lvl)
		}
	}
	if card.FailureRate.CI95["method"] != metrics.Wilson {
		t.Errorf("JSON failure_rate.ci95 = %v, want a Wilson interval", card.FailureRate.CI95)
	}
}

// An empty distribution prints no interval line (it has no percentiles).
func TestCILineEmpty(t *testing.T) {
	if l := CILine(metrics.NewDist(nil, metrics.NearestRank, "ms")); l != "" {
		t.Errorf("empty sample: %q", l)
	}
}

// The event gaps' interval line, and only it, says the gaps are taken as
// independent and that compare resamples whole attempts; the JSON card
// names it as the interval's sampling, in both languages' cards.
func TestEventGapIntervalSaysIndependentGaps(t *testing.T) {
	s, err := metrics.SummarizeFile(filepath.Join("..", "..", "data", "unit01", "trace.jsonl"), metrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []lang.Lang{lang.ZH, lang.EN} {
		for _, f := range []Format{Text, Markdown} {
			var b bytes.Buffer
			if err := WriteLang(&b, s, "trace.jsonl", f, l); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			if got := strings.Count(out, ciGapsNote.In(l)); got != 1 {
				t.Errorf("%s %s card: gaps note %d times, want once", l, f, got)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, ciGapsNote.In(l)) && !strings.Contains(line, ciMethod.In(l)) {
					t.Errorf("%s %s card: gaps note off the interval line: %q", l, f, line)
				}
			}
			if !strings.Contains(ciGapsNote.In(l), "compare") {
				t.Errorf("%s note does not name compare", l)
			}
		}
	}
	var b bytes.Buffer
	if err := Write(&b, s, "trace.jsonl", JSON); err != nil {
		t.Fatal(err)
	}
	var card struct {
		ITL struct {
			CI95 map[string]map[string]any `json:"ci95"`
		} `json:"itl_ms"`
		TTFT struct {
			CI95 map[string]map[string]any `json:"ci95"`
		} `json:"ttft_ms"`
	}
	if err := json.Unmarshal(b.Bytes(), &card); err != nil {
		t.Fatal(err)
	}
	if got := card.ITL.CI95["p95"]["sampling"]; got != metrics.SamplingIndependentGaps {
		t.Errorf("JSON itl_ms.ci95.p95.sampling = %v, want %q", got, metrics.SamplingIndependentGaps)
	}
	if got, ok := card.TTFT.CI95["p95"]["sampling"]; ok {
		t.Errorf("JSON ttft_ms.ci95.p95.sampling = %v, want absent", got)
	}
}
