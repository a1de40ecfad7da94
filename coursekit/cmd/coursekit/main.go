// Command coursekit computes honest metrics cards from LLM-serving traces.
//
// `coursekit help` lists the commands; `coursekit help CMD` (or
// `coursekit CMD -h`) prints one command's usage, flags and examples.
//
// Exit codes: 0 ok; 2 bad input (FILE:LINE: what is wrong) or bad flags; 1 anything else.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/llmperf-course/course/coursekit/internal/outfile"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/trace"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is bad command-line input: exit code 2, like a bad trace.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// setupError is a run stopped before it starts by what it found, not by
// how it was called (a pre-flight check of the server): exit 2 like a
// usage error, without pointing at the command's help, which would not
// help.
type setupError struct{ msg string }

func (e *setupError) Error() string { return e.msg }

func setupf(format string, a ...any) error { return &setupError{fmt.Sprintf(format, a...)} }

func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is run whose long-running commands (sim, bench, capacity) also
// stop when ctx ends, as on Ctrl-C: tests run them in-process side by side,
// each stopped by its own ctx, without signals or shared hooks.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// Everything on stderr is for a person: file and zip entry names and
	// a trace's strings in it have their control codes escaped, so they
	// cannot erase or forge a line on the terminal.
	errw := safetext.NewWriter(stderr)
	defer errw.Flush()
	stderr = errw
	if len(args) == 0 {
		fmt.Fprint(stderr, globalHelp())
		return 2
	}
	err := dispatch(ctx, args, stdout, stderr)
	if err == nil {
		return 0
	}
	var h *helpRequest
	if errors.As(err, &h) {
		fmt.Fprint(stdout, commandHelp(h.fs.Name(), h.fs))
		return 0
	}
	var fe *flagError
	if errors.As(err, &fe) {
		if fe.unknownFlag() { // the help lists the flags it has
			fmt.Fprintf(stderr, "coursekit %s\n\n%s", fe, commandHelp(fe.fs.Name(), fe.fs))
		} else { // a bad or missing value: the error says which, the help would bury it
			fmt.Fprintf(stderr, "coursekit %s\nRun 'coursekit help %s' for usage.\n", fe, fe.fs.Name())
		}
		return 2
	}
	var pe *os.PathError
	if errors.As(err, &pe) && docFor(args[0]).purpose != "" {
		// A file that cannot be read: the command and the file, as the
		// user typed them ("coursekit card: x.jsonl: no such file"), not
		// the system call ("coursekit: stat x.jsonl: no such file or
		// directory").
		fmt.Fprintf(stderr, "coursekit %s: %s\n", args[0], strings.TrimPrefix(strings.Replace(err.Error(), pe.Error(), pathProblem(pe), 1), args[0]+": "))
	} else if docFor(args[0]).purpose != "" {
		// One form for every error of a command, as its flag and file
		// errors and its progress lines: "coursekit bench: …", never
		// "coursekit: bench: …" or a bare "coursekit: FILE:…" (issue 35).
		fmt.Fprintf(stderr, "coursekit %s: %s\n", args[0], strings.TrimPrefix(err.Error(), args[0]+": "))
	} else {
		fmt.Fprintln(stderr, "coursekit:", err)
	}
	var ue *usageError
	if errors.As(err, &ue) {
		if d := docFor(args[0]); d.purpose != "" && args[0] != "help" {
			fmt.Fprintf(stderr, "Run 'coursekit help %s' for usage.\n", args[0])
		}
		return 2
	}
	var se *setupError
	if errors.As(err, &se) {
		return 2
	}
	var ie *outfile.InputError      // an output that would overwrite an input
	var nr *regfile.NotRegularError // a folder or a device given as a file
	if trace.IsBadInput(err) || errors.As(err, &pe) || errors.As(err, &ie) || errors.As(err, &nr) {
		return 2
	}
	return 1
}

// pathProblem says what is wrong with the file of pe: its path as given
// and the reason, "no such file" for a missing one.
func pathProblem(pe *os.PathError) string {
	if errors.Is(pe.Err, fs.ErrNotExist) {
		if dir := missingFolder(pe.Path); dir != "" {
			// bench --out /nonexistent/x.jsonl: the folder is what is
			// missing, not the file the command would create (issue 35).
			return pe.Path + ": the folder " + dir + " does not exist"
		}
		return pe.Path + ": no such file"
	}
	return pe.Path + ": " + pe.Err.Error()
}

