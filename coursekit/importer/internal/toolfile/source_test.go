package toolfile

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/trace"
)

func TestSanitizeOnlyOutsideStrings(t *testing.T) {
	in := `{"a": "NaN \"Infinity\" -Infinity", "b": [NaN, -Infinity, Infinity], "c": "\\"}`
	s := NewSource("x", []byte(in))
	want := `{"a": "NaN \"Infinity\" -Infinity", "b": ["#NaN", "#-Infinity", "#Infinity"], "c": "\\"}`
	if string(s.data) != want {
		t.Fatalf("sanitised\n%s\nwant\n%s", s.data, want)
	}
	// Offsets after a replacement map back to the file's own columns.
	off := strings.Index(string(s.data), `"c"`)
	if line, col := s.lineCol(off); line != 1 || col != strings.Index(in, `"c"`)+1 {
		t.Errorf("line %d col %d", line, col)
	}
}

// Outcomes come from the exception line of a traceback, not from source
// lines that mention timeouts in passing.
func TestClassify(t *testing.T) {
	tb := "Traceback (most recent call last):\n  File \"x.py\", line 1, in f\n    async with session.post(url, timeout=AIOHTTP_TIMEOUT) as r:\n"
	cases := []struct {
		status int
		text   string
		want   trace.Outcome
		code   int
	}{
		{0, tb + "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed", trace.StreamError, 0},
		{0, tb + "asyncio.exceptions.TimeoutError", trace.Timeout, 0},
		{0, tb + "aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host", trace.ConnectError, 0},
		{0, "Too Many Requests", trace.HTTPError, 429},
		{0, "Internal Server Error", trace.HTTPError, 500},
		{0, "Client error '429 Too Many Requests' for url '/v1/completions'", trace.HTTPError, 429},
		{503, "", trace.HTTPError, 503},
		{0, "something odd", trace.StreamError, 0},
	}
	for _, c := range cases {
		if o, code := Classify(c.status, c.text); o != c.want || code != c.code {
			t.Errorf("classify(%d, %q) = %v %d, want %v %d", c.status, c.text, o, code, c.want, c.code)
		}
	}
}

// Two keys are case twins exactly when strings.EqualFold says they are
// equal, the Kelvin sign and the long s included.
func TestHasFoldTwins(t *testing.T) {
	for keys, want := range map[string]bool{
		"ttfts itls":     false,
		"ttfts TTFTS":    true,
		"Ttfts TTFTS":    true,
		"k \u212a":       true,
		"s \u017f":       true,
		"a B":            false,
		"MEAN_TTFT_MS x": false,
	} {
		m := map[string]json.RawMessage{}
		for _, k := range strings.Fields(keys) {
			m[k] = json.RawMessage("1")
		}
		if got := hasFoldTwins(m); got != want {
			t.Errorf("%q: %v, want %v", keys, got, want)
		}
	}
}

// A JSON Lines result file with a cut line names that line: the decoder
// read on into the next line and failed there (walk 35l: a cut line 2
// read "line 4: invalid character '{' after object key:value pair"). A
// pretty-printed file's errors stay the decoder's.
func TestValuesCutLineNamesItsLine(t *testing.T) {
	rec := `{"metadata": {"x_correlation_id": "a"}, "metrics": {}}`
	s := NewSource("p.jsonl", []byte(rec+"\n"+`{"metadata": {"session_num": `+"\n"+rec+"\n"+rec+"\n"))
	_, _, err := s.Values()
	if want := "p.jsonl:2: not valid JSON (truncated or malformed)"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("cut line 2: %v; want %q", err, want)
	}
	pretty := NewSource("p.json", []byte("{\n  \"a\": 1\n  \"b\": 2\n}\n"))
	if _, _, err := pretty.Values(); err == nil || !strings.HasPrefix(err.Error(), "p.json:3: column 3: malformed JSON") {
		t.Errorf("pretty-printed file: %v", err)
	}
}
