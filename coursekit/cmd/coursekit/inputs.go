package main

import "github.com/llmperf-course/course/coursekit/internal/regfile"

// The files a person names on the command line are read whole, through
// readInput: a FIFO or a device (/dev/zero) is refused without blocking,
// and a file longer than its limit is refused naming the file and the
// limit, before it is read (docs/cli.md, "Input limits").
const (
	importFileLimit   = 1 << 30  // import FILE: a tool's result file
	summaryLimit      = 64 << 20 // import --summary
	notebookLimit     = 64 << 20 // assign --notebook, grade --release
	publicTraceLimit  = 256 << 20
	capacityJSONLimit = 64 << 20 // capacity --previous
)

// readInput reads the file a flag or argument names (what says which, for
// the error), if it is a regular file of at most limit bytes.
func readInput(path, what string, limit int64) ([]byte, error) {
	return regfile.ReadNamed(path, what, limit)
}
