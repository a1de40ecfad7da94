package lab

import (
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
