package cardopts

import (
	"encoding/json"
	"io"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/trace"
)

// maxCardBytes is the most of a file looksLikeCard reads: a card is a few
// kilobytes, a trace that failed to read may be gigabytes.
const maxCardBytes = 16 << 20

// NotACard returns err, or, when the file at path is a card's JSON
// (`coursekit card --format json` output) given where a trace belongs, an
// error that says so: its indented first line "{" would otherwise read as
// broken JSON.
func NotACard(path string, err error) error {
	if err == nil || !looksLikeCard(path) {
		return err
	}
	return &trace.Error{File: path, Msg: "looks like a card (`coursekit card --format json` output), not a trace: give the trace the card was made from (JSON Lines: a header line, then one attempt per line, as bench writes them)"}
}

// looksLikeCard reports whether the file at path is one JSON document
// with a card's counts. It reads regular files only (regfile), so the
// FIFO or device a read was refused for is not opened here after all.
func looksLikeCard(path string) bool {
	f, _, err := regfile.OpenNamed(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var doc map[string]json.RawMessage
	if json.NewDecoder(io.LimitReader(f, maxCardBytes)).Decode(&doc) != nil {
		return false
	}
	for _, k := range []string{"window_s", "attempts", "complete_successes", "percentile_method"} {
		if _, ok := doc[k]; !ok {
			return false
		}
	}
	return true
}
