package trace

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// CSVHeader names the columns of the one-row-per-attempt table that
// `coursekit csv` writes and gota loads. A missing value (no TTFT, no end,
// not rated) is an empty cell, never 0.
var CSVHeader = []string{"line", "attempt", "request", "in_window", "start_ms", "outcome", "complete", "http_status",
	"events", "streamed_tokens", "ttft_ms", "e2e_ms", "end_ms", "finish_ms", "quality", "input_tokens", "output_tokens", "error"}

// CSVRecord is one attempt as CSV cells, in CSVHeader order.
func CSVRecord(h *Header, a *Attempt) []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	// A difference of two times (TTFT, E2E) carries float noise
	// (336.511 − 100.5 = 236.01100000000002): rounded to the nanosecond,
	// finer than any trace clock, it prints as the times were written.
	diff := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return f(math.Round(v*1e6) / 1e6)
	}
	opt := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return f(v)
	}
	optInt := func(v int) string {
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	ttft, okT := a.TTFT()
	e2e, okE := a.E2E()
	q := ""
	if a.Quality != Unrated {
		q = a.Quality.String()
	}
	return []string{
		strconv.Itoa(a.Line), a.ID, a.Request, strconv.FormatBool(h.Window.Contains(a.StartMS)), f(a.StartMS),
		a.Outcome.String(), strconv.FormatBool(a.Outcome == OK), optInt(a.HTTPStatus),
		strconv.Itoa(len(a.Events)), strconv.Itoa(a.StreamedTokens()), diff(ttft, okT), diff(e2e, okE),
		opt(a.EndMS, a.HasEnd), opt(a.FinishMS, a.HasFinish), q, optInt(a.InputTokens), optInt(a.OutputTokens), a.Error,
	}
}

// WriteCSV writes every attempt of a trace as CSV, in file order, for a
// spreadsheet: a cell that would start a formula (=, +, @, a tab, a
// carriage return, or - before anything but a number) is prefixed with '
// (safetext.CSVCell), and control codes, newlines included, are written escaped
// (safetext.Line): `coursekit csv` prints to a terminal by default, and a trace's
// ids and errors hold no control code of their own. CSVRecord itself stays raw,
// for data frames.
func WriteCSV(r io.Reader, name string, w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	var h Header
	err := Scan(r, name, func(hd *Header) error { h = *hd; return nil }, func(a *Attempt) error {
		rec := CSVRecord(&h, a)
		for i, c := range rec {
			rec[i] = safetext.CSVCell(safetext.Line(c))
		}
		return cw.Write(rec)
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSVFile is WriteCSV over a file.
func WriteCSVFile(path string, w io.Writer) error {
	f, err := OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return WriteCSV(f, path, w)
}
