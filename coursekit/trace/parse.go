package trace

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/llmperf-course/course/coursekit/internal/jsontok"
)

// lineParser turns lines into Attempts; one per worker goroutine.
type lineParser struct {
	file  string
	s     scanner
	alias bool // strings from parseFast alias the line (ScanUnordered)
}

func newLineParser(file string) *lineParser {
	lp := &lineParser{file: file}
	lp.s.UTF8 = true // the trace format requires UTF-8 strings
	return lp
}

func (lp *lineParser) parseBlock(b *block) {
	b.atts = b.atts[:0]
	b.events = b.events[:0]
	data := b.data
	line := b.firstLine
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		var err error
		id := ""
		switch {
		case len(l) > MaxLineBytes:
			err = &Error{Msg: fmt.Sprintf("line is longer than %d bytes (1 MiB); a trace line holds one attempt", MaxLineBytes)}
		case len(bytes.TrimSpace(l)) == 0:
			err = &Error{Msg: "blank line: every line after the header must be one attempt"}
		case line == 1:
			b.header, err = parseHeader(l)
		default:
			b.atts = append(b.atts, Attempt{})
			a := &b.atts[len(b.atts)-1]
			a.Line = line
			if lp.parseFast(l, a, b) {
				break
			}
			*a = Attempt{Line: line}
			if err = lp.parseAttempt(l, a, b); err != nil {
				err = lp.notJSONFirst(l, err)
				id = a.ID
				b.atts = b.atts[:len(b.atts)-1]
			}
		}
		if err != nil {
			b.err = locate(err, lp.file, line, id)
			return
		}
		line++
	}
}

// notJSONFirst is err, the first thing parseAttempt found wrong with line
// l, unless l stops being valid JSON beyond where parseAttempt stopped:
// then it is where the JSON breaks. parseAttempt stops at the first
// problem, and a cut line (`{"bad": `) met its unknown key before its end
// ("bad: unknown field", walk 35l), which hid that the line is truncated
// or malformed. A problem at the value parseAttempt stopped at keeps its
// own, more precise message (start_ms: is NaN).
func (lp *lineParser) notJSONFirst(l []byte, err error) error {
	s := &lp.s
	stopped := s.I
	s.B, s.I = l, 0
	serr := s.Skip(MaxMetaDepth)
	if serr == nil && !s.AtEOF() {
		serr = s.Fail("want the end of the line after the object")
	}
	if e, ok := serr.(*jsontok.Error); ok && e.Kind == jsontok.Syntax && e.Off > stopped {
		return s.errAt(e.Off, e.What)
	}
	return err
}

// Field bits, to reject a key given twice.
const (
	fAttempt = 1 << iota
	fRequest
	fStart
	fOutcome
	fStatus
	fEvents
	fEnd
	fQuality
	fIn
	fOut
	fError
	fMeta
	fFinish
)

const attemptFields = "attempt, request, start_ms, outcome, http_status, events, end_ms, finish_ms, quality, input_tokens, output_tokens, error"

