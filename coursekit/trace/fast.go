package trace

import (
	"strconv"
	"unsafe"
)

// parseFast reads an attempt line written in the form the trace writer
// writes (AppendAttempt): keys in the documented order, no whitespace,
// strings of printable ASCII without escapes, numbers without sign or
// exponent, no meta. Almost every line of a large trace has that form.
//
// It accepts a subset of what parseAttempt accepts and fills a exactly as
// parseAttempt would; it returns false, having changed nothing that
// matters, for anything else (including every line parseAttempt rejects),
// and the caller then parses the line with parseAttempt, which words the
// error. Every byte of an accepted line has been checked.
func (lp *lineParser) parseFast(l []byte, a *Attempt, b *block) bool {
	evStart := len(b.events)
	if !lp.fast(l, a, b) {
		b.events = b.events[:evStart]
		return false
	}
	return true
}

// fastStr reads printable ASCII up to the closing quote at l[i:] (the
// opening quote already consumed) and returns the index after the quote.
func fastStr(l []byte, i int) (start, end int, ok bool) {
	start = i
	for i < len(l) {
		c := l[i]
		if c == '"' {
			return start, i, true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return 0, 0, false
		}
		i++
	}
	return 0, 0, false
}

// fastNum reads a non-negative JSON number without exponent at l[i:]
// and returns its value as parseAttempt's number would (the same
// correctly rounded fast path, or strconv for long mantissas).
func fastNum(l []byte, i int) (float64, int, bool) {
	start := i
	var mant uint64
	for i < len(l) && l[i]-'0' <= 9 {
		mant = mant*10 + uint64(l[i]-'0')
		i++
	}
	nInt := i - start
	if nInt == 0 || (nInt > 1 && l[start] == '0') {
		return 0, 0, false
	}
	frac := 0
	if i < len(l) && l[i] == '.' {
		i++
		fs := i
		for i < len(l) && l[i]-'0' <= 9 {
			mant = mant*10 + uint64(l[i]-'0')
			i++
		}
		frac = i - fs
		if frac == 0 {
			return 0, 0, false
		}
	}
	if i < len(l) && (l[i] == 'e' || l[i] == 'E') {
		return 0, 0, false
	}
	if nInt+frac <= 19 && mant < 1<<53 && frac < len(fastPow10) {
		return float64(mant) / fastPow10[frac], i, true
	}
	f, err := strconv.ParseFloat(string(l[start:i]), 64)
	if err != nil || f > maxFinite {
		return 0, 0, false
	}
	return f, i, true
}

const maxFinite = 1.7976931348623157e308

var fastPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastInt reads a whole number of at most 15 digits without sign,
// fraction or exponent.
func fastInt(l []byte, i int) (int, int, bool) {
	start := i
	n := 0
	for i < len(l) && l[i]-'0' <= 9 {
		n = n*10 + int(l[i]-'0')
		i++
	}
	d := i - start
	if d == 0 || d > 15 || (d > 1 && l[start] == '0') {
		return 0, 0, false
	}
	if i < len(l) && (l[i] == '.' || l[i] == 'e' || l[i] == 'E') {
		return 0, 0, false
	}
	return n, i, true
}

// lit consumes s at l[i:].
func lit(l []byte, i int, s string) (int, bool) {
	if len(l)-i >= len(s) && string(l[i:i+len(s)]) == s {
		return i + len(s), true
	}
	return i, false
}

func (lp *lineParser) text(l []byte, start, end int) string {
	if lp.alias {
		return unsafe.String(&l[start], end-start)
	}
	return string(l[start:end])
}

