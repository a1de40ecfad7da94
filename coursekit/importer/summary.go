package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmperf-course/course/coursekit/importer/aiperf"
	"github.com/llmperf-course/course/coursekit/importer/inferenceperf"
	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/importer/llmperf"
)

// SummaryFiles names, for each tool that writes its summary to a file of
// its own, that file. The other tools (vLLM, guidellm) keep their summary
// in the result file itself.
var SummaryFiles = map[string]string{
	"aiperf":         "profile_export_aiperf.json",
	"genai-perf":     "profile_export_genai_perf.json",
	"llmperf":        "*_summary.json",
	"inference-perf": "summary_lifecycle_metrics.json",
}

// ErrNoSummaryFile is returned (wrapped) for a summary file of a tool whose
// result file already carries its own numbers.
var ErrNoSummaryFile = errors.New("the tool writes no separate summary file: its result file carries its own numbers")

// HasSummary reports whether from writes a separate summary file.
func HasSummary(from string) bool {
	_, ok := SummaryFiles[from]
	return ok
}

// ReadSummary reads the separate summary file of tool from (see
// SummaryFiles) and returns its numbers as Stats with the metric names the
// importers use, times converted to ms by the file's unit fields (or by
// the key's unit for llmperf and inference-perf, which write seconds), the
// JSON key or path in Key, and Derived false. name locates errors; a
// malformed file is an error naming its position. Pass the result as
// Options.Summary to show these numbers beside the card.
func ReadSummary(from string, r io.Reader, name string) ([]Stat, error) {
	var read func(*toolfile.Obj) ([]Stat, error)
	switch from {
	case "aiperf", "genai-perf":
		read = aiperf.ReadSummary
	case "llmperf":
		read = llmperf.ReadSummary
	case "inference-perf":
		read = inferenceperf.ReadSummary
	default:
		if Known(from) {
			return nil, fmt.Errorf("--from %s: %w", from, ErrNoSummaryFile)
		}
		return nil, fmt.Errorf("--from %q: %w (want %s)", from, ErrUnknownTool, strings.Join(Tools, ", "))
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	src := toolfile.NewSource(name, raw)
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, src.ErrAt(0, "", "the file is empty")
	}
	vals, lines, err := src.Values()
	if err != nil {
		return nil, err
	}
	want := SummaryFiles[from]
	if len(vals) != 1 {
		return nil, src.ErrAt(lines[1], "", fmt.Sprintf("want one JSON object (%s), found more values after it", want))
	}
	// One (usually pretty-printed) object: the JSON path locates an error.
	root, err := src.Object(vals[0], 0, "")
	if err != nil {
		return nil, err
	}
	stats, err := read(root)
	if twin := src.CaseTwin(); twin != nil {
		return nil, twin // before err, which may only be its consequence
	}
	if err != nil {
		return nil, err
	}
	if len(stats) == 0 {
		return nil, src.ErrAt(0, "", fmt.Sprintf("no summary number found: is this %s's %s?", from, want))
	}
	return stats, nil
}
