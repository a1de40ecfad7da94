package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/tracegen"
)

func cmdCard(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("card", flag.ContinueOnError)
	var opts cardopts.Flags
	opts.RegisterSLOsDefault(fs, "TTFT SLO of a condition (repeat for side-by-side conditions; default: the trace's conditions.slo, else 1s)", cardopts.RecordedSLODefault)
	opts.RegisterReading(fs)
	format := fs.String("format", string(cardfmt.Text), "output: text, markdown or json")
	langName := langFlag(fs)
	cpuprofile := fs.String("cpuprofile", "", "write a Go CPU profile of the card's computation to this file (default: none)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	f, l, err := reportOutput("card", *format, *langName, &opts)
	if err != nil {
		return err
	}
	if pos, err = traceArgs("card", l, pos, stderr); err != nil {
		return err
	}
	path, err := oneTrace("card", pos)
	if err != nil {
		return err
	}
	if *cpuprofile != "" {
		pf, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	name, spooled := path, ""
	if path == "-" {
		var done func()
		if spooled, done, err = spoolStdin(); err != nil {
			return err
		}
		defer done()
		path, name = spooled, stdinName
	}
	s, err := cardopts.SummarizeFile(path, opts)
	if err != nil {
		return stdinErr(err, spooled)
	}
	return writeReport(stdout, f, func(w io.Writer) error { return cardfmt.WriteLang(w, s, name, f, l) })
}

// reportOutput reads the --format and --lang a command of cmd prints its
// report in (a bad format is a usage error), and keeps the heap near the
// memory budget of opts: what the stores free when they spill is reused
// before the heap grows.
func reportOutput(cmd, format, langName string, opts *cardopts.Flags) (cardfmt.Format, lang.Lang, error) {
	f, err := cardfmt.ParseFormat(format)
	if err != nil {
		return f, "", usagef("%s: %v", cmd, err)
	}
	l, err := resolveLang(cmd, langName)
	if err != nil {
		return f, l, err
	}
	debug.SetMemoryLimit(opts.Budget()*2 + 64<<20)
	return f, l, nil
}

// writeReport writes a report in format f through write, buffered. Text
// and Markdown are read on a terminal: the trace's own strings (clock,
// currency, attempt ids, errors, file names) have their control codes
// escaped. JSON escapes them itself (cardfmt, safetext.JSON).
func writeReport(stdout io.Writer, f cardfmt.Format, write func(io.Writer) error) error {
	out := stdout
	var term *safetext.Writer
	if f != cardfmt.JSON {
		term = safetext.NewWriter(stdout)
		out = term
	}
	w := bufio.NewWriter(out)
	if err := write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if term != nil {
		return term.Flush()
	}
	return nil
}

func cmdGen(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	var cfg tracegen.Config
	fs.Uint64Var(&cfg.Seed, "seed", 1, "random seed; the same seed gives the same trace")
	fs.IntVar(&cfg.Requests, "requests", 2000, "business requests to send (retries are extra attempts)")
	fs.Float64Var(&cfg.RatePerS, "rate", 20, "open-loop Poisson arrival rate, requests/s")
	fs.Float64Var(&cfg.TimeoutMS, "timeout-ms", 3000, "client timeout to the first token, ms")
	out := fs.String("o", "", "write the trace to FILE (default: stdout)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef("gen: unexpected argument %q", pos[0])
	}
	if cfg.Requests < 1 || cfg.RatePerS <= 0 || cfg.TimeoutMS <= 0 {
		return usagef("gen: --requests, --rate and --timeout-ms must be positive")
	}
	w, done, err := output(*out, stdout)
	if err != nil {
		return err
	}
	defer done()
	st, err := tracegen.Generate(w, cfg)
	if err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(stderr, "coursekit gen: wrote %s for %s to %s\n", lang.N(lang.EN, st.Attempts, "attempt", "attempts"), lang.N(lang.EN, st.Requests, "request", "requests"), *out)
	}
	return nil
}

// output is FILE when -o names one, else stdout; done closes the file.
func output(path string, stdout io.Writer) (io.Writer, func(), error) {
	if path == "" {
		return stdout, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}