func (lp *lineParser) fast(l []byte, a *Attempt, b *block) bool {
	i, ok := lit(l, 0, `{"attempt":"`)
	if !ok {
		return false
	}
	s, e, ok := fastStr(l, i)
	if !ok || e == s {
		return false
	}
	a.ID = lp.text(l, s, e)
	i = e + 1
	if i, ok = lit(l, i, `,"request":"`); ok {
		if s, e, ok = fastStr(l, i); !ok {
			return false
		}
		if e > s {
			a.Request = lp.text(l, s, e)
		}
		i = e + 1
	}
	if i, ok = lit(l, i, `,"start_ms":`); !ok {
		return false
	}
	if a.StartMS, i, ok = fastNum(l, i); !ok {
		return false
	}
	if i, ok = lit(l, i, `,"outcome":"`); !ok {
		return false
	}
	if s, e, ok = fastStr(l, i); !ok {
		return false
	}
	if a.Outcome, ok = fastOutcome(l[s:e]); !ok {
		return false
	}
	i = e + 1
	if i, ok = lit(l, i, `,"http_status":`); ok {
		if a.HTTPStatus, i, ok = fastInt(l, i); !ok {
			return false
		}
	}
	if i, ok = lit(l, i, `,"events":[`); !ok {
		return false
	}
	start := len(b.events)
	if i < len(l) && l[i] == ']' {
		i++
	} else {
		for {
			if i, ok = lit(l, i, `{"t_ms":`); !ok {
				return false
			}
			ev := Event{Tokens: 1}
			if ev.TMS, i, ok = fastNum(l, i); !ok {
				return false
			}
			if i, ok = lit(l, i, `,"tokens":`); ok {
				if ev.Tokens, i, ok = fastInt(l, i); !ok {
					return false
				}
			}
			if i >= len(l) || l[i] != '}' {
				return false
			}
			i++
			b.events = append(b.events, ev)
			if i >= len(l) {
				return false
			}
			if l[i] == ',' {
				i++
				continue
			}
			if l[i] != ']' {
				return false
			}
			i++
			break
		}
	}
	a.Events = b.events[start:len(b.events):len(b.events)]
	if i, ok = lit(l, i, `,"end_ms":`); !ok {
		return false
	}
	if i, ok = lit(l, i, "null"); !ok {
		if a.EndMS, i, ok = fastNum(l, i); !ok {
			return false
		}
		a.HasEnd = true
	}
	if i, ok = lit(l, i, `,"finish_ms":`); ok {
		if a.FinishMS, i, ok = fastNum(l, i); !ok {
			return false
		}
		a.HasFinish = true
	}
	if i, ok = lit(l, i, `,"quality":`); ok {
		switch {
		case hasAt(l, i, `"pass"`):
			a.Quality, i = Pass, i+6
		case hasAt(l, i, `"fail"`):
			a.Quality, i = Fail, i+6
		case hasAt(l, i, "null"):
			i += 4
		default:
			return false
		}
	}
	if i, ok = lit(l, i, `,"input_tokens":`); ok {
		if a.InputTokens, i, ok = fastInt(l, i); !ok {
			return false
		}
	}
	if i, ok = lit(l, i, `,"output_tokens":`); ok {
		if a.OutputTokens, i, ok = fastInt(l, i); !ok {
			return false
		}
	}
	if i, ok = lit(l, i, `,"error":"`); ok {
		if s, e, ok = fastStr(l, i); !ok {
			return false
		}
		a.Error = lp.text(l, s, e)
		i = e + 1
	}
	if i != len(l)-1 || l[i] != '}' {
		return false
	}
	if a.Request == "" {
		a.Request = a.ID
	}
	if a.Validate() != nil {
		return false
	}
	a.idKey = KeyOf(a.ID)
	if a.Request == a.ID {
		a.reqKey = a.idKey
	} else {
		a.reqKey = KeyOf(a.Request)
	}
	return true
}

func hasAt(l []byte, i int, s string) bool {
	return len(l)-i >= len(s) && string(l[i:i+len(s)]) == s
}

func fastOutcome(v []byte) (Outcome, bool) {
	switch string(v) {
	case "ok":
		return OK, true
	case "timeout":
		return Timeout, true
	case "connect_error":
		return ConnectError, true
	case "http_error":
		return HTTPError, true
	case "stream_error":
		return StreamError, true
	case "cancelled":
		return Cancelled, true
	case "in_flight":
		return InFlight, true
	case "no_response":
		return NoResponse, true
	case "empty_output":
		return EmptyOutput, true
	}
	return 0, false
}
