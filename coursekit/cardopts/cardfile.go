package cardopts

import (
	"encoding/json"
	"io"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/trace"
)

// maxCardBytes is the most of a file jsonDoc reads: a card is a few
// kilobytes, a trace that failed to read may be gigabytes.
const maxCardBytes = 16 << 20

// NotACard returns err, or, when the file at path is a card's JSON
// (`coursekit card --format json` output) given where a trace belongs, an
// error that says so; the same for a comparison's JSON (`coursekit compare
// --format json` output): its indented first line "{" would otherwise read
// as broken JSON.
func NotACard(path string, err error) error {
	if err == nil {
		return err
	}
	switch jsonDoc(path) {
	case "card":
		return &trace.Error{File: path, Msg: "looks like a card (`coursekit card --format json` output), not a trace: give the trace the card was made from (JSON Lines: a header line, then one attempt per line, as bench writes them)"}
	case "compare":
		return &trace.Error{File: path, Msg: "looks like a comparison (`coursekit compare --format json` output), not a trace: give the traces it compared (JSON Lines: a header line, then one attempt per line, as bench writes them)"}
	}
	return err
}

// jsonDoc is what the file at path is when it is one JSON document of
// coursekit's: "card" (a card's counts), "compare" (a comparison's sides
// and metrics), "" otherwise. It reads regular files only (regfile), so
// the FIFO or device a read was refused for is not opened here after all.
func jsonDoc(path string) string {
	f, _, err := regfile.OpenNamed(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var doc map[string]json.RawMessage
	if json.NewDecoder(io.LimitReader(f, maxCardBytes)).Decode(&doc) != nil {
		return ""
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := doc[k]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("window_s", "attempts", "complete_successes", "percentile_method"):
		return "card"
	case has("a", "b", "conditions_changed", "metrics"):
		return "compare"
	}
	return ""
}
