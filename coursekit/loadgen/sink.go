package loadgen

import (
	"fmt"
	"io"
	"os"

	"github.com/llmperf-course/course/coursekit/trace"
)

// headerRoom is the room reserved after the header written at the start:
// the final header (the real window end, how the run ended, what the
// schedule sent) is at most about 200 bytes longer.
const headerRoom = 512

// sink is where the trace goes. The header must come first, but only the
// end of the run knows its window (an interrupt ends it early) and how the
// run ended. A regular file therefore gets a padded header at once, the
// attempts as they end, and the final header written over the first one:
// a crash leaves a valid trace whose header says the run did not finish.
// Anything else (a pipe, a terminal, a buffer) cannot be rewritten: its
// attempts are spooled to a temporary file and copied after the final
// header when the run ends.
type sink struct {
	file  *os.File // in place: the trace file
	off   int64    // in place: where the header starts
	width int      // in place: the header line's width, newline excluded
	spool *os.File // otherwise: the attempts so far
	dst   io.Writer
}

// newSink writes the provisional header h (run_end "not_finished") and
// returns where the attempt lines go.
func newSink(w io.Writer, h trace.Header) (*sink, io.Writer, error) {
	// Checked before anything is sent, whatever the output: a header the
	// reader would refuse (over its line cap) is an error now, not at the
	// end of the run.
	line, err := trace.HeaderLine(h, 0)
	if err != nil {
		return nil, nil, err
	}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			if off, err := f.Seek(0, io.SeekCurrent); err == nil {
				line, err := trace.HeaderLine(h, len(line)-1+headerRoom)
				if err != nil {
					return nil, nil, err
				}
				// WriteAt fails on a file opened for appending (>>): spool then.
				if _, err := f.WriteAt(line, off); err == nil {
					if _, err := f.Seek(off+int64(len(line)), io.SeekStart); err != nil {
						return nil, nil, err
					}
					return &sink{file: f, off: off, width: len(line) - 1}, f, nil
				}
			}
		}
	}
	sp, err := os.CreateTemp("", "coursekit-bench-*.jsonl")
	if err != nil {
		return nil, nil, fmt.Errorf("a spool file for the trace (the output is not a regular file): %w", err)
	}
	os.Remove(sp.Name()) // unlinked at once: nothing is left behind, whatever happens
	return &sink{spool: sp, dst: w}, sp, nil
}

// finish puts the final header first. The attempt writer must be flushed.
func (s *sink) finish(h trace.Header) error {
	if s.file != nil {
		line, err := trace.HeaderLine(h, s.width)
		if err != nil {
			return err
		}
		_, err = s.file.WriteAt(line, s.off)
		return err
	}
	line, err := trace.HeaderLine(h, 0)
	if err != nil {
		return err
	}
	if _, err := s.dst.Write(line); err != nil {
		return err
	}
	if _, err := s.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = io.Copy(s.dst, s.spool)
	return err
}

// close releases the spool, if any.
func (s *sink) close() {
	if s.spool != nil {
		s.spool.Close()
	}
}
