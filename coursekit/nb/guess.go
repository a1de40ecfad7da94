package nb

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Guess is a yes/no prediction with a third state: not made yet. A bool
// cannot say "not made yet", so a bool prediction had to be pre-filled
// (often with the wrong answer) and Compare would check it as if the
// learner had guessed. The zero value is Undecided, so a field left out of
// a literal is unset too.
type Guess int8

const (
	// Undecided is a prediction not written yet; Compare refuses to check it
	// and keeps the computed value hidden.
	Undecided Guess = iota
	// Yes predicts that the statement holds.
	Yes
	// No predicts that it does not.
	No
)

// String is how a cell prints the guess: 是, 否 or 未填.
func (g Guess) String() string {
	switch g {
	case Yes:
		return "是"
	case No:
		return "否"
	case Undecided:
		return "未填"
	}
	return fmt.Sprintf("无效的预测（%d）：只能填 nb.Yes 或 nb.No", int8(g))
}

// Guessed reports whether every guess has been written (no Unset number,
// no Undecided Guess, no "?" text). A cell that would show an answer calls
// it first and shows nothing until the predictions are in, so the answer
// is never on screen before its check. A struct argument (a notebook's
// prediction literal) counts each exported field as one guess, named by
// its type and field name (Prediction.TTFTMS), so a cell can pass the
// whole prediction. When a guess is
// missing it prints which one and why the cell shows nothing.
func Guessed(guesses ...any) bool {
	missing, n, structs := unwritten(guesses)
	switch {
	case len(missing) == 0:
		return true
	case structs:
		fmt.Printf("这个单元格会显示答案，所以要等你写下全部预测（还没填：%s）：先改好上面的预测单元格并运行它，再运行本单元格。\n", strings.Join(missing, "、"))
	case n == 1:
		fmt.Println("这个单元格会显示答案，所以要等你写下预测：先把上面预测单元格里的占位值改成你的答案，运行它，再运行本单元格。")
	default:
		fmt.Printf("这个单元格会显示答案，所以要等你写下全部 %d 项预测（第 %s 项还没填）：先改好上面的预测单元格并运行它，再运行本单元格。\n", n, strings.Join(missing, "、"))
	}
	return false
}

// Written is Guessed without a word: whether every guess has been
// written. A lab run that prints progress while it lasts asks it, to keep
// the counts out of its lines until the prediction is in.
func Written(guesses ...any) bool {
	missing, _, _ := unwritten(guesses)
	return len(missing) == 0
}

// unwritten names the guesses not written yet: struct fields as
// Type.Field, other arguments by their place (1, 2, ...); n counts the
// guesses and structs says whether any argument was a struct.
func unwritten(guesses []any) (missing []string, n int, structs bool) {
	for _, g := range guesses {
		if v := reflect.ValueOf(g); v.Kind() == reflect.Struct {
			structs = true
			for i := 0; i < v.NumField(); i++ {
				if f := v.Type().Field(i); f.IsExported() {
					n++
					if isUnset(v.Field(i).Interface()) {
						// Type.Field, as Go code names it: a bare field name
						// such as Qualified would read as English in a Chinese line.
						// An anonymous struct has no type name to give.
						name := f.Name
						if t := v.Type().Name(); t != "" {
							name = t + "." + name
						}
						missing = append(missing, name)
					}
				}
			}
			continue
		}
		n++
		if isUnset(g) {
			missing = append(missing, strconv.Itoa(n))
		}
	}
	return missing, n, structs
}
