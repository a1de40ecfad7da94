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
}
