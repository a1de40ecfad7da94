package loadgen

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
)

// The scanner finds the first choice's text in completions and chat
// chunks; appendText decodes it as encoding/json would.
func TestChunkText(t *testing.T) {
	for _, c := range []struct{ chunk, want string }{
		{`{"choices":[{"index":0,"text":" 42","finish_reason":null}]}`, " 42"},
		{`{"choices":[{"index":0,"delta":{"role":"assistant","content":"4\u00e9\n\"x\""},"finish_reason":"stop"}]}`, "4é\n\"x\""},
		{`{"choices":[{"delta":{"role":"assistant"}}]}`, ""},
		{`{"choices":[{"delta":{"content":null}}]}`, ""},
		{`{"choices":[{"text":""}]}`, ""},
		{`{"choices":[{"text":"a"},{"text":"b"}]}`, "a"}, // the first choice only
		{`{"choices":[{"delta":{"content":"\ud83d\ude00 \/ \\ \t"}}]}`, "😀 / \\ \t"},
		{`{"choices":[{"text":"\ud83d lone"}]}`, "\ufffd lone"},
		{`{"choices":[{"text":null}]}`, ""},
		{`{"choices":[{"text":7}]}`, ""},
		{`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`, ""},
	} {
		ci, err := parseChunk([]byte(c.chunk))
		if err != nil {
			t.Fatalf("%s: %v", c.chunk, err)
		}
		got := string(appendText(nil, []byte(c.chunk)[ci.textStart:ci.textEnd]))
		if got != c.want {
			t.Errorf("%s: text %q, want %q", c.chunk, got, c.want)
		}
	}
	// A malformed text is still a malformed message.
	if _, err := parseChunk([]byte(`{"choices":[{"text":"\x"}]}`)); err == nil {
		t.Error("bad escape accepted")
	}
}

// appendText agrees with encoding/json on random strings full of escapes.
func TestAppendTextAgreesWithEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "é", "中", "😀", "\n", "\t", `"`, `\`, "/", "\u2028", "\x01", "<", "&"}
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		enc, _ := json.Marshal(b.String())
		raw := enc[1 : len(enc)-1]
		if got := string(appendText(nil, raw)); got != b.String() {
			t.Fatalf("%s: %q, want %q", enc, got, b.String())
		}
	}
	for _, raw := range []string{`\u00e9\u4e2d`, `\ud83d\ude00`, `\uD83D\uDE00`, `\ude00`, `\ud83dx`, `\ud83d\u0041`} {
		var want string
		json.Unmarshal([]byte(`"`+raw+`"`), &want)
		if got := string(appendText(nil, []byte(raw))); got != want {
			t.Errorf("%s: %q, want %q", raw, got, want)
		}
	}
}

// Collecting text adds no allocation per event once the attempt's buffer
// has grown.
func TestAppendTextDoesNotAllocate(t *testing.T) {
	raw := []byte(`4\u00e9\n\"x\" and more text`)
	buf := make([]byte, 0, 4096)
	if n := testing.AllocsPerRun(100, func() { buf = appendText(buf[:0], raw) }); n != 0 {
		t.Errorf("%v allocations per event", n)
	}
}
