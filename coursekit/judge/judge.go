// Package judge rates one complete answer against an expectation agreed
// before the run: the quality half of joint qualification (complete success
// ∧ quality pass ∧ TTFT ≤ SLO). Without a judge every answer stays unrated,
// an unrated answer is never a pass, and goodput is 0 whatever the latency.
//
// A judge is built once, before the run, from the expectation written in a
// dataset line ({"exact": "42"}); a bad pattern or an invalid schema is an
// error then, never a silent "fail" on every answer. Judging a text is pure
// and safe for concurrent use, so a load client can judge on its own
// goroutines after each attempt ends, away from the stream stamping.
package judge

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Judge rates one complete answer.
type Judge interface {
	// Name is the expectation kind: "exact", "contains", "regex" or
	// "json_schema". Traces record it beside each verdict.
	Name() string
	// Judge rates the whole generated text of one complete response.
	Judge(answer string) Verdict
}

// Verdict is one answer judged: pass or fail, and why in a few words.
type Verdict struct {
	Pass   bool
	Reason string
}

// Kinds are the expectation kinds a dataset line may give, in the order
// the docs list them.
var Kinds = []string{"exact", "contains", "regex", "json_schema"}

// New builds the judge of one expectation kind from its JSON value, e.g.
// New("regex", `"^4[0-9]$"`). The error says what is wrong with the value;
// callers add where it was written (FILE:LINE).
func New(kind string, value json.RawMessage) (Judge, error) {
	switch kind {
	case "exact", "contains", "regex":
		var s string
		if err := json.Unmarshal(value, &s); err != nil {
			return nil, fmt.Errorf("want a JSON string, got %s", shortJSON(value))
		}
		switch kind {
		case "exact":
			return NewExact(s)
		case "contains":
			return NewContains(s)
		}
		return NewRegex(s)
	case "json_schema":
		return NewJSONSchema(value)
	}
	return nil, fmt.Errorf("unknown expectation %q (want one of %s)", kind, strings.Join(Kinds, ", "))
}

// quote shows an answer in a reason: quoted, on one line, at most n runes.
func quote(s string, n int) string {
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func shortJSON(v json.RawMessage) string {
	s := strings.TrimSpace(string(v))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	if s == "" {
		return "nothing"
	}
	return s
}
