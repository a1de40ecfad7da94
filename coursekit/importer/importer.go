// Package importer turns other benchmark tools' result files into trace
// format v1, so that the course's card can recompute them with failures kept
// in the denominators, nearest-rank percentiles and per-event ITL.
//
// Each tool summarises differently (see the course notes on vLLM, AIPerf,
// GenAI-Perf, guidellm, llmperf and inference-perf): failures dropped from percentiles,
// interpolated percentiles, ITL averaged per request, 0.0 written for a TTFT
// that never came. An importer therefore does three things:
//
//   - it derives one attempt per per-request row of the file (never from a
//     requested count such as vLLM's num_prompts), failures included, and
//     turns a failure's placeholder TTFT into a missing one (no events);
//   - it writes what the file cannot tell into the header's conditions
//     (relative clocks, no quality labels, sampled rows, the tool's ITL
//     semantics), because a trace that looks complete but is not would
//     mislead every card computed from it;
//   - it returns the tool's own summary numbers in a Report, so that they
//     can be printed beside the recomputed card. Where the tool writes its
//     summary to a separate file (AIPerf, GenAI-Perf, llmperf,
//     inference-perf), ReadSummary reads it and Options.Summary carries its
//     numbers into the Report; without it they are recomputed the tool's way
//     from its own rows and marked Derived.
//
// Every malformed input is an error naming its position (file:line:col or a
// JSON path such as ttfts[17]) and nothing is written: the whole file is
// validated and the trace is built in memory before a byte reaches w.
//
// Each tool's reader is a package of its own (importer/vllm, importer/aiperf,
// importer/genaiperf, importer/guidellm, importer/llmperf,
// importer/inferenceperf) with an Import function and, for a tool with a
// separate summary file, a ReadSummary; what they share is in
// importer/internal/toolfile. This package names the tools and dispatches
// on --from.
package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmperf-course/course/coursekit/importer/aiperf"
	"github.com/llmperf-course/course/coursekit/importer/genaiperf"
	"github.com/llmperf-course/course/coursekit/importer/guidellm"
	"github.com/llmperf-course/course/coursekit/importer/inferenceperf"
	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/importer/llmperf"
	"github.com/llmperf-course/course/coursekit/importer/vllm"
)

// Tools lists the --from values, in the order the CLI prints them.
var Tools = []string{"vllm", "aiperf", "genai-perf", "guidellm", "llmperf", "inference-perf"}

// ErrUnknownTool is returned (wrapped) for a --from value not in Tools.
var ErrUnknownTool = errors.New("unknown tool")

// Known reports whether from names a supported tool.
func Known(from string) bool {
	for _, t := range Tools {
		if t == from {
			return true
		}
	}
	return false
}

// Options tune an import, Report is what it found besides the attempts,
// and Stat is one number of the tool's own summary; see toolfile.
type (
	Options = toolfile.Options
	Report  = toolfile.Report
	Stat    = toolfile.Stat
	// Note is one of Report.Notes, in both languages (Note.In).
	Note = toolfile.Note
)

// AIPerfMalformedNote is the note an AIPerf Report carries when its file
// has ok attempts (see aiperf.MalformedNote).
var AIPerfMalformedNote = aiperf.MalformedNote

// The metric names some tools' Reports carry (see their packages).
const (
	MetricInterChunk        = aiperf.MetricInterChunk
	GuidellmTotalFirstToken = guidellm.TotalFirstToken
	GuidellmTotalZero       = guidellm.TotalZero
	GuidellmTotal           = guidellm.Total
)

// Import reads a result file of tool from and writes trace v1 to w. name
// locates errors. Nothing is written unless the whole file imports.
func Import(from string, r io.Reader, name string, w io.Writer) (*Report, error) {
	return ImportWith(from, r, name, w, Options{})
}

// ImportWith is Import with options.
func ImportWith(from string, r io.Reader, name string, w io.Writer, opt Options) (*Report, error) {
	var f func(*toolfile.Source, Options) (*toolfile.Result, error)
	switch from {
	case "vllm":
		f = vllm.Import
	case "aiperf":
		f = aiperf.Import
	case "genai-perf":
		f = genaiperf.Import
	case "guidellm":
		f = guidellm.Import
	case "llmperf":
		f = llmperf.Import
	case "inference-perf":
		f = inferenceperf.Import
	default:
		return nil, fmt.Errorf("--from %q: %w (want %s)", from, ErrUnknownTool, strings.Join(Tools, ", "))
	}
	if opt.Run < 0 {
		return nil, fmt.Errorf("run %d: runs are numbered from 1", opt.Run)
	}
	if opt.Summary != nil && !HasSummary(from) {
		return nil, fmt.Errorf("--from %s: %w", from, ErrNoSummaryFile)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	src := toolfile.NewSource(name, raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, src.ErrAt(0, "", "the file is empty")
	}
	res, err := f(src, opt)
	if twin := src.CaseTwin(); twin != nil {
		return nil, twin // before err, which may only be its consequence ("ttfts: missing")
	}
	if err != nil {
		if wrong := wrongFile(from, name, raw); wrong != nil {
			return nil, wrong
		}
		return nil, err
	}
	if opt.Dataset != nil {
		if err := judgeTexts(from, src, res, opt.Dataset); err != nil {
			return nil, err
		}
	}
	res.Report.Tool = from
	res.Conds.SLO = opt.SLO
	if opt.Summary == nil && res.DerivedNote != nil {
		res.Report.Notes = append([]Note{res.DerivedNote(src.Name)}, res.Report.Notes...)
	}
	if err := res.Write(src, w); err != nil {
		return nil, err
	}
	if opt.Summary != nil {
		res.UseSummary(opt.Summary, opt.SummaryName)
	}
	return &res.Report, nil
}
