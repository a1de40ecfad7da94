package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

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

// A trace argument "-" is standard input, as vegeta's report reads it:
// `coursekit bench --out - | coursekit card -`. stdin is what it reads
// (tests replace it), named stdinName in errors ("stdin:3: …") and titles.
var stdin io.Reader = os.Stdin

const stdinName = "stdin"

// spoolStdin copies standard input into a temporary file named stdinName,
// for a command that reads its trace by path or twice (report, compare,
// export); done removes it.
func spoolStdin() (path string, done func(), err error) {
	dir, err := os.MkdirTemp("", "coursekit-stdin-*")
	if err != nil {
		return "", nil, err
	}
	done = func() { os.RemoveAll(dir) }
	path = filepath.Join(dir, stdinName)
	f, err := os.Create(path)
	if err == nil {
		_, err = io.Copy(f, stdin)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		done()
		return "", nil, fmt.Errorf("reading the trace from standard input: %w", err)
	}
	return path, done, nil
}

// stdinErr names a spooled trace's errors after standard input, not the
// temporary file.
func stdinErr(err error, spooled string) error {
	var te *trace.Error
	if errors.As(err, &te) && te.File == spooled {
		te.File = stdinName
	}
	return err
}

// traceArgs is the traces among the files named on cmd's command line. A
// metrics sidecar among them (bench --metrics-url and capacity write one
// beside each trace, so DIR/step-*.jsonl names both) is not read as a
// trace: a note on stderr names it and the traces are read. Named alone,
// it is refused with trace.SidecarMsg (exit 2).
func traceArgs(cmd string, l lang.Lang, pos []string, stderr io.Writer) ([]string, error) {
	var traces, sidecars []string
	for _, p := range pos {
		if p != "-" && trace.IsSidecarFile(p) {
			sidecars = append(sidecars, p)
		} else {
			traces = append(traces, p)
		}
	}
	if len(sidecars) == 0 {
		return pos, nil
	}
	if len(traces) == 0 {
		what := trace.SidecarMsg
		if len(sidecars) > 1 {
			what = fmt.Sprintf("%s; so %s: no trace to read", what, lang.N(lang.EN, len(sidecars)-1, "is the other file named", "are the other files named"))
		}
		return nil, &trace.Error{File: sidecars[0], Msg: what}
	}
	for _, p := range sidecars {
		fmt.Fprintf(stderr, "coursekit %s: %s\n", cmd, l.F(lang.Msg{
			"%s 是服务器指标文件（读取 /metrics 的记录），不是 trace：没有当作 trace 读，其余文件照常读。",
			"%s is a metrics sidecar (scrapes of /metrics), not a trace: not read as one; the other files are.",
		}, safetext.Name(p)))
	}
	return traces, nil
}
