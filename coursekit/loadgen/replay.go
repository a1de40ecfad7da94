package loadgen

import (
	"slices"

	"github.com/llmperf-course/course/coursekit/trace"
)

// ReplayOffsets reads a trace and returns each request's first send time,
// relative to the earliest, sorted: the schedule to replay.
func ReplayOffsets(path string) ([]float64, error) {
	tr, err := trace.ReadFile(path)
	if err != nil {
		return nil, err
	}
	first := map[string]float64{}
	for _, a := range tr.Attempts {
		if t, ok := first[a.Request]; !ok || a.StartMS < t {
			first[a.Request] = a.StartMS
		}
	}
	if len(first) == 0 {
		return nil, &trace.Error{File: path, Msg: "no attempts to replay"}
	}
	var at []float64
	for _, t := range first {
		at = append(at, t)
	}
	slices.Sort(at)
	base := at[0]
	for i := range at {
		at[i] -= base
	}
	return at, nil
}
