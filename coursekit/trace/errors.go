package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error is bad input, located at FILE:LINE. Tools map it to exit code 2.
type Error struct {
	File    string
	Line    int    // 1-based; 0 when the error is about the file as a whole
	Attempt string // the attempt id, when known
	Field   string // e.g. "events[2].t_ms"
	Msg     string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Attempt != "" {
		fmt.Fprintf(&b, "attempt %q: ", e.Attempt)
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LineNotJSON is the message for a JSON Lines line that encoding/json
// could not read as one value, as the trace reader words its own: "not
// valid JSON (truncated: …)" for a line that ends inside its value, "not
// valid JSON (malformed): …" for one that breaks before its end. ok is
// false for any other error (a field of the wrong type, an unknown field),
// which the caller words. The datasets and the metrics sidecars read their
// lines so (walk 35l).
func LineNotJSON(err error) (msg string, ok bool) {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "not valid JSON (truncated: the line ends inside a value)", true
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON (malformed): column %d: %s", se.Offset, strings.TrimPrefix(se.Error(), "json: ")), true
	}
	return "", false
}

// IsBadInput reports whether err is (or wraps) a trace *Error.
func IsBadInput(err error) bool {
	var te *Error
	return errors.As(err, &te)
}

func fieldErr(field, msg string) error { return &Error{Field: field, Msg: msg} }

// locate fills in the position of an error raised without one.
func locate(err error, file string, line int, attempt string) error {
	var te *Error
	if errors.As(err, &te) {
		c := *te
		c.File, c.Line = file, line
		if c.Attempt == "" {
			c.Attempt = attempt
		}
		return &c
	}
	return &Error{File: file, Line: line, Attempt: attempt, Msg: err.Error()}
}
