package loadgen

import (
	"errors"
	"fmt"

	"github.com/llmperf-course/course/coursekit/internal/jsontok"
	"github.com/llmperf-course/course/coursekit/trace"
)

// chunkInfo is what the client reads of one streamed completion or chat
// chunk: whether it carries choices (a token event) and a finish reason,
// its usage, whether it is an error object, and where its generated text
// is.
type chunkInfo struct {
	choices   int  // elements of the top-level "choices" array
	finished  bool // some choice has a non-empty string finish_reason
	hasUsage  bool // "usage" is an object (not null, not absent)
	prompt    int  // usage.prompt_tokens
	completed int  // usage.completion_tokens
	errStart  int  // "error" value, as a span of the message, when not null
	errEnd    int

	// The generated text of the first choice that has one: its "text"
	// (completions) or "delta"."content" (chat) string, as the span
	// [textStart, textEnd) of the message's raw string contents; escaped
	// says it holds backslash escapes. text decodes it. The span aliases
	// the message buffer, which the stream reader reuses for the next
	// message: copy (or decode) before reading on.
	textStart, textEnd int
	textEscaped        bool

	role      bool // some choice's delta has a non-null "role"
	reasoning bool // some choice's delta has non-empty reasoning text

	// cached is the prompt tokens the server reports as cached:
	// usage.prompt_tokens_details.cached_tokens, else llama.cpp's
	// timings.cache_n; hasCached says one was present.
	cached    int
	hasCached bool
	// timings is llama.cpp's "timings" object, as the span
	// [timingsStart, timingsEnd) of the message, when present.
	timingsStart, timingsEnd int
}

// hasText says the chunk carries output text: only such a chunk is an
// event. A role-only chunk, an empty delta and a finish-only chunk carry
// none (llama.cpp and vLLM send all three in a chat stream).
func (c *chunkInfo) hasText() bool { return c.textEnd > c.textStart || c.reasoning }

// text appends the chunk's generated text, escapes decoded as
// encoding/json decodes them, to dst (a buffer the caller owns and
// reuses: no allocation when it has room). msg is the message parseChunk
// read. The per-event hot path does not call it; a reader of the answers
// (a quality judge) does.
func (c *chunkInfo) text(dst, msg []byte) []byte {
	raw := msg[c.textStart:c.textEnd]
	if !c.textEscaped {
		return append(dst, raw...)
	}
	return jsontok.AppendUnescaped(dst, raw)
}

var errSyntax = errors.New("invalid JSON")

// parseChunk reads one SSE data payload. It is a strict JSON validator
// for the whole message (a malformed message is an error, as with
// encoding/json) that keeps only the fields above, without allocating:
// it runs once per streamed event, and encoding/json's reflection and
// garbage were the client's largest cost per event. The tokenizer is the
// trace reader's (coursekit/internal/jsontok).
func parseChunk(b []byte) (chunkInfo, error) {
	p := chunkScanner{jsontok.Scanner{B: b}}
	var c chunkInfo
	if p.Peek() != '{' {
		return c, p.fail(p.Fail("want an object"))
	}
	err := p.Object(func(key []byte) error {
		switch string(key) {
		case "choices":
			return p.choices(&c)
		case "usage":
			return p.usage(&c)
		case "timings":
			return p.timings(&c)
		case "error":
			p.WS()
			s := p.I
			if err := p.Skip(maxDepth); err != nil {
				return err
			}
			if string(b[s:p.I]) != "null" {
				c.errStart, c.errEnd = s, p.I
			}
			return nil
		}
		return p.Skip(maxDepth)
	})
	if err != nil {
		return c, p.fail(err)
	}
	if !p.AtEOF() {
		return c, p.fail(p.Fail("data after the top-level value"))
	}
	return c, nil
}

type chunkScanner struct{ jsontok.Scanner }

const maxDepth = 1000

// fail words a tokenizer error for a stream: the byte offset in the
// message and what was expected.
func (p *chunkScanner) fail(err error) error {
	e, ok := err.(*jsontok.Error)
	if !ok {
		return err
	}
	if p.AtEnd(e) {
		return fmt.Errorf("%w: unexpected end of message", errSyntax)
	}
	return fmt.Errorf("%w at offset %d: %s", errSyntax, e.Off, e.What)
}

