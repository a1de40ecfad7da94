package trace

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/valyala/fastjson"
)

// lineParser turns attempt lines into Attempts without reflection; one per
// worker goroutine, since fastjson parsers reuse their memory.
type lineParser struct {
	file  string
	p     fastjson.Parser
	ep    fastjson.Parser
	visit func(key []byte, v *fastjson.Value)
	// per-line state used by visit
	a      *Attempt
	b      *block
	seen   uint16
	err    error
	hasEnd bool
}

func newLineParser(file string) *lineParser {
	lp := &lineParser{file: file}
	lp.visit = lp.visitField
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
			if err = lp.parseAttempt(l, a, b); err != nil {
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
)

func (lp *lineParser) parseAttempt(l []byte, a *Attempt, b *block) error {
	lp.a = a
	v, err := lp.p.ParseBytes(l)
	if err != nil {
		return &Error{Msg: "not valid JSON: " + shorten(err.Error())}
	}
	o, err := v.Object()
	if err != nil {
		return &Error{Msg: "not a JSON object: each line after the header is one attempt object"}
	}
	lp.b, lp.seen, lp.err, lp.hasEnd = b, 0, nil, false
	o.Visit(lp.visit)
	if lp.err != nil {
		return lp.err
	}
	for _, req := range [...]struct {
		bit  uint16
		name string
	}{{fAttempt, "attempt"}, {fStart, "start_ms"}, {fOutcome, "outcome"}} {
		if lp.seen&req.bit == 0 {
			return fieldErr(req.name, "missing required field")
		}
	}
	if a.Request == "" {
		a.Request = a.ID
	}
	a.HasEnd = lp.hasEnd
	return a.Validate()
}

func (lp *lineParser) visitField(key []byte, v *fastjson.Value) {
	if lp.err != nil {
		return
	}
	a := lp.a
	var bit uint16
	var err error
	switch string(key) {
	case "attempt":
		bit = fAttempt
		a.ID, err = str(v, "attempt", false)
		if err == nil && a.ID == "" {
			err = fieldErr("attempt", "is empty")
		}
	case "request":
		bit = fRequest
		a.Request, err = str(v, "request", true)
	case "start_ms":
		bit = fStart
		a.StartMS, err = num(v, "start_ms")
	case "outcome":
		bit = fOutcome
		var s string
		if s, err = str(v, "outcome", false); err == nil {
			var ok bool
			if a.Outcome, ok = ParseOutcome(s); !ok {
				err = fieldErr("outcome", fmt.Sprintf("unknown outcome %q (want one of ok, timeout, connect_error, http_error, stream_error, cancelled, in_flight)", s))
			}
		}
	case "http_status":
		bit = fStatus
		a.HTTPStatus, err = optInt(v, "http_status")
	case "events":
		bit = fEvents
		err = lp.events(v)
	case "end_ms":
		bit = fEnd
		if v.Type() != fastjson.TypeNull {
			a.EndMS, err = num(v, "end_ms")
			lp.hasEnd = true
		}
	case "quality":
		bit = fQuality
		switch v.Type() {
		case fastjson.TypeNull:
			a.Quality = Unrated
		case fastjson.TypeString:
			switch string(v.GetStringBytes()) {
			case "pass":
				a.Quality = Pass
			case "fail":
				a.Quality = Fail
			default:
				err = fieldErr("quality", fmt.Sprintf("%q is not a rating (want \"pass\", \"fail\" or null for not rated)", v.GetStringBytes()))
			}
		default:
			err = fieldErr("quality", "want \"pass\", \"fail\" or null")
		}
	case "input_tokens":
		bit = fIn
		a.InputTokens, err = optInt(v, "input_tokens")
	case "output_tokens":
		bit = fOut
		a.OutputTokens, err = optInt(v, "output_tokens")
	case "error":
		bit = fError
		a.Error, err = str(v, "error", true)
	case "meta":
		bit = fMeta
		a.Meta = v.MarshalTo(nil)
	case "trace":
		err = &Error{Msg: "a second header line: the header comes once, on line 1"}
	default:
		err = fieldErr(string(key), "unknown field (format v1 attempt fields: attempt, request, start_ms, outcome, http_status, events, end_ms, quality, input_tokens, output_tokens, error; put tool data under \"meta\")")
	}
	if err == nil && lp.seen&bit != 0 {
		err = fieldErr(string(key), "given twice")
	}
	lp.seen |= bit
	lp.err = err
}

func (lp *lineParser) events(v *fastjson.Value) error {
	if v.Type() == fastjson.TypeNull {
		return nil
	}
	arr, err := v.Array()
	if err != nil {
		return fieldErr("events", "want an array of {\"t_ms\":..., \"tokens\":...}")
	}
	b := lp.b
	start := len(b.events)
	for i, ev := range arr {
		o, err := ev.Object()
		if err != nil {
			return fieldErr(fmt.Sprintf("events[%d]", i), "want an object {\"t_ms\":..., \"tokens\":...}")
		}
		name := func(f string) string { return fmt.Sprintf("events[%d].%s", i, f) }
		e := Event{Tokens: 1}
		known := 0
		t := o.Get("t_ms")
		if t == nil {
			return fieldErr(name("t_ms"), "missing required field")
		}
		known++
		if e.TMS, err = num(t, name("t_ms")); err != nil {
			return err
		}
		if tok := o.Get("tokens"); tok != nil {
			known++
			if tok.Type() != fastjson.TypeNull {
				if e.Tokens, err = integer(tok, name("tokens")); err != nil {
					return err
				}
			}
		}
		if o.Len() != known {
			return eventKeyErr(o, i)
		}
		b.events = append(b.events, e)
	}
	lp.a.Events = b.events[start:len(b.events):len(b.events)]
	return nil
}

// eventKeyErr explains why an event object has more keys than t_ms and tokens.
func eventKeyErr(o *fastjson.Object, i int) error {
	var err error
	counts := map[string]int{}
	o.Visit(func(k []byte, _ *fastjson.Value) {
		counts[string(k)]++
		if err != nil {
			return
		}
		switch {
		case string(k) != "t_ms" && string(k) != "tokens":
			err = fieldErr(fmt.Sprintf("events[%d].%s", i, k), "unknown field (an event has t_ms and tokens)")
		case counts[string(k)] > 1:
			err = fieldErr(fmt.Sprintf("events[%d].%s", i, k), "given twice")
		}
	})
	return err
}

func str(v *fastjson.Value, field string, nullable bool) (string, error) {
	switch v.Type() {
	case fastjson.TypeString:
		s := v.GetStringBytes()
		if !utf8.Valid(s) {
			return "", fieldErr(field, "is not valid UTF-8")
		}
		return string(s), nil
	case fastjson.TypeNull:
		if nullable {
			return "", nil
		}
	}
	return "", fieldErr(field, "want a string")
}

func num(v *fastjson.Value, field string) (float64, error) {
	if v.Type() != fastjson.TypeNumber {
		return 0, fieldErr(field, "want a number")
	}
	f, err := v.Float64()
	if err != nil {
		return 0, fieldErr(field, "is not a number: "+shorten(err.Error()))
	}
	return f, checkNumber(field, f)
}

func integer(v *fastjson.Value, field string) (int, error) {
	f, err := num(v, field)
	if err != nil {
		return 0, err
	}
	if f != float64(int(f)) || f > 1<<53 {
		return 0, fieldErr(field, fmt.Sprintf("want a whole number, got %g", f))
	}
	return int(f), nil
}

func optInt(v *fastjson.Value, field string) (int, error) {
	if v.Type() == fastjson.TypeNull {
		return 0, nil
	}
	return integer(v, field)
}
