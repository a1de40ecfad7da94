package loadgen_test

import (
	"bufio"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/loadgen"
)

// hostileServer answers every request with a stream drawn from a seeded
// generator (the seed and the request id fix it, so a failure repeats):
// odd statuses and headers, chunks with junk, odd usage numbers, deep or
// long or non-UTF-8 timings, long lines, many events. Each response is
// bounded (a few MiB), so the test is bounded in bytes.
func hostileServer(t *testing.T, seed uint64) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := fnv.New64a()
		h.Write([]byte(r.Header.Get("X-Request-Id")))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		hostileResponse(w, r, rng)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

var junkStrings = []string{
	"", "a", "é", "\xff\xfe", "\x00", "\\u0000", "\u202e", "\x1b[2J", `\ud800`, "\"", "\n", strings.Repeat("z", 3000),
}

func junk(rng *rand.Rand) string { return junkStrings[rng.IntN(len(junkStrings))] }

// jsonish is a JSON-looking value: mostly valid, sometimes deep, long,
// non-UTF-8 or not JSON at all.
func jsonish(rng *rand.Rand, depth int) string {
	switch rng.IntN(12) {
	case 0:
		d := 40 + rng.IntN(100)
		return strings.Repeat(`{"a":`, d) + "1" + strings.Repeat("}", d)
	case 1:
		return `"` + strings.Repeat("L", rng.IntN(300<<10)) + `"`
	case 2:
		return "\"\xff\xc0\x80\""
	case 3:
		return []string{"NaN", "-Infinity", "1e400", "-0", "1e-400", "123456789012345678901234567890", "[", "}", "nul"}[rng.IntN(9)]
	case 4, 5:
		if depth > 3 {
			return "1"
		}
		var b strings.Builder
		b.WriteByte('{')
		for i := range rng.IntN(4) {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%q:%s", junk(rng), jsonish(rng, depth+1))
		}
		b.WriteByte('}')
		return b.String()
	case 6:
		return fmt.Sprintf("%q", junk(rng))
	case 7:
		return fmt.Sprintf("[%s,%s]", jsonish(rng, depth+1), jsonish(rng, depth+1))
	default:
		return fmt.Sprint([]any{0, 1, -5, 2.5, 1 << 53, 1 << 60, 1e300, "null", true}[rng.IntN(9)])
	}
}

func count(rng *rand.Rand) string {
	return fmt.Sprint([]any{0, 1, 7, -1, -1 << 40, 1 << 53, 1<<53 + 2, 1 << 62, 2.5, 1e300, `"7"`, "null"}[rng.IntN(12)])
}

func hostileChunk(rng *rand.Rand) string {
	var parts []string
	switch rng.IntN(3) {
	case 0:
		parts = append(parts, fmt.Sprintf(`"choices":[{"index":0,"text":%q}]`, junk(rng)))
	case 1:
		parts = append(parts, fmt.Sprintf(`"choices":[{"index":0,"delta":{"content":"%s","role":%s},"finish_reason":%s}]`,
			junk(rng), []string{"null", `"assistant"`}[rng.IntN(2)], []string{"null", `"stop"`, `""`, "7"}[rng.IntN(4)]))
	default:
		parts = append(parts, `"choices":`+jsonish(rng, 0))
	}
	if rng.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf(`"usage":{"prompt_tokens":%s,"completion_tokens":%s,"prompt_tokens_details":{"cached_tokens":%s}}`, count(rng), count(rng), count(rng)))
	}
	if rng.IntN(3) == 0 {
		parts = append(parts, fmt.Sprintf(`"timings":{"prompt_ms":%s,"cache_n":%s,"x":%s}`, jsonish(rng, 0), count(rng), jsonish(rng, 0)))
	}
	if rng.IntN(20) == 0 {
		parts = append(parts, `"error":`+jsonish(rng, 0))
	}
	if rng.IntN(10) == 0 {
		parts = append(parts, fmt.Sprintf("%q:%s", junk(rng), jsonish(rng, 0)))
	}
	rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + strings.Join(parts, ",") + "}"
}

func hostileResponse(w http.ResponseWriter, r *http.Request, rng *rand.Rand) {
	if r.URL.Path == "/v1/models" {
		fmt.Fprintf(w, `{"data":[{"id":%s}]}`, jsonish(rng, 0))
		return
	}
	switch rng.IntN(10) {
	case 0:
		w.Header().Set("Location", "http://127.0.0.1:1/"+junk(rng))
		w.WriteHeader([]int{301, 302, 307, 308}[rng.IntN(4)])
		return
	case 1:
		w.WriteHeader([]int{400, 429, 500, 503, 299, 199}[rng.IntN(6)])
		fmt.Fprint(w, junk(rng)+jsonish(rng, 0))
		return
	}
	w.Header().Set("Content-Type", []string{"text/event-stream", "application/json", "text/plain", ""}[rng.IntN(4)])
	w.Header().Set("X-Junk", junk(rng))
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	for range rng.IntN(40) {
		switch rng.IntN(20) {
		case 0:
			fmt.Fprint(bw, ": comment "+junk(rng)+"\n")
		case 1:
			fmt.Fprint(bw, "data: "+jsonish(rng, 0)+"\n\n")
		case 2:
			fmt.Fprint(bw, "data: "+strings.Repeat("q", rng.IntN(2<<20))+"\n\n") // around the line cap
		case 3:
			// Many tiny events: more than one trace line holds.
			n := rng.IntN(70_000)
			for range n {
				fmt.Fprint(bw, "data: {\"choices\":[{\"text\":\"t\"}]}\n\n")
			}
		case 4:
			fmt.Fprint(bw, "data: {\"choices\":[{\"text\":\"split\"}],\r\ndata: \"usage\":null}\r\n\r\n")
		case 5:
			fmt.Fprint(bw, "event: x\nid: "+junk(rng)+"\nretry: 1\n\n")
		default:
			fmt.Fprint(bw, "data: "+hostileChunk(rng)+"\n\n")
		}
	}
	switch rng.IntN(3) {
	case 0:
		fmt.Fprint(bw, "data: [DONE]\n\n")
	case 1:
		fmt.Fprint(bw, "data: {\"choices\":[{\"text\":\"end\",\"finish_reason\":\"stop\"}],\"timings\":"+jsonish(rng, 0)+"}\n\n")
	}
}

// Property: whatever a server sends, every trace bench writes reads back
// with the course's reader (run reads it), and the run itself succeeds.
func TestHostileServerTracesReadBack(t *testing.T) {
	arith, err := dataset.Load("arith", 1)
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 4; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			url := hostileServer(t, seed)
			replay := make([]float64, 24)
			cfg := loadgen.Config{URL: url, Model: "m", Replay: replay, Timeout: time.Minute, MaxTokens: 8, API: []string{"completions", "chat"}[seed%2]}
			if seed%2 == 0 {
				cfg.Dataset = arith
			}
			run(t, context.Background(), cfg)
		})
	}
}
