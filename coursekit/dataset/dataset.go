// Package dataset holds the prompts of a measurement and, for each, the
// expectation a good answer must meet: what turns "the server answered"
// into "the server answered correctly", so that goodput can be more than 0.
//
// A dataset is the built-in `arith` (seeded arithmetic questions with exact
// answers, offline) or a JSON Lines file, one prompt per line:
//
//	{"prompt": "What is 2 + 2? Reply with the number only.", "expect": {"exact": "4"}}
//	{"prompt": "Name a primary colour.", "expect": {"regex": "(?i)red|blue|yellow"}}
//	{"prompt": "Say hello."}
//
// "expect" names one judge kind (exact, contains, regex, json_schema, see
// package judge); a line without it is sent but stays unrated. Every line
// is checked and every judge built when the file is read: a bad line stops
// the run before it starts, as FILE:LINE: field: what is wrong.
package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmperf-course/course/coursekit/judge"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Item is one prompt and how its answer is judged.
type Item struct {
	Prompt string
	// Judge is nil for a prompt without an expectation: its answers stay
	// unrated (never a pass).
	Judge judge.Judge
	// Ref says where the item comes from, for traces: "arith:17" or
	// "questions.jsonl:3" (the file's base name and line).
	Ref string
	// ID is the line's optional "id".
	ID string
}

// Set is a whole dataset, in order.
type Set struct {
	// Name is "arith" or the file's base name.
	Name string
	// Seed is the arith generator's seed (0 for a file).
	Seed  uint64
	Items []Item
}

// Rated counts the items with an expectation.
func (s *Set) Rated() int {
	n := 0
	for _, it := range s.Items {
		if it.Judge != nil {
			n++
		}
	}
	return n
}

// Judges counts the items of each judge kind.
func (s *Set) Judges() map[string]int {
	m := map[string]int{}
	for _, it := range s.Items {
		if it.Judge != nil {
			m[it.Judge.Name()]++
		}
	}
	return m
}

// JudgeNames lists the judge kinds used, sorted.
func (s *Set) JudgeNames() []string {
	var l []string
	for k := range s.Judges() {
		l = append(l, k)
	}
	sort.Strings(l)
	return l
}

// Conditions describes the set for a trace header's condition list.
func (s *Set) Conditions() map[string]any {
	m := map[string]any{
		"name":        s.Name,
		"items":       len(s.Items),
		"rated_items": s.Rated(),
		"judges":      s.Judges(),
	}
	if s.Name == ArithName {
		m["seed"] = s.Seed
	}
	return m
}

// Load is the CLI's --dataset NAME|FILE: the built-in "arith" (seeded by
// seed), else a JSON Lines file.
func Load(spec string, seed uint64) (*Set, error) {
	if spec == ArithName {
		return Arith(seed, ArithSize), nil
	}
	set, err := ReadFile(spec)
	if errors.Is(err, os.ErrNotExist) && !strings.ContainsAny(spec, `/\.`) {
		return nil, fmt.Errorf("--dataset %q: no such file, and no built-in dataset of that name (built in: %s)", spec, ArithName)
	}
	return set, err
}

// ReadFile reads a JSON Lines dataset.
func ReadFile(path string) (*Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// MaxLineBytes bounds one dataset line.
const MaxLineBytes = 16 << 20

// line is one dataset line as written.
type line struct {
	Prompt *string          `json:"prompt"`
	Expect *json.RawMessage `json:"expect"`
	ID     string           `json:"id"`
	Meta   json.RawMessage  `json:"meta"`
}

// Read reads a JSON Lines dataset; name locates errors (FILE:LINE).
func Read(r io.Reader, name string) (*Set, error) {
	set := &Set{Name: filepath.Base(name)}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes)
	n := 0
	for sc.Scan() {
		n++
		b := sc.Bytes()
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")) // a byte-order mark from a Windows editor
		}
		it, err := parseLine(b, set.Name, n)
		if err != nil {
			return nil, locate(err, name, n)
		}
		set.Items = append(set.Items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &trace.Error{File: name, Line: n + 1, Msg: fmt.Sprintf("line is longer than %d MiB", MaxLineBytes>>20)}
		}
		return nil, &trace.Error{File: name, Line: n + 1, Msg: "read error: " + err.Error()}
	}
	if len(set.Items) == 0 {
		return nil, &trace.Error{File: name, Msg: `no prompts: a dataset has one {"prompt": …, "expect": {…}} object per line`}
	}
	return set, nil
}

func locate(err error, file string, n int) error {
	var te *trace.Error
	if errors.As(err, &te) {
		c := *te
		c.File, c.Line = file, n
		return &c
	}
	return &trace.Error{File: file, Line: n, Msg: err.Error()}
}

func fieldErr(field, msg string) error { return &trace.Error{Field: field, Msg: msg} }

func parseLine(b []byte, base string, n int) (Item, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return Item{}, errors.New(`blank line: every line is one {"prompt": …} object (a blank line would shift the prompt order that imports are judged by)`)
	}
	if b[0] != '{' {
		return Item{}, errors.New(`not a JSON object: every line is one {"prompt": …, "expect": {…}} object`)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var l line
	if err := d.Decode(&l); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field != "":
			return Item{}, fieldErr(te.Field, fmt.Sprintf("is a JSON %s, want %s", te.Value, te.Type))
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
			return Item{}, fieldErr(f, `unknown field (a dataset line has "prompt", "expect", "id" and "meta"; put other data under "meta")`)
		}
		if msg, ok := trace.LineNotJSON(err); ok {
			return Item{}, errors.New(msg)
		}
		return Item{}, errors.New("not valid JSON: " + err.Error())
	}
	if d.More() {
		return Item{}, errors.New("data after the JSON object: one object per line")
	}
	if l.Prompt == nil {
		return Item{}, fieldErr("prompt", "missing required field")
	}
	if strings.TrimSpace(*l.Prompt) == "" {
		return Item{}, fieldErr("prompt", "is empty")
	}
	it := Item{Prompt: *l.Prompt, ID: l.ID, Ref: fmt.Sprintf("%s:%d", base, n)}
	if l.Expect != nil && string(bytes.TrimSpace(*l.Expect)) != "null" {
		j, err := parseExpect(*l.Expect)
		if err != nil {
			return Item{}, err
		}
		it.Judge = j
	}
	return it, nil
}

// parseExpect builds the judge of an "expect" object: exactly one kind.
func parseExpect(raw json.RawMessage) (judge.Judge, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, fieldErr("expect", fmt.Sprintf(`want an object such as {"exact": "4"} with one of %s`, strings.Join(judge.Kinds, ", ")))
	}
	if len(m) != 1 {
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if len(keys) == 0 {
			return nil, fieldErr("expect", fmt.Sprintf("is empty: give one of %s (or leave expect out for an unrated prompt)", strings.Join(judge.Kinds, ", ")))
		}
		return nil, fieldErr("expect", fmt.Sprintf("gives %d expectations (%s): give exactly one", len(keys), strings.Join(keys, ", ")))
	}
	for kind, v := range m {
		j, err := judge.New(kind, v)
		if err != nil {
			return nil, fieldErr("expect."+kind, err.Error())
		}
		return j, nil
	}
	panic("unreachable")
}
