package loadgen

import (
	"unicode/utf16"
	"unicode/utf8"
)

// choiceText scans the first choice's "text" (completions) or "delta"
// (chat, whose "content" holds the text) and records where the text lies
// in the message. Nothing is copied or decoded here: the scanner runs for
// every event, and only a run that judges answers decodes the span
// (appendText), after the event is stamped.
func (p *scanner) choiceText(c *chunkInfo, delta bool) error {
	if !delta {
		if p.i < len(p.b) && p.b[p.i] == '"' {
			s, e, err := p.str()
			c.textStart, c.textEnd = s, e
			return err
		}
		return p.value(1)
	}
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return p.value(1)
	}
	return p.object(func(key []byte) error {
		if string(key) == "content" && p.i < len(p.b) && p.b[p.i] == '"' {
			s, e, err := p.str()
			c.textStart, c.textEnd = s, e
			return err
		}
		return p.value(2)
	})
}

// appendText appends the decoded contents of a JSON string, given as the
// raw span between its quotes that the scanner has already validated, to
// dst. A lone UTF-16 surrogate becomes U+FFFD, as encoding/json does.
func appendText(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			j := i + 1
			for j < len(raw) && raw[j] != '\\' {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
			continue
		}
		switch raw[i+1] {
		case 'n':
			dst = append(dst, '\n')
		case 't':
			dst = append(dst, '\t')
		case 'r':
			dst = append(dst, '\r')
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'u':
			r := rune(hex4(raw[i+2 : i+6]))
			i += 6
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					r2 = rune(hex4(raw[i+2 : i+6]))
				}
				if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, raw[i+1])
		}
		i += 2
	}
	return dst
}

func hex4(b []byte) uint16 {
	var v uint16
	for _, h := range b {
		v <<= 4
		switch {
		case '0' <= h && h <= '9':
			v |= uint16(h - '0')
		case 'a' <= h && h <= 'f':
			v |= uint16(h - 'a' + 10)
		default:
			v |= uint16(h - 'A' + 10)
		}
	}
	return v
}
