package loadgen

import (
	"errors"
	"fmt"
)

// chunkInfo is what the client reads of one streamed completion or chat
// chunk: whether it carries choices (a token event) and a finish reason,
// its usage, and whether it is an error object.
type chunkInfo struct {
	choices   int  // elements of the top-level "choices" array
	finished  bool // some choice has a non-empty string finish_reason
	hasUsage  bool // "usage" is an object (not null, not absent)
	prompt    int  // usage.prompt_tokens
	completed int  // usage.completion_tokens
	errStart  int  // "error" value, as a span of the message, when not null
	errEnd    int
	textStart int // the first choice's generated text, as a span of the
	textEnd   int // message (raw, escapes not decoded); see choiceText
}

var errSyntax = errors.New("invalid JSON")

// parseChunk reads one SSE data payload. It is a strict JSON validator
// for the whole message (a malformed message is an error, as with
// encoding/json) that keeps only the fields above, without allocating:
// it runs once per streamed event, and encoding/json's reflection and
// garbage were the client's largest cost per event.
func parseChunk(b []byte) (chunkInfo, error) {
	p := scanner{b: b}
	var c chunkInfo
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return c, p.fail("want an object")
	}
	err := p.object(func(key []byte) error {
		switch string(key) {
		case "choices":
			return p.choices(&c)
		case "usage":
			return p.usage(&c)
		case "error":
			s := p.i
			if err := p.value(0); err != nil {
				return err
			}
			if string(b[s:p.i]) != "null" {
				c.errStart, c.errEnd = s, p.i
			}
			return nil
		}
		return p.value(0)
	})
	if err != nil {
		return c, err
	}
	return c, p.end()
}

type scanner struct {
	b []byte
	i int
}

const maxDepth = 1000

func (p *scanner) fail(what string) error {
	if p.i >= len(p.b) {
		return fmt.Errorf("%w: unexpected end of message (%s)", errSyntax, what)
	}
	return fmt.Errorf("%w at offset %d: %s", errSyntax, p.i, what)
}

func (p *scanner) end() error {
	p.ws()
	if p.i != len(p.b) {
		return p.fail("data after the top-level value")
	}
	return nil
}

func (p *scanner) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *scanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *scanner) lit(s string) bool {
	if len(p.b)-p.i >= len(s) && string(p.b[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// str scans a string and returns the span of its raw contents (escapes
// are validated, not decoded: the keys the client looks for have none).
func (p *scanner) str() (int, int, error) {
	if !p.eat('"') {
		return 0, 0, p.fail("want a string")
	}
	s := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return s, p.i - 1, nil
		case c < 0x20:
			return 0, 0, p.fail("control character in string")
		case c == '\\':
			p.i++
			if p.i >= len(p.b) {
				return 0, 0, p.fail("bad escape")
			}
			switch p.b[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i++
			case 'u':
				if len(p.b)-p.i < 5 {
					return 0, 0, p.fail("bad \\u escape")
				}
				for _, h := range p.b[p.i+1 : p.i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return 0, 0, p.fail("bad \\u escape")
					}
				}
				p.i += 5
			default:
				return 0, 0, p.fail("bad escape")
			}
		default:
			p.i++
		}
	}
	return 0, 0, p.fail("unterminated string")
}

// num scans a JSON number and returns its value when it is a non-negative
// integer that fits (token counts), else -1.
func (p *scanner) num() (int, error) {
	s := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.b) && '1' <= p.b[p.i] && p.b[p.i] <= '9':
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
	default:
		return 0, p.fail("bad number")
	}
	integer := true
	if p.eat('.') {
		integer = false
		d := p.i
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return 0, p.fail("bad fraction")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		integer = false
		p.i++
		if !p.eat('+') {
			p.eat('-')
		}
		d := p.i
		for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
			p.i++
		}
		if p.i == d {
			return 0, p.fail("bad exponent")
		}
	}
	if !integer || p.b[s] == '-' || p.i-s > 15 {
		return -1, nil
	}
	n := 0
	for _, d := range p.b[s:p.i] {
		n = n*10 + int(d-'0')
	}
	return n, nil
}

// value skips any JSON value, validating it.
func (p *scanner) value(depth int) error {
	if depth > maxDepth {
		return p.fail("nested too deep")
	}
	if p.i >= len(p.b) {
		return p.fail("want a value")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, _, err := p.str()
		return err
	case c == '{':
		return p.object(func([]byte) error { return p.value(depth + 1) })
	case c == '[':
		return p.array(func() error { return p.value(depth + 1) })
	case c == 't':
		if p.lit("true") {
			return nil
		}
	case c == 'f':
		if p.lit("false") {
			return nil
		}
	case c == 'n':
		if p.lit("null") {
			return nil
		}
	case c == '-' || '0' <= c && c <= '9':
		_, err := p.num()
		return err
	}
	return p.fail("want a value")
}

// choices scans the "choices" value: null or an array whose object
// elements may carry finish_reason.
func (p *scanner) choices(c *chunkInfo) error {
	if p.lit("null") {
		return nil
	}
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return p.fail("choices is not an array")
	}
	return p.array(func() error {
		c.choices++
		if p.lit("null") {
			return nil
		}
		if p.i >= len(p.b) || p.b[p.i] != '{' {
			return p.fail("a choice is not an object")
		}
		return p.object(func(key []byte) error {
			if c.choices == 1 && (string(key) == "text" || string(key) == "delta") {
				return p.choiceText(c, key[0] == 'd')
			}
			if string(key) != "finish_reason" {
				return p.value(1)
			}
			if p.lit("null") {
				return nil
			}
			s, e, err := p.str()
			if e > s {
				c.finished = true
			}
			return err
		})
	})
}

// usage scans the "usage" value: null or an object with token counts.
func (p *scanner) usage(c *chunkInfo) error {
	if p.lit("null") {
		return nil
	}
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return p.fail("usage is not an object")
	}
	c.hasUsage = true
	return p.object(func(key []byte) error {
		dst := &c.prompt
		switch string(key) {
		case "prompt_tokens":
		case "completion_tokens":
			dst = &c.completed
		default:
			return p.value(1)
		}
		if p.lit("null") {
			return nil
		}
		if p.i >= len(p.b) || !(p.b[p.i] == '-' || '0' <= p.b[p.i] && p.b[p.i] <= '9') {
			return p.fail(string(key) + " is not a number")
		}
		n, err := p.num()
		if err != nil {
			return err
		}
		if n < 0 {
			return p.fail(string(key) + " is not a whole number")
		}
		*dst = n
		return nil
	})
}

// object walks the object at p.i ('{' checked by the caller): for each
// member it reads the key and the colon and calls each with p at the
// value, which each must consume.
func (p *scanner) object(each func(key []byte) error) error {
	p.i++
	p.ws()
	if p.eat('}') {
		return nil
	}
	for {
		p.ws()
		ks, ke, err := p.str()
		if err != nil {
			return err
		}
		p.ws()
		if !p.eat(':') {
			return p.fail("want ':'")
		}
		p.ws()
		if err := each(p.b[ks:ke]); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return nil
		}
		return p.fail("want ',' or '}'")
	}
}

// array walks the array at p.i ('[' checked by the caller), calling each
// with p at every element, which each must consume.
func (p *scanner) array(each func() error) error {
	p.i++
	p.ws()
	if p.eat(']') {
		return nil
	}
	for {
		p.ws()
		if err := each(); err != nil {
			return err
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat(']') {
			return nil
		}
		return p.fail("want ',' or ']'")
	}
}
