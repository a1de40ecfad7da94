package loadgen

import (
	"testing"
)

// What the judges read: the scanner finds the first choice's text in
// completions and chat chunks, and chunkInfo.text decodes it.
func TestChunkText(t *testing.T) {
	for _, c := range []struct{ chunk, want string }{
		{`{"choices":[{"index":0,"text":" 42","finish_reason":null}]}`, " 42"},
		{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"4\u00e9\n\"x\""},"finish_reason":"stop"}]}`, "4é\n\"x\""},
		{`{"choices":[{"delta":{"role":"assistant"}}]}`, ""},
		{`{"choices":[{"delta":{"content":null}}]}`, ""},
		{`{"choices":[{"text":""}]}`, ""},
		{`{"choices":[{"text":"a"},{"text":"b"}]}`, "a"},
		{`{"choices":[{"delta":{"content":"\ud83d\ude00 \/ \\ \t"}}]}`, "😀 / \\ \t"},
		{`{"choices":[{"text":null}]}`, ""},
		{`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, ""},
	} {
		ci, err := parseChunk([]byte(c.chunk))
		if err != nil {
			t.Fatalf("%s: %v", c.chunk, err)
		}
		if got := string(ci.text(nil, []byte(c.chunk))); got != c.want {
			t.Errorf("%s: text %q, want %q", c.chunk, got, c.want)
		}
	}
}

// Collecting the text adds no allocation per event once the attempt's
// buffer has grown.
func TestChunkTextDoesNotAllocate(t *testing.T) {
	msg := []byte(`{"choices":[{"index":0,"delta":{"content":"4\u00e9\n\"x\" and more"},"finish_reason":null}]}`)
	ci, err := parseChunk(msg)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = ci.text(buf[:0], msg) }); n != 0 {
		t.Errorf("%v allocations per event", n)
	}
}
