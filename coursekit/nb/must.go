package nb

import "fmt"

// Must returns v, or stops the cell when err is not nil, so that a cell
// never carries on with a trace that failed to read:
//
//	var unit = nb.Must(trace.ReadFile(coursekit.Data("unit01/trace.jsonl")))
//
// A GoNB cell is a program of its own; stopping it is a panic, which GoNB
// shows in the cell's output with the cell's line. The message starts in
// Chinese and keeps the original error (FILE:LINE for a bad trace).
func Must[T any](v T, err error) T {
	Check(err)
	return v
}

// Check is Must for calls that only return an error.
func Check(err error) {
	if err != nil {
		panic(fmt.Errorf("单元格在这里停下了：%w", err))
	}
}
