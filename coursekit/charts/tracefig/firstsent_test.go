package tracefig_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmperf-course/course/coursekit/charts/tracefig"
	"github.com/llmperf-course/course/coursekit/trace"
)

// TestFirstSuccessIsSentFirst: a trace lists attempts as they end, so the
// success first in the file need not be the one sent first (walk 35g F6:
// q1 ended first, q0 was sent first). FirstSuccess and
// FirstMultiTokenSuccess pick by start_ms, ties by ID, from memory and from
// a file (whose chunks the digest merges).
func TestFirstSuccessIsSentFirst(t *testing.T) {
	okAt := func(id string, start, end float64, tokens int) trace.Attempt {
		return trace.Attempt{ID: id, Request: id, StartMS: start, Outcome: trace.OK,
			Events: []trace.Event{{TMS: start + 10, Tokens: tokens}, {TMS: end, Tokens: tokens}}, EndMS: end, HasEnd: true}
	}
	h := trace.Header{Trace: trace.Version, Clock: "client", Window: trace.Window{StartMS: 100, EndMS: 1100}}
	var as []trace.Attempt
	// Many fillers sent later, so the file splits into several chunks.
	for i := range 2000 {
		as = append(as, okAt("z"+strconv.Itoa(i), 500+float64(i)/10, 1000, 2))
	}
	as = append(as,
		okAt("q1", 100.15, 120, 1),  // ends first, sent second
		okAt("q2", 100.05, 160, 3),  // multi-token, sent before q1
		okAt("q0", 100.035, 180, 1), // sent first, ends last of these
		okAt("m-b", 100.05, 190, 3), // same send time as q2, ID after it
		okAt("m-a", 100.05, 195, 3), // same send time as q2, ID before it
		okAt("early", 50, 110, 1),   // sent before the window: not in it
	)
	tr := &trace.Trace{Header: h, Attempts: as}

	dir := t.TempDir()
	path := filepath.Join(dir, "t.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.NewWriter(f, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range as {
		if err := w.Write(&as[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	fromFile, err := tracefig.DigestFile(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*tracefig.Digest{"memory": tracefig.DigestOf(tr), "file": fromFile} {
		if a := d.FirstSuccess(); a == nil || a.ID != "q0" {
			t.Errorf("%s: FirstSuccess = %v, want q0 (sent at 100.035 ms)", name, a)
		}
		if a := d.FirstMultiTokenSuccess(); a == nil || a.ID != "m-a" {
			t.Errorf("%s: FirstMultiTokenSuccess = %v, want m-a (sent at 100.05 ms, first ID of the tie)", name, a)
		}
	}
}
