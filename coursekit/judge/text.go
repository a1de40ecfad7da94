package judge

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Exact passes an answer equal to the expected text once leading and
// trailing white space is trimmed from both (models often add a newline or
// a leading space). Case and inner spacing count.
type Exact struct{ want string }

// NewExact builds an exact judge; an empty expectation is an error.
func NewExact(want string) (*Exact, error) {
	w := strings.TrimSpace(want)
	if w == "" {
		return nil, errors.New("exact: the expected answer is empty")
	}
	return &Exact{want: w}, nil
}

func (j *Exact) Name() string { return "exact" }

func (j *Exact) Judge(answer string) Verdict {
	got := strings.TrimSpace(answer)
	if got == j.want {
		return Verdict{Pass: true, Reason: "answer is " + quote(j.want, 40)}
	}
	return Verdict{Reason: fmt.Sprintf("want %s, got %s", quote(j.want, 40), quote(got, 40))}
}

// Contains passes an answer that contains the expected text, case
// sensitive.
type Contains struct{ want string }

// NewContains builds a contains judge; an empty expectation would pass
// every answer and is an error.
func NewContains(want string) (*Contains, error) {
	if want == "" {
		return nil, errors.New("contains: the expected text is empty (it would pass every answer)")
	}
	return &Contains{want: want}, nil
}

func (j *Contains) Name() string { return "contains" }

func (j *Contains) Judge(answer string) Verdict {
	if strings.Contains(answer, j.want) {
		return Verdict{Pass: true, Reason: "contains " + quote(j.want, 40)}
	}
	return Verdict{Reason: fmt.Sprintf("no %s in %s", quote(j.want, 40), quote(answer, 40))}
}

// Regex passes an answer the pattern matches anywhere (Go's RE2 syntax,
// https://pkg.go.dev/regexp/syntax; anchor with ^ and $ to match the whole
// answer, and (?s) lets . cross newlines).
type Regex struct {
	re  *regexp.Regexp
	src string
}

// NewRegex compiles the pattern; a syntax error, or a pattern that
// matches the empty string everywhere (it would pass every answer), is an
// error.
func NewRegex(pattern string) (*Regex, error) {
	if pattern == "" {
		return nil, errors.New("regex: the pattern is empty (it would pass every answer)")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regex %s: %v", quote(pattern, 60), err)
	}
	return &Regex{re: re, src: pattern}, nil
}

func (j *Regex) Name() string { return "regex" }

func (j *Regex) Judge(answer string) Verdict {
	if loc := j.re.FindStringIndex(answer); loc != nil {
		return Verdict{Pass: true, Reason: fmt.Sprintf("/%s/ matches %s", j.src, quote(answer[loc[0]:loc[1]], 30))}
	}
	return Verdict{Reason: fmt.Sprintf("/%s/ does not match %s", j.src, quote(answer, 40))}
}

// Want is the expected answer, trimmed.
func (j *Exact) Want() string { return j.want }
