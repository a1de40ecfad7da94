package lab

import (
	"math"

	"github.com/llmperf-course/course/coursekit/compare"
)

// Compare compares the saved runs named a (side A) with those named b
// (side B), as `coursekit compare A1 A2 … -- B1 B2 …` does with their
// traces: every metric's B − A with its 95 % interval, its method and a
// verdict (better, worse, or same when the interval holds 0), and the
// conditions that changed between the sides or among one side's runs. With
// several runs a side the intervals carry the variance between runs (a
// hierarchical bootstrap, seeded). The runs go by their names in the
// report; every run is judged under the first A run's SLO (1 s unless its
// trace records one). Show it with nb.Comparison, draw it with
// comparefig.Forest.
func (l Lab) Compare(a, b []string) (*compare.Result, error) {
	files := func(names []string) ([]compare.File, error) {
		out := make([]compare.File, len(names))
		for i, n := range names {
			p, _, err := l.paths(n)
			if err != nil {
				return nil, err
			}
			out[i] = compare.File{Path: p, Name: n}
		}
		return out, nil
	}
	fa, err := files(a)
	if err != nil {
		return nil, err
	}
	fb, err := files(b)
	if err != nil {
		return nil, err
	}
	return compare.NamedFiles(fa, fb, compare.Options{})
}

// Metrics of a comparison notebook 09 reads, by their card names.
const (
	// MetricGapP50 is the median gap between a stream's adjacent events
	// (the card's itl_ms.p50: ITL only when every event carries one token).
	MetricGapP50 = "itl_ms.p50"
	// MetricTokensPerS is the output tokens per window second.
	MetricTokensPerS = "throughput.output_tokens_per_s"
)

// Means are the two sides' values of r's metric named name (each the mean
// of its runs') as plain numbers, NaN for a side without one or a metric r
// does not have: nb.Num prints NaN as 缺失 and a comparison with it is
// false, so a missing value never reads as 0.
func Means(r *compare.Result, name string) (a, b float64) {
	m, ok := r.Metric(name)
	if !ok {
		return math.NaN(), math.NaN()
	}
	return m.Values()
}

// Separates says whether r's metric named name differs on this data: its
// 95 % interval of B − A leaves out 0 (verdict better or worse). With few
// runs a side that interval is optimistic, as notebook 09 says.
func Separates(r *compare.Result, name string) bool {
	m, ok := r.Metric(name)
	return ok && m.Real()
}
