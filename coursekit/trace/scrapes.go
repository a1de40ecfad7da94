package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// Scrape is one line of a trace's metrics sidecar (coursekit bench
// --metrics-url): the server's Prometheus gauges and counters at TMS on
// the trace's clock (when the GET was sent; the answer came DurMS later),
// or the error that scrape met.
type Scrape struct {
	TMS    float64            `json:"t_ms"`
	DurMS  float64            `json:"dur_ms"`
	Values map[string]float64 `json:"values,omitempty"` // "name{label=\"v\"}" → value
	Error  string             `json:"error,omitempty"`
}

// SidecarPath is where the header's conditions.metrics_sidecar is: a file
// name beside the trace (tracePath's directory). ok is false when the header
// names none. A name with a directory in it is refused, so that a trace
// cannot point a reader anywhere else on the disk.
func SidecarPath(tracePath string, h *Header) (path string, ok bool, err error) {
	c, err := h.ReadConditions()
	if err != nil {
		return "", true, locate(err, tracePath, 1, "")
	}
	if c.MetricsSidecar == nil {
		return "", false, nil
	}
	name := *c.MetricsSidecar
	if name == "" || name != filepath.Base(name) || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
		return "", true, &Error{File: tracePath, Line: 1, Field: "conditions.metrics_sidecar", Msg: fmt.Sprintf("%q is not a file name beside the trace", name)}
	}
	return filepath.Join(filepath.Dir(tracePath), name), true, nil
}

// ReadScrapes reads a metrics sidecar, one Scrape per line; a bad line is
// an *Error at FILE:LINE. Blank lines are skipped.
func ReadScrapes(r io.Reader, name string) ([]Scrape, error) {
	var out []Scrape
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for line := 1; sc.Scan(); line++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var s Scrape
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			return nil, &Error{File: name, Line: line, Msg: "not a scrape line {\"t_ms\":…,\"dur_ms\":…,\"values\":{…}} or {…,\"error\":…}: " + err.Error()}
		}
		if s.TMS < 0 || math.IsNaN(s.TMS) || math.IsInf(s.TMS, 0) {
			return nil, &Error{File: name, Line: line, Field: "t_ms", Msg: fmt.Sprintf("%g is not a time on the trace clock", s.TMS)}
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{File: name, Msg: err.Error()}
	}
	return out, nil
}

// ReadScrapesFile is ReadScrapes over a file. The trace header names it,
// so it is opened as grade opens a learner's file (regfile.Open): a
// symlink, a FIFO, a device or a folder is refused, unread and without
// blocking, with an error naming the file.
func ReadScrapesFile(path string) ([]Scrape, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &Error{File: path, Msg: "the metrics sidecar named by the trace header is missing"}
		}
		var nr *regfile.NotRegularError
		if errors.As(err, &nr) {
			return nil, &Error{File: path, Msg: "the metrics sidecar named by the trace header is " + regfile.Kind(nr.Mode) + ", not a regular file: not read"}
		}
		return nil, err
	}
	defer f.Close()
	return ReadScrapes(f, path)
}
