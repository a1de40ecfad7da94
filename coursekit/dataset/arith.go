package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"regexp"
	"strconv"

	"github.com/llmperf-course/course/coursekit/judge"
)

// ArithName is the built-in dataset's --dataset name.
const ArithName = "arith"

// ArithSize is how many questions --dataset arith holds; a longer run
// sends them again in the same order.
const ArithSize = 1000

// Arith is n short arithmetic questions with exact answers, the same for
// the same seed on every machine: a + b, a − b or a × b with a, b in
// [2, 99]. Each asks for the number only and is judged exactly, so a
// server's answers can be rated with no model and no network.
func Arith(seed uint64, n int) *Set {
	rng := rand.New(rand.NewPCG(seed, 0x617269746800)) // "arith"
	set := &Set{Name: ArithName, Seed: seed, Items: make([]Item, n)}
	for i := range set.Items {
		a, b := 2+rng.IntN(98), 2+rng.IntN(98)
		op := "+-*"[rng.IntN(3)]
		want := strconv.FormatInt(apply(int64(a), op, int64(b)), 10)
		j, _ := judge.NewExact(want) // never empty
		set.Items[i] = Item{
			Prompt: fmt.Sprintf("What is %d %c %d? Reply with the number only.", a, op, b),
			Judge:  j,
			Ref:    fmt.Sprintf("%s:%d", ArithName, i+1),
		}
	}
	return set
}

func apply(a int64, op byte, b int64) int64 {
	switch op {
	case '+':
		return a + b
	case '-':
		return a - b
	}
	return a * b
}

var arithQuestion = regexp.MustCompile(`What is (\d{1,9}) ([-+*]) (\d{1,9})\?`)

// SolveArith answers an arith question found anywhere in prompt (a chat
// template may wrap it); ok is false for any other prompt. The simulator
// uses it to answer correctly, or wrong on purpose.
func SolveArith(prompt string) (answer int64, ok bool) {
	m := arithQuestion.FindStringSubmatch(prompt)
	if m == nil {
		return 0, false
	}
	a, _ := strconv.ParseInt(m[1], 10, 64)
	b, _ := strconv.ParseInt(m[3], 10, 64)
	return apply(a, m[2][0], b), true
}

// WriteArith writes Arith(seed, n) as a JSON Lines dataset, the format
// Read reads (and vLLM's `--dataset-name custom` takes: it reads "prompt").
func WriteArith(w io.Writer, seed uint64, n int) error {
	for _, it := range Arith(seed, n).Items {
		want := it.Judge.(*judge.Exact)
		b, err := json.Marshal(struct {
			Prompt string            `json:"prompt"`
			Expect map[string]string `json:"expect"`
		}{it.Prompt, map[string]string{"exact": want.Want()}})
		if err != nil {
			return err
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}