// missingFolder is the outermost folder of path that does not exist
// ("/nonexistent" of /nonexistent/a/x.jsonl), or "" when path's own folder
// exists.
func missingFolder(path string) string {
	missing := ""
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(dir); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return missing
		}
		missing = dir
		if parent := filepath.Dir(dir); parent == dir {
			return missing
		}
	}
}

// termOut is stdout for a command that prints only text for a person
// (grade, collect, assign, key): names from learners' files are shown
// with their control codes escaped. Each such command prints whole lines,
// so nothing is held back at its end.
func termOut(stdout io.Writer) io.Writer { return safetext.NewWriter(stdout) }

// dispatch runs one command. Each command defines its flags and calls
// parse before anything else, so `dispatch(CMD -h)` is how the help layer
// (help.go) learns a command's flags.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var err error
	switch args[0] {
	case "card":
		err = cmdCard(args[1:], stdout, stderr)
	case "compare":
		err = cmdCompare(args[1:], stdout, stderr)
	case "gen":
		err = cmdGen(args[1:], stdout, stderr)
	case "csv":
		err = cmdExport("csv", args[1:], stdout, stderr)
	case "export":
		err = cmdExport("export", args[1:], stdout, stderr)
	case "sql":
		err = cmdSQL(args[1:], stdout)
	case "report":
		err = cmdReport(args[1:], stdout, stderr)
	case "assign":
		err = cmdAssign(args[1:], termOut(stdout), stderr)
	case "key":
		err = cmdKey(args[1:], termOut(stdout))
	case "grade":
		err = cmdGrade(args[1:], termOut(stdout), stderr)
	case "collect":
		err = cmdCollect(args[1:], termOut(stdout), stderr)
	case "sim":
		err = cmdSim(ctx, args[1:], stdout, stderr)
	case "bench":
		err = cmdBench(ctx, args[1:], stdout, stderr)
	case "capacity":
		err = cmdCapacity(ctx, args[1:], stdout, stderr)
	case "import":
		err = cmdImport(args[1:], stdout, stderr)
	case "completion":
		err = cmdCompletion(args[1:], stdout)
	case "version", "--version", "-version":
		err = cmdVersion(args[1:], stdout)
	case "help", "-h", "--help", "-help":
		err = cmdHelp(args[1:], stdout, stderr)
	default:
		err = usagef("unknown command %q\n\n%s", args[0], globalHelp())
	}
	return err
}

// parse parses flags that may come before or after the positional
// arguments (`card TRACE --format json` and `card --format json TRACE`).
// -h, -help and --help return a *helpRequest, a bad flag a *flagError:
// run prints the command's help for a help request and an unknown flag,
// and the error with a pointer to the help for a bad or missing value.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &helpRequest{fs}
			}
			return nil, &flagError{fs, err}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func cmdVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("version: unexpected argument %q", pos[0])
	}
	fmt.Fprintln(stdout, "coursekit", coursekit.Version)
	return nil
}

// cmdHelp prints the list of commands, or one command's help (the same
// text as `coursekit CMD -h`).
func cmdHelp(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	switch len(pos) {
	case 0:
		fmt.Fprint(stdout, globalHelp())
		return nil
	case 1:
		if pos[0] == "help" {
			return &helpRequest{fs}
		}
		var h *helpRequest
		if err := dispatch(context.Background(), []string{pos[0], "-h"}, io.Discard, io.Discard); errors.As(err, &h) {
			return h
		} else if err != nil {
			return err
		}
		return usagef("help: %s has no help", pos[0])
	}
	return usagef("help: want at most one COMMAND, got %d (%s)", len(pos), strings.Join(pos, " "))
}

func oneTrace(cmd string, pos []string) (string, error) {
	if len(pos) != 1 {
		return "", usagef("%s: want exactly one TRACE file, got %d (%s)", cmd, len(pos), strings.Join(pos, " "))
	}
	return pos[0], nil
}
