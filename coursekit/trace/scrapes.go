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
	"slices"
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
	// Capped is how many series the scrape left out of Values: coursekit bench keeps at most
	// loadgen.MaxScrapeSeries of them (the request gauges first), leaves out a series whose
	// key is longer than loadgen.MaxSeriesKeyBytes, and counts them here.
	Capped int    `json:"capped,omitempty"`
	Error  string `json:"error,omitempty"`
}

// RequestGauges are the servers' request gauges coursekit reads from a sidecar (the
// report's server-gauge figure): llama.cpp's, vLLM's and coursekit sim's, each server's
// requests it is working on and requests it holds waiting. bench keeps them first when it
// caps a scrape's series; report keeps only them.
var RequestGauges = []RequestGaugeFamily{
	{"llama.cpp", "llamacpp:requests_processing", "llamacpp:requests_deferred"},
	{"vLLM", "vllm:num_requests_running", "vllm:num_requests_waiting"},
	{"coursekit sim", "sim_batch_size", "sim_queue_depth"},
}

// RequestGaugeFamily is one server's pair of request gauges. Their sum is what the client
// sees in flight, once the network is crossed.
type RequestGaugeFamily struct {
	Server, Running, Waiting string
}

// RequestGaugeNames are the names of every RequestGauges gauge, running before waiting.
var RequestGaugeNames = func() []string {
	var names []string
	for _, f := range RequestGauges {
		names = append(names, f.Running, f.Waiting)
	}
	return names
}()

// IsRequestGauge reports whether the series key ("name" or "name{labels}") is one of
// RequestGaugeNames.
func IsRequestGauge(key string) bool {
	name, _, _ := strings.Cut(key, "{")
	return slices.Contains(RequestGaugeNames, name)
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
	err := ScanScrapes(r, name, func(s Scrape) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanScrapes is ReadScrapes one scrape at a time, holding one line: each is called with
// every scrape in file order, and its error stops the scan.
func ScanScrapes(r io.Reader, name string, each func(Scrape) error) error {
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
			if msg, ok := LineNotJSON(err); ok {
				return &Error{File: name, Line: line, Msg: msg}
			}
			return &Error{File: name, Line: line, Msg: "not a scrape line {\"t_ms\":…,\"dur_ms\":…,\"values\":{…}} or {…,\"error\":…}: " + err.Error()}
		}
		if s.TMS < 0 || math.IsNaN(s.TMS) || math.IsInf(s.TMS, 0) {
			return &Error{File: name, Line: line, Field: "t_ms", Msg: fmt.Sprintf("%g is not a time on the trace clock", s.TMS)}
		}
		if err := each(s); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return &Error{File: name, Msg: err.Error()}
	}
	return nil
}

// ReadScrapesFile is ReadScrapes over a file. The trace header names it,
// so it is opened as grade opens a learner's file (regfile.Open): a
// symlink, a FIFO, a device or a folder is refused, unread and without
// blocking, with an error naming the file.
func ReadScrapesFile(path string) ([]Scrape, error) {
	var out []Scrape
	err := ScanScrapesFile(path, func(s Scrape) error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ScanScrapesFile is ScanScrapes over a file, opened as ReadScrapesFile opens it.
func ScanScrapesFile(path string, each func(Scrape) error) error {
	f, _, err := regfile.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &Error{File: path, Msg: "the metrics sidecar named by the trace header is missing"}
		}
		var nr *regfile.NotRegularError
		if errors.As(err, &nr) {
			return &Error{File: path, Msg: "the metrics sidecar named by the trace header is " + regfile.Kind(nr.Mode) + ", not a regular file: not read"}
		}
		return err
	}
	defer f.Close()
	return ScanScrapes(f, path, each)
}

// SidecarMsg is what a reader of traces says of a metrics sidecar given to
// it as a trace (its first line a Scrape, not a header).
const SidecarMsg = "a metrics sidecar (scrapes of the server's /metrics, which bench --metrics-url and capacity write beside a trace as TRACE.metrics.jsonl), not a trace"

// isScrapeLine reports whether a line's top-level keys are a Scrape's: a
// t_ms and a dur_ms, and no trace header's "trace".
func isScrapeLine(probe map[string]json.RawMessage) bool {
	_, t := probe["t_ms"]
	_, d := probe["dur_ms"]
	_, h := probe["trace"]
	return t && d && !h
}

// maxSniffLine bounds the first line IsSidecarFile reads: a scrape of a
// server with many series is long, a header is short.
const maxSniffLine = 4 << 20

// IsSidecarFile reports whether path, a file named on the command line, is
// a metrics sidecar rather than a trace: a regular file whose first line
// is a scrape (what the trace readers refuse with SidecarMsg). A file that
// cannot be read, or is not a regular file, is not one (its reader will
// say what is wrong with it); nothing blocks on a FIFO.
func IsSidecarFile(path string) bool {
	f, _, err := regfile.OpenNamed(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, maxSniffLine)).ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	var probe map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(line), &probe) != nil {
		return false
	}
	return isScrapeLine(probe)
}
