package lab

import (
	"context"
	"errors"
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
// A, B, A, B, …, so that the machine's load drifting during the experiment
// falls on both sides alike. Each side's engine is started once, before its
// side's first run, and both are stopped after the last: a start loads the
// model, which takes seconds on a busy machine, six times over for three
// runs a side. The runs are saved as a.Name-1 … a.Name-n and b.Name-1 …
// b.Name-n, labelled "a.Label（第 i 次）": Repeats(a.Name, n) names them for
// Compare.
func (l Lab) RepeatEngines(n int, a, b EngineSide, load loadgen.Config) error {
	labels := [2]string{a.Label, b.Label}
	return repeatOnEngines(n, a, b, func(p *EngineProcess, name string, side, i int) error {
		_, err := l.runOn(p, name, fmt.Sprintf("%s（第 %d 次）", labels[side], i), load, nil)
		return err
	})
}

// repeatOnEngines calls run for each run of RepeatEngines, in its order,
// with the side's engine: started before the side's first run, stopped
// (both of them) when the runs end, whether they failed or not.
func repeatOnEngines(n int, a, b EngineSide, run func(p *EngineProcess, name string, side, i int) error) (err error) {
	var procs [2]*EngineProcess
	defer func() {
		for _, p := range procs {
			if p != nil {
				err = errors.Join(err, p.Stop())
			}
		}
	}()
	engines := [2]Engine{a.Engine, b.Engine}
	return repeatAB(n, a.Name, b.Name, func(name string, side, i int) error {
		if procs[side] == nil {
			p, err := engines[side].Start(context.Background())
			if err != nil {
				return err
			}
			procs[side] = p
		}
		return run(procs[side], name, side, i)
	})
}

// Repeats are the names RepeatEngines saves n runs of one side under:
// name-1 … name-n.
func Repeats(name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", name, i+1)
	}
	return out
}

// repeatAB calls run for the i-th run of side 0 (A, named as Repeats
// names it) and of side 1 (B), alternating, i from 1 to n; it stops at the
// first error.
func repeatAB(n int, nameA, nameB string, run func(name string, side, i int) error) error {
	if n < 1 {
		return fmt.Errorf("lab: want at least one run a side, got %d", n)
	}
	a, b := Repeats(nameA, n), Repeats(nameB, n)
	for i := range n {
		for side, name := range []string{a[i], b[i]} {
			if err := run(name, side, i+1); err != nil {
				return err
			}
		}
	}
	return nil
}
