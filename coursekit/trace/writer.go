package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// Writer writes format v1. It validates every attempt it is given, so a
// tool cannot write a trace that the reader would reject.
type Writer struct {
	w    *bufio.Writer
	buf  []byte
	seen map[string]struct{}
}

// NewWriter starts a trace on w by writing its header.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	line, err := HeaderLine(h, 0)
	if err != nil {
		return nil, err
	}
	tw := NewAttemptWriter(w)
	tw.w.Write(line)
	return tw, nil
}

// Write appends one attempt line.
func (tw *Writer) Write(a *Attempt) error {
	if err := a.Validate(); err != nil {
		return locate(err, "attempt", 0, a.ID)
	}
	if len(a.Meta) > 0 {
		if err := CheckMeta(a.Meta); err != nil {
			return locate(err, "attempt", 0, a.ID)
		}
	}
	if _, dup := tw.seen[a.ID]; dup {
		return &Error{File: "attempt", Attempt: a.ID, Field: "attempt", Msg: "duplicate attempt id"}
	}
	tw.seen[a.ID] = struct{}{}
	tw.buf = AppendAttempt(tw.buf[:0], a)
	if len(tw.buf) > MaxLineBytes {
		return &Error{File: "attempt", Attempt: a.ID, Msg: fmt.Sprintf("line would be %d bytes, longer than the reader's %d (1 MiB)", len(tw.buf), MaxLineBytes)}
	}
	tw.buf = append(tw.buf, '\n')
	_, err := tw.w.Write(tw.buf)
	return err
}

// Flush writes buffered lines through, so that a crash loses nothing written.
func (tw *Writer) Flush() error { return tw.w.Flush() }

// AppendAttempt appends the compact JSON of a to dst, with keys in the
// documented order and optional fields left out when not recorded. C1
// controls and bidi overrides in its strings and meta are written as \u
// escapes (safetext.JSON): a trace on a terminal cannot act on them.
func AppendAttempt(dst []byte, a *Attempt) []byte {
	dst = append(dst, `{"attempt":`...)
	dst = appendString(dst, a.ID)
	if a.Request != "" && a.Request != a.ID {
		dst = append(dst, `,"request":`...)
		dst = appendString(dst, a.Request)
	}
	dst = append(dst, `,"start_ms":`...)
	dst = appendMS(dst, a.StartMS)
	dst = append(dst, `,"outcome":"`...)
	dst = append(dst, a.Outcome.String()...)
	dst = append(dst, '"')
	if a.HTTPStatus != 0 {
		dst = append(dst, `,"http_status":`...)
		dst = strconv.AppendInt(dst, int64(a.HTTPStatus), 10)
	}
	dst = append(dst, `,"events":[`...)
	for i, e := range a.Events {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"t_ms":`...)
		dst = appendMS(dst, e.TMS)
		if e.Tokens != 1 {
			dst = append(dst, `,"tokens":`...)
			dst = strconv.AppendInt(dst, int64(e.Tokens), 10)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"end_ms":`...)
	if a.HasEnd {
		dst = appendMS(dst, a.EndMS)
	} else {
		dst = append(dst, "null"...)
	}
	if a.HasFinish {
		dst = append(dst, `,"finish_ms":`...)
		dst = appendMS(dst, a.FinishMS)
	}
	switch a.Quality {
	case Pass:
		dst = append(dst, `,"quality":"pass"`...)
	case Fail:
		dst = append(dst, `,"quality":"fail"`...)
	default:
		dst = append(dst, `,"quality":null`...)
	}
	if a.InputTokens > 0 {
		dst = append(dst, `,"input_tokens":`...)
		dst = strconv.AppendInt(dst, int64(a.InputTokens), 10)
	}
	if a.OutputTokens > 0 {
		dst = append(dst, `,"output_tokens":`...)
		dst = strconv.AppendInt(dst, int64(a.OutputTokens), 10)
	}
	if a.Error != "" {
		dst = append(dst, `,"error":`...)
		dst = appendString(dst, a.Error)
	}
	if len(a.Meta) > 0 {
		dst = append(dst, `,"meta":`...)
		dst = append(dst, safetext.JSON(a.Meta)...)
	}
	return append(dst, '}')
}

// appendMS writes the shortest decimal that reads back as the same float.
func appendMS(dst []byte, v float64) []byte {
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

func appendString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s) // escapes <, > and & too, which keeps HTML-embedded traces safe
	return append(dst, safetext.JSON(b)...)
}
