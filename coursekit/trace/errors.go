package trace

import (
	"errors"
	"fmt"
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
