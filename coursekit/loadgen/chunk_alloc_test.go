package loadgen

import "testing"

// parseChunk exists because encoding/json's garbage was the client's
// largest cost per streamed event: it must not allocate on good chunks.
func TestParseChunkDoesNotAllocate(t *testing.T) {
	chunks := [][]byte{
		[]byte(`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null}],"usage":null}`),
		[]byte(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi \u00e9"},"finish_reason":"stop"}],"usage":{"prompt_tokens":8,"completion_tokens":4,"total_tokens":12}}`),
		[]byte(`{"error":{"message":"overloaded","code":503,"nested":[1,2.5e3,true,false,null,{"a":[]}]}}`),
	}
	for _, b := range chunks {
		if _, err := parseChunk(b); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if n := testing.AllocsPerRun(100, func() { parseChunk(b) }); n != 0 {
			t.Errorf("%d allocations per chunk for %s", int(n), b)
		}
	}
	// The generated text decodes into the caller's buffer without
	// allocating once the buffer has room.
	buf := make([]byte, 0, 64)
	for _, b := range chunks[:2] {
		c, _ := parseChunk(b)
		if n := testing.AllocsPerRun(100, func() { buf = c.text(buf[:0], b) }); n != 0 {
			t.Errorf("%d allocations decoding the text of %s", int(n), b)
		}
	}
	if string(buf) != "hi é" {
		t.Errorf("text %q", buf)
	}
}

// BenchmarkParseChunk is the client's per-event cost of reading a chunk.
func BenchmarkParseChunk(b *testing.B) {
	chunk := []byte(`{"id":"cmpl-sim-12345","object":"text_completion","created":1764600000,"model":"sim-model","choices":[{"index":0,"text":" quick","logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":8,"completion_tokens":3,"total_tokens":11}}`)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		if _, err := parseChunk(chunk); err != nil {
			b.Fatal(err)
		}
	}
}
