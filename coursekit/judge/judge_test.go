package judge_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/llmperf-course/course/coursekit/judge"
)

func mustNew(t *testing.T, kind, value string) judge.Judge {
	t.Helper()
	j, err := judge.New(kind, json.RawMessage(value))
	if err != nil {
		t.Fatalf("New(%s, %s): %v", kind, value, err)
	}
	if j.Name() != kind {
		t.Fatalf("Name() = %q, want %q", j.Name(), kind)
	}
	return j
}

type verdictCase struct {
	answer string
	pass   bool
	reason string // a part of the reason
}

func check(t *testing.T, j judge.Judge, cases []verdictCase) {
	t.Helper()
	for _, c := range cases {
		v := j.Judge(c.answer)
		if v.Pass != c.pass || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("%s.Judge(%q) = %+v, want pass %v with %q in the reason", j.Name(), c.answer, v, c.pass, c.reason)
		}
		if v.Reason == "" || strings.Contains(v.Reason, "\n") {
			t.Errorf("%s.Judge(%q): reason %q is empty or not one line", j.Name(), c.answer, v.Reason)
		}
	}
}

func TestExact(t *testing.T) {
	j := mustNew(t, "exact", `"42"`)
	check(t, j, []verdictCase{
		{"42", true, `"42"`},
		{" 42\n", true, ""}, // surrounding white space is trimmed
		{"41", false, `want "42", got "41"`},
		{"42.", false, "got"},
		{"4 2", false, ""},
		{"", false, `got ""`},
		{"The answer is 42", false, ""},
	})
	// Case counts.
	check(t, mustNew(t, "exact", `"Paris"`), []verdictCase{{"paris", false, ""}, {"Paris", true, ""}})
}

func TestContains(t *testing.T) {
	check(t, mustNew(t, "contains", `"Paris"`), []verdictCase{
		{"The capital is Paris.", true, "contains"},
		{"the capital is paris", false, `no "Paris"`},
		{"", false, ""},
	})
}

func TestRegex(t *testing.T) {
	check(t, mustNew(t, "regex", `"^\\s*-?[0-9]+\\s*$"`), []verdictCase{
		{"-17", true, "matches"},
		{" 17 \n", true, ""},
		{"17 apples", false, "does not match"},
	})
	// Unanchored: anywhere in the answer; (?i) and (?s) work.
	check(t, mustNew(t, "regex", `"(?i)answer: *yes"`), []verdictCase{{"My ANSWER: yes!", true, `"ANSWER: yes"`}, {"answer: no", false, ""}})
}

func TestJSONSchema(t *testing.T) {
	j := mustNew(t, "json_schema", `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name","age"],"additionalProperties":false}`)
	check(t, j, []verdictCase{
		{`{"name":"Ada","age":36}`, true, "valid"},
		{"```json\n{\"name\":\"Ada\",\"age\":36}\n```", true, "valid"}, // one Markdown fence is unwrapped
		{` {"name":"Ada","age":36} `, true, ""},
		{`{"name":"Ada","age":"36"}`, false, "at /age"},
		{`{"name":"Ada"}`, false, "age"},
		{`{"name":"Ada","age":36,"x":1}`, false, "x"},
		{`{"name":"Ada","age":-1}`, false, "at /age"},
		{`Sure! {"name":"Ada","age":36}`, false, "not one JSON value"},
		{`{"name":"Ada","age":36} {}`, false, "not one JSON value"},
		{``, false, "not one JSON value"},
	})
	// Boolean schemas and a named older draft.
	check(t, mustNew(t, "json_schema", `true`), []verdictCase{{`[1,2]`, true, ""}, {`nope`, false, "not one JSON value"}})
	check(t, mustNew(t, "json_schema", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":{"type":"number"}}`),
		[]verdictCase{{`[1, 2.5]`, true, ""}, {`[1, "2"]`, false, "at /1"}})
}

// Every bad expectation is an error when the judge is built, before any
// answer is judged: a typo must not turn into "fail" on every answer.
func TestBadExpectations(t *testing.T) {
	for _, c := range []struct{ kind, value, msg string }{
		{"exact", `42`, "want a JSON string, got 42"},
		{"exact", `"  "`, "empty"},
		{"contains", `""`, "pass every answer"},
		{"contains", `["a"]`, "want a JSON string"},
		{"regex", `"("`, "missing closing )"},
		{"regex", `"a{2,1}"`, "invalid repeat count"},
		{"regex", `"(?<name"`, "regex"},
		{"regex", `"\\p{Nope}"`, "invalid character class range"},
		{"regex", `""`, "empty"},
		{"json_schema", `"object"`, "want a schema object"},
		{"json_schema", `{"type":"objekt"}`, "invalid schema: schema at /type: value must be one of"},
		{"json_schema", `{"type":"integer","minimum":"zero"}`, "schema at /minimum"},
		{"json_schema", `{"properties":{"a":{"pattern":"("}}}`, "schema at /properties/a/pattern"},
		{"json_schema", `{"$ref":"other.json"}`, "self-contained"},
		{"json_schema", `{"$ref":"https://example.com/schema.json"}`, "self-contained"},
		{"json_schema", `{"type":`, "not valid JSON"},
		{"rubric", `"be nice"`, `unknown expectation "rubric" (want one of exact, contains, regex, json_schema)`},
	} {
		j, err := judge.New(c.kind, json.RawMessage(c.value))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("New(%s, %s) = %v, %v; want an error with %q", c.kind, c.value, j, err, c.msg)
		}
	}
}

// Judges are shared by the load client's judging goroutines.
func TestJudgesAreSafeForConcurrentUse(t *testing.T) {
	js := []judge.Judge{
		mustNew(t, "exact", `"7"`), mustNew(t, "contains", `"7"`), mustNew(t, "regex", `"^7$"`),
		mustNew(t, "json_schema", `{"type":"integer","const":7}`),
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 200 {
				for _, j := range js {
					ans := "7"
					if i%2 == 1 {
						ans = "8"
					}
					if v := j.Judge(ans); v.Pass != (i%2 == 0) {
						t.Errorf("%s.Judge(%q) = %+v", j.Name(), ans, v)
						return
					}
				}
			}
		})
	}
	wg.Wait()
}