// choices scans the "choices" value: null or an array whose object
// elements may carry finish_reason and the generated text.
func (p *chunkScanner) choices(c *chunkInfo) error {
	if p.Null() {
		return nil
	}
	if p.Peek() != '[' {
		return p.Fail("choices is not an array")
	}
	return p.Array(func() error {
		c.choices++
		if p.Null() {
			return nil
		}
		if p.Peek() != '{' {
			return p.Fail("a choice is not an object")
		}
		return p.Object(func(key []byte) error {
			switch string(key) {
			case "finish_reason":
				if p.Null() {
					return nil
				}
				t, err := p.str()
				if t.End > t.Start {
					c.finished = true
				}
				return err
			case "text":
				return p.text(c)
			case "delta":
				if p.Null() {
					return nil
				}
				if p.Peek() != '{' {
					return p.Skip(maxDepth)
				}
				return p.Object(func(key []byte) error {
					switch string(key) {
					case "content":
						return p.text(c)
					case "role":
						if !p.Null() {
							c.role = true
							return p.Skip(maxDepth)
						}
						return nil
					case "reasoning_content", "reasoning":
						if p.Peek() != '"' {
							return p.Skip(maxDepth)
						}
						t, err := p.String()
						if t.End > t.Start {
							c.reasoning = true
						}
						return err
					}
					return p.Skip(maxDepth)
				})
			}
			return p.Skip(maxDepth)
		})
	})
}

// str scans a string value (after whitespace).
func (p *chunkScanner) str() (jsontok.Str, error) {
	if p.Peek() != '"' {
		return jsontok.Str{}, p.Fail("want a string")
	}
	return p.String()
}

// text records a choice's text or content string (null and other values
// are skipped, as a client that only needs timings would); the first one
// in the message wins.
func (p *chunkScanner) text(c *chunkInfo) error {
	if p.Peek() != '"' {
		return p.Skip(maxDepth)
	}
	t, err := p.String()
	if err == nil && c.textEnd == 0 && c.textStart == 0 {
		c.textStart, c.textEnd, c.textEscaped = t.Start, t.End, t.Escaped
	}
	return err
}

// usage scans the "usage" value: null or an object with token counts.
func (p *chunkScanner) usage(c *chunkInfo) error {
	if p.Null() {
		return nil
	}
	if p.Peek() != '{' {
		return p.Fail("usage is not an object")
	}
	c.hasUsage = true
	return p.Object(func(key []byte) error {
		dst := &c.prompt
		switch string(key) {
		case "prompt_tokens":
		case "completion_tokens":
			dst = &c.completed
		case "prompt_tokens_details":
			if p.Peek() != '{' {
				return p.Skip(maxDepth)
			}
			return p.Object(func(key []byte) error {
				if string(key) != "cached_tokens" {
					return p.Skip(maxDepth)
				}
				if p.Null() {
					return nil
				}
				c.hasCached = true
				return p.whole(key, &c.cached)
			})
		default:
			return p.Skip(maxDepth)
		}
		if p.Null() {
			return nil
		}
		return p.whole(key, dst)
	})
}

// whole scans a token count into dst: a whole number in [0, 2^53], the
// range a trace holds (a negative or huge count would make the attempt
// unwritable).
func (p *chunkScanner) whole(key []byte, dst *int) error {
	if c := p.Peek(); !(c == '-' || '0' <= c && c <= '9') {
		return p.Fail(string(key) + " is not a number")
	}
	at := p.I
	n, err := p.Number()
	if err != nil {
		return err
	}
	v, ok := n.Int()
	if !ok {
		p.I = at
		return p.Fail(string(key) + " is not a whole number")
	}
	if v < 0 || v > trace.MaxCount {
		p.I = at
		return p.Fail(string(key) + " is not a token count (negative or above 2^53)")
	}
	*dst = v
	return nil
}

// timings scans llama.cpp's "timings" object: its span is kept as sent
// (meta.server_timings), and its cache_n stands for the cached prompt
// tokens when usage does not say.
func (p *chunkScanner) timings(c *chunkInfo) error {
	if p.Null() {
		return nil
	}
	if p.Peek() != '{' {
		return p.Skip(maxDepth)
	}
	start := p.I
	cacheN, has := 0, false
	err := p.Object(func(key []byte) error {
		if string(key) != "cache_n" || p.Null() {
			return p.Skip(maxDepth)
		}
		has = true
		return p.whole(key, &cacheN)
	})
	if err != nil {
		return err
	}
	c.timingsStart, c.timingsEnd = start, p.I
	if has && !c.hasCached {
		c.cached, c.hasCached = cacheN, true
	}
	return nil
}
