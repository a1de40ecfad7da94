// Command coursekit computes honest metrics cards from LLM-serving traces.
//
//	coursekit card TRACE [--slo-ttft 1s]... [--percentile nearest-rank|linear] [--window-cost X] [--format text|json|markdown]
//	coursekit gen [--seed N] [--requests N] [--rate R] [-o FILE]
//	coursekit csv TRACE
//
// Exit codes: 0 ok; 2 bad input (FILE:LINE: what is wrong); 1 anything else.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/trace"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is bad command-line input: exit code 2, like a bad trace.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

const usage = `coursekit ` + coursekit.Version + ` — honest metrics for LLM-serving traces (trace format llm-serving/v1)

usage:
  coursekit card TRACE [--slo-ttft 1s]... [--percentile nearest-rank|linear] [--window-cost X] [--format text|json|markdown]
  coursekit gen [--seed N] [--requests N] [--rate R] [-o FILE]
  coursekit csv TRACE [-o FILE]
  coursekit report TRACE [-o report.html] [--slo-ttft 1s]...
  coursekit assign --roster roster.csv --key-file KEY --out DIR [--notebook 06-deliverable.ipynb]
  coursekit grade --key-file KEY --roster roster.csv --out DIR [--manual manual-review.csv] [--execute [--image IMG] [--jobs N]] SUBMISSION.ipynb|DIR|LMS.zip...
  coursekit grade --gradescope /autograder
  coursekit collect --out DIR (--volumes 'llmperf-course-{username}' [--engine podman|docker] | --dirs ROOT [--layout '{username}/work']) [--roster roster.csv]
  coursekit sim [--addr 127.0.0.1:8000] [--max-batch N] [--decode-step 10ms] [--fail-503 0.1]...
  coursekit bench --url URL (--rate R [--arrival constant|poisson|gamma] [--burstiness B] | --concurrency N) --duration 30s [--warmup 5s] [--timeout 10s] [--max-tokens N] --out trace.jsonl
  coursekit import --from vllm|aiperf|genai-perf|guidellm|llmperf|inference-perf FILE [--summary SUMMARY] [-o trace.jsonl] [--run N] [--slo-ttft 1s]...
  coursekit version

exit codes: 0 ok; 2 bad input (FILE:LINE: what is wrong); 1 anything else
`

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "card":
		err = cmdCard(args[1:], stdout)
	case "gen":
		err = cmdGen(args[1:], stdout, stderr)
	case "csv":
		err = cmdCSV(args[1:], stdout)
	case "report":
		err = cmdReport(args[1:], stdout)
	case "assign":
		err = cmdAssign(args[1:], stdout)
	case "grade":
		err = cmdGrade(args[1:], stdout, stderr)
	case "collect":
		err = cmdCollect(args[1:], stdout, stderr)
	case "sim":
		err = cmdSim(args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(args[1:], stdout, stderr)
	case "import":
		err = cmdImport(args[1:], stdout, stderr)
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "coursekit", coursekit.Version)
	case "help", "-h", "--help", "-help":
		fmt.Fprint(stdout, usage)
	default:
		err = usagef("unknown command %q\n\n%s", args[0], usage)
	}
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "coursekit:", err)
	var ue *usageError
	var pe *os.PathError
	if trace.IsBadInput(err) || errors.As(err, &ue) || errors.As(err, &pe) {
		return 2
	}
	return 1
}

// parse parses flags that may come before or after the positional
// arguments (`card TRACE --format json` and `card --format json TRACE`).
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%s: %v", fs.Name(), err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func oneTrace(cmd string, pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usagef("%s: want exactly one TRACE file, got %d (%s)", cmd, len(pos), strings.Join(pos, " "))
	}
	return pos[0], nil
}
