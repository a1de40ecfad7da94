package dataset_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/trace"
)

var update = flag.Bool("update", false, "rewrite data/datasets/arith.jsonl")

func TestReadEveryKind(t *testing.T) {
	src := "\xef\xbb\xbf" + `{"prompt":"What is 2 + 2? Reply with the number only.","expect":{"exact":"4"}}
{"prompt":"Capital of France?","expect":{"contains":"Paris"},"id":"geo-1"}
{"prompt":"Yes or no?","expect":{"regex":"(?i)^\\s*(yes|no)\\b"}}
{"prompt":"A person as JSON","expect":{"json_schema":{"type":"object","required":["name"]}},"meta":{"source":"hand-written"}}
{"prompt":"Say hello."}
{"prompt":"Anything","expect":null}
`
	set, err := dataset.Read(strings.NewReader(src), "dir/questions.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if set.Name != "questions.jsonl" || len(set.Items) != 6 || set.Rated() != 4 {
		t.Fatalf("name %q, %d items, %d rated", set.Name, len(set.Items), set.Rated())
	}
	kinds := []string{"exact", "contains", "regex", "json_schema", "", ""}
	answers := []string{"4", "It is Paris.", "Yes.", `{"name":"Ada"}`, "", ""}
	for i, it := range set.Items {
		if got := name(it); got != kinds[i] {
			t.Errorf("item %d judge %q, want %q", i, got, kinds[i])
		}
		if it.Ref != "questions.jsonl:"+strconv.Itoa(i+1) {
			t.Errorf("item %d ref %q", i, it.Ref)
		}
		if it.Judge != nil && !it.Judge.Judge(answers[i]).Pass {
			t.Errorf("item %d: %q does not pass: %+v", i, answers[i], it.Judge.Judge(answers[i]))
		}
	}
	if set.Items[0].Prompt != "What is 2 + 2? Reply with the number only." || set.Items[1].ID != "geo-1" {
		t.Errorf("items %+v", set.Items[:2])
	}
	if c := set.Conditions(); c["rated_items"] != 4 || c["judges"].(map[string]int)["regex"] != 1 {
		t.Errorf("conditions %v", c)
	}
	if got := strings.Join(set.JudgeNames(), ","); got != "contains,exact,json_schema,regex" {
		t.Errorf("judge names %s", got)
	}
}

func name(it dataset.Item) string {
	if it.Judge == nil {
		return ""
	}
	return it.Judge.Name()
}

// Every bad line stops the read with FILE:LINE: field: what is wrong,
// before anything is sent.
func TestBadLines(t *testing.T) {
	good := `{"prompt":"p","expect":{"exact":"1"}}` + "\n"
	for _, c := range []struct{ line, want string }{
		{``, "q.jsonl:2: blank line"},
		{`   `, "q.jsonl:2: blank line"},
		{`["p"]`, "q.jsonl:2: not a JSON object"},
		{`{"prompt":"p"`, "q.jsonl:2: not valid JSON"},
		{`{"prompt":"p"} {"prompt":"q"}`, "q.jsonl:2: data after the JSON object"},
		{`{"expect":{"exact":"1"}}`, "q.jsonl:2: prompt: missing required field"},
		{`{"prompt":"  "}`, "q.jsonl:2: prompt: is empty"},
		{`{"prompt":7}`, "q.jsonl:2: prompt: is a JSON number, want string"},
		{`{"prompt":"p","expcet":{"exact":"1"}}`, `q.jsonl:2: expcet: unknown field`},
		{`{"prompt":"p","expect":"4"}`, "q.jsonl:2: expect: want an object"},
		{`{"prompt":"p","expect":{}}`, "q.jsonl:2: expect: is empty"},
		{`{"prompt":"p","expect":{"exact":"1","regex":"1"}}`, "q.jsonl:2: expect: gives 2 expectations (exact, regex)"},
		{`{"prompt":"p","expect":{"exactly":"1"}}`, `q.jsonl:2: expect.exactly: unknown expectation "exactly"`},
		{`{"prompt":"p","expect":{"exact":4}}`, "q.jsonl:2: expect.exact: want a JSON string, got 4"},
		{`{"prompt":"p","expect":{"contains":""}}`, "q.jsonl:2: expect.contains: contains: the expected text is empty"},
		{`{"prompt":"p","expect":{"regex":"([0-9]+"}}`, "q.jsonl:2: expect.regex: regex \"([0-9]+\": error parsing regexp: missing closing )"},
		{`{"prompt":"p","expect":{"json_schema":{"type":"objekt"}}}`, "q.jsonl:2: expect.json_schema: json_schema: invalid schema: schema at /type"},
		{`{"prompt":"p","expect":{"json_schema":{"$ref":"x.json"}}}`, "q.jsonl:2: expect.json_schema: json_schema: invalid schema"},
		{`{"prompt":"p","expect":{"json_schema":"object"}}`, "q.jsonl:2: expect.json_schema: json_schema: want a schema object"},
	} {
		_, err := dataset.Read(strings.NewReader(good+c.line+"\n"+good), "q.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("line %s: got %v, want %q", c.line, err, c.want)
		}
		if !trace.IsBadInput(err) {
			t.Errorf("line %s: %T is not bad input (the CLI exits 2 on bad input)", c.line, err)
		}
	}
	if _, err := dataset.Read(strings.NewReader(""), "empty.jsonl"); err == nil || !strings.Contains(err.Error(), "empty.jsonl: no prompts") {
		t.Errorf("empty file: %v", err)
	}
	long := `{"prompt":"` + strings.Repeat("x", dataset.MaxLineBytes) + `"}`
	if _, err := dataset.Read(strings.NewReader(good+long), "big.jsonl"); err == nil || !strings.Contains(err.Error(), "big.jsonl:2: line is longer") {
		t.Errorf("long line: %v", err)
	}
}

