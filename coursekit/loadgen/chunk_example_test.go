package loadgen

import (
	"encoding/json"
	"fmt"
)

// parseChunk keeps what the client needs of a streamed chunk and rejects
// a malformed message as encoding/json does.
func Example_parseChunk() {
	for _, m := range []string{
		`{"id":"c1","object":"text_completion","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"c1","choices":[{"index":0,"delta":{"content":"\u00e9\n"},"finish_reason":"length"}]}`,
		`{"id":"c1","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":4,"total_tokens":12}}`,
		`{"choices":[{"finish_reason":""}],"usage":{"prompt_tokens":8,"completion_tokens":2}}`,
		`{"error":{"message":"overloaded","code":503}}`,
		`{"id":"c1","choices":[{"index":0,"text":`, // cut short, as the simulator's malformed fault
		`{"choices":[{"index":0}]} x`,
		`{"usage":{"completion_tokens":1.5}}`,
	} {
		c, err := parseChunk([]byte(m))
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		errJSON := ""
		if c.errEnd > 0 {
			errJSON = m[c.errStart:c.errEnd]
		}
		fmt.Printf("choices %d finished %v usage %v %d/%d error %q text %q\n", c.choices, c.finished, c.hasUsage, c.prompt, c.completed, errJSON, c.text(nil, []byte(m)))
	}
	// Output:
	// choices 1 finished false usage false 0/0 error "" text " the"
	// choices 1 finished true usage false 0/0 error "" text "é\n"
	// choices 0 finished false usage true 8/4 error "" text ""
	// choices 1 finished false usage true 8/2 error "" text ""
	// choices 0 finished false usage false 0/0 error "{\"message\":\"overloaded\",\"code\":503}" text ""
	// error: invalid JSON: unexpected end of message
	// error: invalid JSON at offset 26: data after the top-level value
	// error: invalid JSON at offset 30: completion_tokens is not a whole number
}

// On every prefix of a set of real chunks, the scanner accepts exactly
// what encoding/json accepts into the client's old chunk struct.
func Example_parseChunkAgreesWithEncodingJSON() {
	type old struct {
		Choices []struct {
			FinishReason *string `json:"finish_reason"`
			Text         *string `json:"text"`
			Delta        *struct {
				Content *string `json:"content"`
			} `json:"delta"`
		} `json:"choices"`
		Usage *struct {
			PromptTokens     int `json:"prompt_tokens"`
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	msgs := []string{
		`{"id":"cmpl-sim-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","content":"a\"b\\c\u0041"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}`,
		`{"error":{"message":"bad","type":"x","code":500},"choices":null}`,
		` { "choices" : [ ] , "usage" : null , "n" : -1.5e+3 , "t" : [true,false,null,{}] } `,
		`{"choices":[{"index":0,"delta":{"content":null}},{"index":1,"delta":{"role":"assistant","content":"\ud83d\ude00 \ud800 \u00e9\t\/"}}]}`,
		`{"choices":[{"index":0,"text":"\"quoted\" and \\ back","finish_reason":null}]}`,
	}
	tried, agree := 0, 0
	for _, m := range msgs {
		for n := 0; n <= len(m); n++ {
			b := []byte(m[:n])
			var o old
			oerr := json.Unmarshal(b, &o)
			c, err := parseChunk(b)
			tried++
			same := (oerr == nil) == (err == nil)
			if same && err == nil {
				fin, text, hasText := false, "", false
				for _, ch := range o.Choices {
					fin = fin || (ch.FinishReason != nil && *ch.FinishReason != "")
					for _, t := range []*string{ch.Text, deltaContent(ch.Delta)} {
						if t != nil && !hasText {
							text, hasText = *t, true
						}
					}
				}
				hasErr := len(o.Error) > 0 && string(o.Error) != "null"
				same = c.choices == len(o.Choices) && c.finished == fin && c.hasUsage == (o.Usage != nil) && (c.errEnd > 0) == hasErr &&
					string(c.text(nil, b)) == text
				if o.Usage != nil {
					same = same && c.prompt == o.Usage.PromptTokens && c.completed == o.Usage.CompletionTokens
				}
			}
			if same {
				agree++
			} else {
				fmt.Printf("disagree on %q: %v vs %v\n", b, err, oerr)
			}
		}
	}
	fmt.Println(agree == tried)
	// Output:
	// true
}

func deltaContent(d *struct {
	Content *string `json:"content"`
}) *string {
	if d == nil {
		return nil
	}
	return d.Content
}
