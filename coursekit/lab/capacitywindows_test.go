package lab

import (
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/capacity"
)

// Issue 35, item 2: in notebook 10's table a step stopped early showed the
// overload test's figures (the in-flight count, offered − completed)
// beside the step's window (5.3 s) although they came from the test's own
// (3.2 s): the cells name that window.
func TestCapacityTableLoadFiguresNameTheirWindow(t *testing.T) {
	lc, err := capacity.CheckLoad(capacity.LoadWindow{OfferedPerS: 400, WindowS: 3.2, Arrivals: 1280, Completions: 640, InFlightStart: 10, InFlightEnd: 650, Resolution: 125})
	if err != nil || !lc.Overloaded {
		t.Fatalf("fixture: %+v, %v", lc, err)
	}
	stopped := capacity.Step{Rate: 400, Attempts: 700, Qualified: 700, InFlight: 650, WindowS: 5.3, Verdict: capacity.Fails, Reason: "stopped early: " + lc.Reason(), Load: &lc}
	rows := CapacityTable(&capacity.Result{Target: 0.9, Steps: []capacity.Step{stopped}})
	row := rows[1]
	if !strings.HasPrefix(row[5], "5.3 s") {
		t.Errorf("window cell %q, want the step's 5.3 s", row[5])
	}
	for _, i := range []int{8, 9} {
		if !strings.HasSuffix(row[i], "（过载检验的 3.2 s 窗口）") {
			t.Errorf("%s %q: does not name the overload test's 3.2 s window", rows[0][i], row[i])
		}
	}
	// A step whose load is its own window's says nothing more.
	stopped.Load.WindowS = 5.3
	if row := CapacityTable(&capacity.Result{Target: 0.9, Steps: []capacity.Step{stopped}})[1]; strings.Contains(row[8]+row[9], "窗口") {
		t.Errorf("same window: %v", row)
	}
}

// Issue 35, item 1: a step interrupted before its window began measured
// nothing: its row says so where the window goes, with no extension and
// no busy share, and no load figures.
func TestCapacityTableStepInterruptedBeforeItsWindow(t *testing.T) {
	s := capacity.Step{Rate: 20, Verdict: capacity.Interrupted, Extended: 1, BeforeWindow: true}
	row := CapacityTable(&capacity.Result{Target: 0.9, Steps: []capacity.Step{s}})[1]
	if row[5] != "窗口开始前就被中断，什么也没有测到" || row[6] != "无" || row[8] != "无" || row[9] != "无" {
		t.Errorf("row of a step interrupted before its window: %q", row)
	}
	if tip := CapacityChart(&capacity.Result{Target: 0.9, Steps: []capacity.Step{s}}).Steps[0]; !tip.BeforeWindow {
		t.Errorf("chart step %+v: not marked interrupted before its window", tip)
	}
}
