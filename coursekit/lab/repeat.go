package lab

import (
	"fmt"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// EngineSide is one side of an A/B comparison on the real engine: how the
// engine is started, and the name and label its runs are saved under.
type EngineSide struct {
	Name, Label string
	Engine      Engine
}

// RepeatEngines runs load n times against each side's engine, alternating
// A, B, A, B, … (a fresh engine each run, as RunEngine starts it), so that
// the machine's load drifting during the experiment falls on both sides
// alike. The runs are saved as a.Name-1 … a.Name-n and b.Name-1 … b.Name-n,
// labelled "a.Label（第 i 次）"; their names come back for Compare.
func (l Lab) RepeatEngines(n int, a, b EngineSide, load loadgen.Config) (runsA, runsB []string, err error) {
	sides := [2]EngineSide{a, b}
	return repeatAB(n, a.Name, b.Name, func(name string, side, i int) error {
		s := sides[side]
		_, err := l.RunEngine(name, fmt.Sprintf("%s（第 %d 次）", s.Label, i), s.Engine, load)
		return err
	})
}

// repeatAB calls run for the i-th run of side 0 (A, named nameA-i) and of
// side 1 (B), alternating, i from 1 to n; it stops at the first error.
func repeatAB(n int, nameA, nameB string, run func(name string, side, i int) error) (runsA, runsB []string, err error) {
	if n < 1 {
		return nil, nil, fmt.Errorf("lab: want at least one run a side, got %d", n)
	}
	for i := 1; i <= n; i++ {
		for side, name := range []string{nameA, nameB} {
			full := fmt.Sprintf("%s-%d", name, i)
			if err := run(full, side, i); err != nil {
				return nil, nil, err
			}
			if side == 0 {
				runsA = append(runsA, full)
			} else {
				runsB = append(runsB, full)
			}
		}
	}
	return runsA, runsB, nil
}
