package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/importer"
	"github.com/llmperf-course/course/coursekit/importer/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// cmdImport converts another tool's result file into trace v1 and prints,
// on stderr, the tool's own summary beside the card recomputed from the
// trace. The table exists because the two disagree for known reasons
// (failures dropped, linear percentiles, per-request ITL averages), and a
// learner should see each difference next to its reason.
func cmdImport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	from := fs.String("from", "", "tool that wrote FILE (required): "+strings.Join(importer.Tools, ", "))
	out := fs.String("o", "", "write the trace to FILE, only if the import succeeds (default: stdout)")
	run := fs.Int("run", 0, "which run to import when FILE holds several (vLLM --append-result lines, GenAI-Perf experiments, guidellm benchmarks), from 1 (0: the only run; an error if there are several)")
	summary := fs.String("summary", "", "the tool's own summary file, shown beside the card (default: numbers recomputed from FILE): "+summaryFiles())
	var slos cardopts.Flags
	slos.RegisterSLOs(fs, "TTFT SLO, repeatable; recorded in the trace header as conditions.slo (as bench does) and judged in the comparison (default 1s)")
	quiet := fs.Bool("q", false, "do not print the comparison table")
	langF := langFlag(fs)
	ds := fs.String("dataset", "", "judge the answers the tool saved (vllm --save-detailed keeps generated_texts) by prompt order: response i against line i of this JSONL dataset, or arith (= data/datasets/arith.jsonl) (default: none; quality stays unrated)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	l, err := resolveLang("import", *langF)
	if err != nil {
		return err
	}
	if *from == "" {
		return usagef("import: --from is required (%s)", strings.Join(importer.Tools, ", "))
	}
	if !importer.Known(*from) {
		return usagef("import: unknown --from %q (want %s)", *from, strings.Join(importer.Tools, ", "))
	}
	if len(pos) != 1 {
		return usagef("import: want exactly one result FILE, got %d (%s)", len(pos), strings.Join(pos, " "))
	}
	if *run < 0 {
		return usagef("import: --run %d: runs are numbered from 1", *run)
	}
	if *summary != "" && !importer.HasSummary(*from) {
		return usagef("import: --summary: %s writes no separate summary file (its result file carries its own numbers); --summary is for %s", *from, summaryFiles())
	}
	opt := importer.Options{Run: *run}
	if slos.SLOsGiven() {
		set := slos.SLOSet()
		opt.SLO = &trace.SLOs{TTFTMS: set.TTFTMS, E2EMS: set.E2EMS, ITLP95MS: set.ITLP95MS, TPOTMS: set.TPOTMS}
	}
	if *ds != "" {
		if opt.Dataset, err = dataset.Load(*ds, 1); err != nil {
			if trace.IsBadInput(err) || os.IsNotExist(err) {
				return err
			}
			return usagef("import: %v", err)
		}
	}
	if *summary != "" {
		// Read first: a malformed summary stops the import before anything is written.
		b, err := readInput(*summary, "an import --summary file", summaryLimit)
		if err != nil {
			return err
		}
		opt.Summary, err = importer.ReadSummary(*from, bytes.NewReader(b), *summary)
		if err != nil {
			return err
		}
		opt.SummaryName = *summary
	}
	path := pos[0]
	in, err := readInput(path, "an import FILE", importFileLimit)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	rep, err := importer.ImportWith(*from, bytes.NewReader(in), path, &buf, opt)
	if err != nil {
		return err
	}
	tr, err := trace.Read(bytes.NewReader(buf.Bytes()), path+" (imported)")
	if err != nil {
		return fmt.Errorf("import: the imported trace does not read back (a bug): %w", err)
	}
	if *out == "" {
		if _, err := stdout.Write(buf.Bytes()); err != nil {
			return err
		}
	} else if err := writeWhole(*out, buf.Bytes(), path, *summary, *ds); err != nil {
		return err
	}
	if *quiet {
		return nil
	}
	card, err := cardopts.Summarize(tr, slos)
	if err != nil {
		return err
	}
	dest := "stdout"
	if *out != "" {
		dest = *out
	}
	compare.Write(stderr, l, rep, tr, card, path, dest)
	return nil
}

// summaryFiles lists the tools with a separate summary file, and its name.
func summaryFiles() string {
	var l []string
	for _, t := range importer.Tools {
		if f, ok := importer.SummaryFiles[t]; ok {
			l = append(l, t+" "+f)
		}
	}
	return strings.Join(l, ", ")
}
