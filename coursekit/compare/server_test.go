package compare_test

import (
	"encoding/json"
	"testing"

	"github.com/llmperf-course/course/coursekit/compare"
	"github.com/llmperf-course/course/coursekit/trace"
)

// The server a run was pointed at (meta.url, by its origin: scheme, host
// and port; never a path or credentials) is compared whatever the
// conditions say, engine settings included (the fifth engineer walk: once a
// trace had an engine.* condition, two traces differing only in their URL
// read "same conditions", and one side without engine.* read "server: URL →
// none"). Only the conditions' own server, where they give one (the lab's
// engine, started on whatever port is free), stands in for the URL.
func TestServerIsAlwaysACondition(t *testing.T) {
	o := compare.Options{}
	g := failing(40, 4)
	at := func(conditions, url string) *trace.Trace {
		tr := withConditions(g, conditions)
		tr.Header.Meta = json.RawMessage(`{"url":"` + url + `"}`)
		return tr
	}
	changed := func(a, b *trace.Trace) map[string][2]string {
		r, err := compare.Compare([]compare.Run{run(a, "a.jsonl", o)}, []compare.Run{run(b, "b.jsonl", o)}, o)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][2]string{}
		for _, c := range r.ConditionsChanged {
			out[c.Name] = [2]string{string(c.A), string(c.B)}
		}
		return out
	}
	eng := `{"engine":{"parallel":4}}`
	for _, c := range []struct {
		what string
		a, b *trace.Trace
		want map[string][2]string
	}{
		{"engine on both, URLs differ", at(eng, "http://10.0.0.1:8000/v1"), at(eng, "http://10.0.0.2:8000/v1"),
			map[string][2]string{"server": {`"http://10.0.0.1:8000"`, `"http://10.0.0.2:8000"`}}},
		{"engine on one side only, the same server", at(`{}`, "http://h:8000"), at(eng, "http://h:8000/v1"),
			map[string][2]string{"engine.parallel": {"null", "4"}}},
		{"credentials and paths are no part of the server", at(`{}`, "http://xxxxx@h:8000/a?x=1"), at(`{}`, "http://h:8000/b"),
			map[string][2]string{}},
		{"the conditions' own server stands", at(`{"server":"lab engine"}`, "http://127.0.0.1:4001"), at(`{"server":"lab engine"}`, "http://127.0.0.1:4002"),
			map[string][2]string{}},
	} {
		got := changed(c.a, c.b)
		if len(got) != len(c.want) {
			t.Errorf("%s: changed %v, want %v", c.what, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s = %v, want %v", c.what, k, got[k], v)
			}
		}
	}
}