func (lp *lineParser) parseAttempt(l []byte, a *Attempt, b *block) error {
	s := &lp.s
	s.B, s.I = l, 0
	if s.peek() != '{' {
		if s.peek() == '[' || s.peek() == '"' || s.peek() == 'n' || s.peek() == 't' || s.peek() == 'f' || s.peek() == '-' || (s.peek() >= '0' && s.peek() <= '9') {
			if err := s.skip(); err == nil && s.AtEOF() {
				return &Error{Msg: "not a JSON object: each line after the header is one attempt object"}
			}
		}
		return s.syntaxError("want '{'")
	}
	s.I++
	var seen uint16
	hasEnd := false
	if s.peek() == '}' {
		s.I++
	} else {
		for {
			key, err := s.key()
			if err != nil {
				return err
			}
			bit, err := lp.field(key, a, b, &hasEnd)
			if err != nil {
				return err
			}
			if seen&bit != 0 {
				return fieldErr(string(key), "given twice")
			}
			seen |= bit
			switch s.peek() {
			case ',':
				s.I++
				continue
			case '}':
				s.I++
			default:
				return s.syntaxError("want ',' or '}'")
			}
			break
		}
	}
	if !s.AtEOF() { // a NUL byte is not the end
		return s.syntaxError("want the end of the line after the object")
	}
	for _, req := range [...]struct {
		bit  uint16
		name string
	}{{fAttempt, "attempt"}, {fStart, "start_ms"}, {fOutcome, "outcome"}} {
		if seen&req.bit == 0 {
			return fieldErr(req.name, "missing required field")
		}
	}
	if a.Request == "" {
		a.Request = a.ID
	}
	a.HasEnd = hasEnd
	if err := a.Validate(); err != nil {
		return err
	}
	a.idKey = KeyOf(a.ID)
	if a.Request == a.ID {
		a.reqKey = a.idKey
	} else {
		a.reqKey = KeyOf(a.Request)
	}
	return nil
}

// field reads the value of one key into a.
func (lp *lineParser) field(key []byte, a *Attempt, b *block, hasEnd *bool) (uint16, error) {
	s := &lp.s
	var msg string
	var err error
	switch string(key) {
	case "attempt":
		var v []byte
		if v, err = s.str(); err == nil {
			if len(v) == 0 {
				return fAttempt, fieldErr("attempt", "is empty")
			}
			a.ID = string(v)
		}
		return fAttempt, typed(err, "attempt", "want a string")
	case "request":
		a.Request, err = lp.optString()
		return fRequest, typed(err, "request", "want a string")
	case "start_ms":
		a.StartMS, msg, err = s.number()
		return fStart, numErr(err, msg, "start_ms")
	case "outcome":
		var v []byte
		if v, err = s.str(); err != nil {
			return fOutcome, typed(err, "outcome", "want a string")
		}
		var ok bool
		if a.Outcome, ok = ParseOutcome(string(v)); !ok {
			return fOutcome, fieldErr("outcome", fmt.Sprintf("unknown outcome %q (want one of %s)", v, outcomeChoices))
		}
		return fOutcome, nil
	case "http_status":
		a.HTTPStatus, err = lp.optInt("http_status")
		return fStatus, err
	case "events":
		return fEvents, lp.events(a, b)
	case "end_ms":
		if !s.null() {
			a.EndMS, msg, err = s.number()
			*hasEnd = true
		}
		return fEnd, numErr(err, msg, "end_ms")
	case "finish_ms":
		a.FinishMS, msg, err = s.number()
		a.HasFinish = err == nil && msg == ""
		return fFinish, numErr(err, msg, "finish_ms")
	case "quality":
		if s.null() {
			a.Quality = Unrated
			return fQuality, nil
		}
		v, err := s.str()
		if err != nil {
			return fQuality, typed(err, "quality", "want \"pass\", \"fail\" or null")
		}
		switch string(v) {
		case "pass":
			a.Quality = Pass
		case "fail":
			a.Quality = Fail
		default:
			return fQuality, fieldErr("quality", fmt.Sprintf("%q is not a rating (want \"pass\", \"fail\" or null for not rated)", v))
		}
		return fQuality, nil
	case "input_tokens":
		a.InputTokens, err = lp.optInt("input_tokens")
		return fIn, err
	case "output_tokens":
		a.OutputTokens, err = lp.optInt("output_tokens")
		return fOut, err
	case "error":
		a.Error, err = lp.optString()
		return fError, typed(err, "error", "want a string")
	case "meta":
		start := s.I
		if err := s.skip(); err != nil {
			return fMeta, err
		}
		a.Meta = bytes.TrimSpace(append([]byte(nil), s.B[start:s.I]...))
		return fMeta, nil
	case "trace":
		return 0, &Error{Msg: "a second header line: the header comes once, on line 1"}
	}
	return 0, fieldErr(string(key), "unknown field (format v1 attempt fields: "+attemptFields+"; put tool data under \"meta\")")
}

