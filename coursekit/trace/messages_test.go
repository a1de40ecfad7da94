package trace_test

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/bad_input.golden from the current reader")

// scanCases reach every error branch of the JSON tokenizer under the
// reader (strings, escapes, numbers, nesting, free-form meta), and a few
// valid escapes whose decoding shows in a later message (the attempt id is
// quoted in it).
var scanCases = []struct{ name, line string }{
	{"top-level string", `"R1"`},
	{"top-level number", `12`},
	{"top-level null", `null`},
	{"top-level junk", `xyz`},
	{"top-level truncated literal", `nul`},
	{"lone brace", `{`},
	{"trailing comma", `{"attempt":"R1",}`},
	{"comma first", `{,}`},
	{"missing colon", `{"attempt" "R1"}`},
	{"missing comma", `{"attempt":"R1" "start_ms":0}`},
	{"data after object", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2} x`},
	{"key not a string", `{attempt:"R1"}`},
	{"id not a string", `{"attempt":1}`},
	{"empty id", `{"attempt":"","start_ms":0,"outcome":"timeout","end_ms":2}`},
	{"unterminated string", `{"attempt":"R1`},
	{"control char in string", "{\"attempt\":\"R\x01\"}"},
	{"control char after escape", "{\"attempt\":\"R\\n\x01\"}"},
	{"bad escape", `{"attempt":"R\q"}`},
	{"escape at end", `{"attempt":"R\`},
	{"short u escape", `{"attempt":"R\u12"}`},
	{"bad hex in u escape", `{"attempt":"R\u12G4"}`},
	{"bad second half of a pair", `{"attempt":"R\ud83d\u12G4"}`},
	{"invalid UTF-8", "{\"attempt\":\"R\xff\",\"start_ms\":0,\"outcome\":\"nope\",\"end_ms\":2}"},
	{"invalid UTF-8 with escape", "{\"attempt\":\"R\\n\xc3\",\"start_ms\":0,\"outcome\":\"nope\",\"end_ms\":2}"},
	{"decoded escapes", `{"attempt":"a\u00e9\ud83d\ude00\"\\\/\b\f\n\r\t","start_ms":0,"outcome":"nope","end_ms":2}`},
	{"lone surrogates", `{"attempt":"x\ud800y\udc00z\ud800\u0041","start_ms":0,"outcome":"nope","end_ms":2}`},
	{"reversed pair", `{"attempt":"\ude00\ud83d","start_ms":0,"outcome":"nope","end_ms":2}`},
	{"UTF-8 id", `{"attempt":"请求-1","start_ms":0,"outcome":"nope","end_ms":2}`},
	{"minus alone", `{"attempt":"R1","start_ms":-,"outcome":"timeout","end_ms":2}`},
	{"minus letter", `{"attempt":"R1","start_ms":-x,"outcome":"timeout","end_ms":2}`},
	{"dot without digits", `{"attempt":"R1","start_ms":1.,"outcome":"timeout","end_ms":2}`},
	{"dot then exponent", `{"attempt":"R1","start_ms":1.e5,"outcome":"timeout","end_ms":2}`},
	{"exponent without digits", `{"attempt":"R1","start_ms":1e,"outcome":"timeout","end_ms":2}`},
	{"exponent sign only", `{"attempt":"R1","start_ms":1e+,"outcome":"timeout","end_ms":2}`},
	{"negative leading zero", `{"attempt":"R1","start_ms":-01,"outcome":"timeout","end_ms":2}`},
	{"number at end", `{"attempt":"R1","start_ms":`},
	{"letter for number", `{"attempt":"R1","start_ms":x}`},
	{"true for number", `{"attempt":"R1","start_ms":true}`},
	{"Infinity", `{"attempt":"R1","start_ms":Infinity,"outcome":"timeout","end_ms":2}`},
	{"minus Infinity", `{"attempt":"R1","start_ms":-Infinity,"outcome":"timeout","end_ms":2}`},
	{"huge exponent", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":1e400}`},
	{"negative exponent underflow", `{"attempt":"R1","start_ms":1e-400,"outcome":"nope","end_ms":2}`},
	{"minus zero", `{"attempt":"R1","start_ms":-0,"outcome":"timeout","end_ms":-0.0}`},
	{"long mantissa", `{"attempt":"R1","start_ms":123456789012345678901234567890,"outcome":"timeout","end_ms":1}`},
	{"negative fraction", `{"attempt":"R1","start_ms":-0.5,"outcome":"timeout","end_ms":2}`},
	{"negative exponent form", `{"attempt":"R1","start_ms":-1.5E+2,"outcome":"timeout","end_ms":2}`},
	{"tokens exponent", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":2e0}],"end_ms":0.5}`},
	{"tokens negative", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":-2}],"end_ms":2}`},
	{"tokens huge", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"tokens":1e300}],"end_ms":2}`},
	{"status fraction", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"http_status":200.5}`},
	{"status string", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"http_status":"200"}`},
	{"events not an array", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":{},"end_ms":2}`},
	{"event not an object", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[1],"end_ms":2}`},
	{"events unterminated", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[`},
	{"events missing comma", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1} {"t_ms":2}],"end_ms":2}`},
	{"event missing brace", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1 "tokens":2}],"end_ms":2}`},
	{"event unknown key", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t":1}],"end_ms":2}`},
	{"event without t_ms", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"tokens":2}],"end_ms":2}`},
	{"event t_ms twice", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":1,"t_ms":2}],"end_ms":2}`},
	{"event key not a string", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{t_ms:1}],"end_ms":2}`},
	{"event t_ms negative", `{"attempt":"R1","start_ms":0,"outcome":"ok","events":[{"t_ms":-1}],"end_ms":2}`},
	{"quality number", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"quality":1}`},
	{"request number", `{"attempt":"R1","request":5,"start_ms":0,"outcome":"timeout","end_ms":2}`},
	{"error number", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"error":5}`},
	{"error bad escape", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"error":"a\x"}`},
	{"meta missing value", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":{"a":}}`},
	{"meta trailing comma", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":[1,]}`},
	{"meta missing colon", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":{"a" 1}}`},
	{"meta missing comma", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":{"a":1 "b":2}}`},
	{"meta array missing comma", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":[1 2]}`},
	{"meta truncated true", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":tru}`},
	{"meta truncated null", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":nul}`},
	{"meta NaN", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":{"a":NaN}}`},
	{"meta minus Infinity", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":[-Infinity]}`},
	{"meta Infinity", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":Infinity}`},
	{"meta negative and float ok", `{"attempt":"R1","start_ms":0,"outcome":"nope","end_ms":2,"meta":{"a":-1.5e-3,"b":[true,false,null,"x\u00e9"],"c":{}}}`},
	{"meta at end", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":`},
	{"meta letter", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":x}`},
	{"meta bad escape", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":"a\q"}`},
	{"meta invalid UTF-8", "{\"attempt\":\"R1\",\"start_ms\":0,\"outcome\":\"timeout\",\"end_ms\":2,\"meta\":\"\xfe\"}"},
	{"meta key not a string", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":{1:2}}`},
	{"meta 64 deep", `{"attempt":"R1","start_ms":0,"outcome":"nope","end_ms":2,"meta":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`},
	{"meta 65 deep", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":` + strings.Repeat("[", 66) + strings.Repeat("]", 66) + `}`},
	{"meta 65 deep objects", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":2,"meta":` + strings.Repeat(`{"a":`, 66) + "1" + strings.Repeat("}", 66) + `}`},
	{"whitespace everywhere", " \t{ \"attempt\" : \"R1\" , \"start_ms\" : 0 , \"outcome\" : \"nope\" , \"end_ms\" : 2 } \t"},
	{"end_ms null", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":null}`},
	{"NUL after the object", "{\"attempt\":\"R1\",\"start_ms\":0,\"outcome\":\"timeout\",\"end_ms\":2}\x00"},
	{"end_ms nul", `{"attempt":"R1","start_ms":0,"outcome":"timeout","end_ms":nul}`},
}

// Every message of the reader, byte for byte: the 30 documented bad inputs
// and the tokenizer's own syntax errors. A change to a message fails here;
// regenerate on purpose with go test ./coursekit/trace -run Exact -update.
func TestBadInputMessagesExact(t *testing.T) {
	var b strings.Builder
	msg := func(lines ...string) string {
		_, err := read(t, lines...)
		if err == nil {
			return "(no error)"
		}
		return err.Error()
	}
	for _, c := range badInputCases {
		m := msg(c.lines...)
		if len(m) > 300 {
			m = m[:300] + "…"
		}
		fmt.Fprintf(&b, "%s\t%q\n", c.name, m)
	}
	for _, c := range scanCases {
		fmt.Fprintf(&b, "scan: %s\t%q\n", c.name, msg(header, c.line))
	}
	const golden = "testdata/bad_input.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(b.String(), "\n")
	for i, w := range strings.Split(string(want), "\n") {
		if i >= len(got) || got[i] != w {
			g := "(missing)"
			if i < len(got) {
				g = got[i]
			}
			t.Errorf("message %d changed:\n got  %s\n want %s", i+1, g, w)
		}
	}
	if len(got) != len(strings.Split(string(want), "\n")) {
		t.Errorf("%d messages, golden has %d", len(got), len(strings.Split(string(want), "\n")))
	}
}