func TestLoad(t *testing.T) {
	set, err := dataset.Load("arith", 3)
	if err != nil || set.Name != "arith" || len(set.Items) != dataset.ArithSize || set.Rated() != dataset.ArithSize {
		t.Fatalf("arith: %v %+v", err, set)
	}
	if _, err := dataset.Load("arithmetic", 1); err == nil || !strings.Contains(err.Error(), "no built-in dataset of that name (built in: arith)") {
		t.Errorf("unknown name: %v", err)
	}
	p := filepath.Join(t.TempDir(), "q.jsonl")
	os.WriteFile(p, []byte(`{"prompt":"hi"}`+"\n"), 0o644)
	if set, err := dataset.Load(p, 1); err != nil || set.Rated() != 0 || set.Items[0].Ref != "q.jsonl:1" {
		t.Errorf("file: %v %+v", err, set)
	}
	if _, err := dataset.Load(filepath.Join(t.TempDir(), "missing.jsonl"), 1); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

// arith is deterministic per seed, its questions are varied, and every
// answer is right: SolveArith agrees with the judge on every item.
func TestArith(t *testing.T) {
	a, b, c := dataset.Arith(1, 500), dataset.Arith(1, 500), dataset.Arith(2, 500)
	same, ops := 0, map[string]int{}
	for i := range a.Items {
		if a.Items[i].Prompt != b.Items[i].Prompt {
			t.Fatalf("seed 1 differs at %d", i)
		}
		if a.Items[i].Prompt == c.Items[i].Prompt {
			same++
		}
		p := a.Items[i].Prompt
		for _, op := range []string{" + ", " - ", " * "} {
			if strings.Contains(p, op) {
				ops[op]++
			}
		}
		ans, ok := dataset.SolveArith(p)
		if !ok {
			t.Fatalf("SolveArith(%q) not ok", p)
		}
		if v := a.Items[i].Judge.Judge(strconv.FormatInt(ans, 10)); !v.Pass {
			t.Fatalf("%q: %d judged %+v", p, ans, v)
		}
		if v := a.Items[i].Judge.Judge(strconv.FormatInt(ans+1, 10)); v.Pass {
			t.Fatalf("%q: a wrong answer passes", p)
		}
	}
	if same > 10 || len(ops) != 3 || ops[" * "] < 100 {
		t.Errorf("seeds 1 and 2 share %d of 500 questions; operators %v", same, ops)
	}
	if _, ok := dataset.SolveArith("hello world"); ok {
		t.Error("SolveArith answered a prompt that is no question")
	}
	if v, ok := dataset.SolveArith("<|user|>What is 12 * 3? Reply with the number only.<|assistant|>"); !ok || v != 36 {
		t.Errorf("wrapped question: %d %v", v, ok)
	}
}

// data/datasets/arith.jsonl is --dataset arith with the default seed, so
// that other tools (vLLM's --dataset-name custom) can send the same
// prompts and `coursekit import --dataset` can judge their answers.
func TestCommittedArithFile(t *testing.T) {
	var buf bytes.Buffer
	if err := dataset.WriteArith(&buf, 1, dataset.ArithSize); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "data", "datasets", "arith.jsonl")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate with go test ./coursekit/dataset -run CommittedArith -update)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatal("data/datasets/arith.jsonl differs from dataset.WriteArith(seed 1); regenerate with -update")
	}
	set, err := dataset.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	builtin := dataset.Arith(1, dataset.ArithSize)
	for i := range set.Items {
		if set.Items[i].Prompt != builtin.Items[i].Prompt || set.Items[i].Judge.Name() != "exact" {
			t.Fatalf("line %d differs from the built-in set", i+1)
		}
	}
}