// typed turns "want a string" syntax errors on a known field into a
// field error, keeping real syntax errors (bad escapes) as they are.
func typed(err error, field, want string) error {
	if err == nil {
		return nil
	}
	if te, ok := err.(*Error); ok && bytes.Contains([]byte(te.Msg), []byte("(want a string)")) {
		return fieldErr(field, want)
	}
	return err
}

func numErr(err error, msg, field string) error {
	if err != nil {
		if te, ok := err.(*Error); ok && bytes.Contains([]byte(te.Msg), []byte("(want a number)")) {
			return fieldErr(field, "want a number")
		}
		return err
	}
	if msg != "" {
		return fieldErr(field, msg)
	}
	return nil
}

func (lp *lineParser) optString() (string, error) {
	if lp.s.null() {
		return "", nil
	}
	v, err := lp.s.str()
	return string(v), err
}

func (lp *lineParser) optInt(field string) (int, error) {
	if lp.s.null() {
		return 0, nil
	}
	return lp.wholeNumber(func() string { return field })
}

// wholeNumber reads a non-negative integer; name builds the field name only
// on error.
func (lp *lineParser) wholeNumber(name func() string) (int, error) {
	f, msg, err := lp.s.number()
	if err != nil || msg != "" {
		return 0, numErr(err, msg, name())
	}
	if f != float64(int64(f)) || f > MaxCount {
		return 0, fieldErr(name(), "want a whole number, got "+strconv.FormatFloat(f, 'g', -1, 64))
	}
	return int(f), nil
}

func (lp *lineParser) events(a *Attempt, b *block) error {
	s := &lp.s
	if s.null() {
		return nil
	}
	if s.peek() != '[' {
		return fieldErr("events", "want an array of {\"t_ms\":..., \"tokens\":...}")
	}
	s.I++
	start := len(b.events)
	if s.peek() == ']' {
		s.I++
		a.Events = b.events[start:start:start]
		return nil
	}
	for i := 0; ; i++ {
		// Names are built only on error: this loop runs for every event.
		name := func(f string) string { return "events[" + strconv.Itoa(i) + "]" + f }
		if s.peek() != '{' {
			if s.peek() == 0 {
				return s.syntaxError("unterminated events array")
			}
			return fieldErr(name(""), "want an object {\"t_ms\":..., \"tokens\":...}")
		}
		s.I++
		e := Event{Tokens: 1}
		hasT, hasTok := false, false
		if s.peek() != '}' {
			for {
				key, err := s.key()
				if err != nil {
					return err
				}
				switch string(key) {
				case "t_ms":
					if hasT {
						return fieldErr(name(".t_ms"), "given twice")
					}
					hasT = true
					var msg string
					if e.TMS, msg, err = s.number(); err != nil || msg != "" {
						return numErr(err, msg, name(".t_ms"))
					}
				case "tokens":
					if hasTok {
						return fieldErr(name(".tokens"), "given twice")
					}
					hasTok = true
					if !s.null() {
						if e.Tokens, err = lp.wholeNumber(func() string { return name(".tokens") }); err != nil {
							return err
						}
					}
				default:
					return fieldErr(name("."+string(key)), "unknown field (an event has t_ms and tokens)")
				}
				if s.peek() == ',' {
					s.I++
					continue
				}
				break
			}
		}
		if err := s.expect('}', "want ',' or '}' in an event"); err != nil {
			return err
		}
		if !hasT {
			return fieldErr(name(".t_ms"), "missing required field")
		}
		b.events = append(b.events, e)
		switch s.peek() {
		case ',':
			s.I++
		case ']':
			s.I++
			a.Events = b.events[start:len(b.events):len(b.events)]
			return nil
		default:
			return s.syntaxError("want ',' or ']' in events")
		}
	}
}
