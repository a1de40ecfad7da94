package criteria

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/csvtext"
)

// Criterion weights: the instructor's choice of how many points each
// criterion is worth. One "<" for "≤" mistake costs a point in each of
// qualified, rate, goodput and cost by default; a weights file can make it
// cost less (or more).

// WeightIDs is every criterion a weights file may name, in report order:
// CriterionIDs, then the execution criterion (used with --execute).
func WeightIDs() []string { return append(CriterionIDs(), ExecutionID) }

// WriteWeights writes points as a weights file (CSV: criterion,points),
// every criterion in report order: the starting file for --weights.
func WriteWeights(w io.Writer, points map[string]float64) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"criterion", "points"})
	for _, id := range WeightIDs() {
		p, ok := points[id]
		if !ok && id == ExecutionID {
			p = DefaultExecutionPoints
		}
		cw.Write([]string{id, FmtPts(p)})
	}
	cw.Flush()
	return cw.Error()
}

// ReadWeights reads a weights file: one criterion id and its points per
// line, comma- or tab-separated (CSV or TSV, as a spreadsheet saves it),
// an optional header line "criterion,points", blank lines and lines
// starting with # skipped. A criterion the file does not name keeps its
// default points (DefaultPoints). Every bad line is an error naming
// name:LINE: an unknown criterion id, points that are not a finite
// number ≥ 0, a criterion named twice, a line without two fields.
func ReadWeights(r io.Reader, name string) (map[string]float64, error) {
	points := DefaultPoints()
	known := WeightIDs()
	seen := map[string]int{}
	var errs []string
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "\ufeff"))
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		bad := func(format string, a ...any) {
			errs = append(errs, fmt.Sprintf("%s:%d: %s", name, line, fmt.Sprintf(format, a...)))
		}
		sep := ','
		if strings.ContainsRune(text, '\t') {
			sep = '\t'
		}
		cr := csv.NewReader(strings.NewReader(text))
		cr.Comma, cr.FieldsPerRecord, cr.TrimLeadingSpace = sep, -1, true
		fields, err := cr.Read()
		if err != nil {
			bad("%v", err)
			continue
		}
		if len(fields) < 2 {
			bad("want a criterion id and its points, got %q", text)
			continue
		}
		id, num := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		if len(seen) == 0 && len(errs) == 0 && (strings.EqualFold(id, "criterion") || strings.EqualFold(id, "id")) {
			continue // the header
		}
		if !slices.Contains(known, id) {
			bad("unknown criterion id %q (`coursekit grade --print-weights` lists them)", id)
			continue
		}
		// A criterion named twice is reported whether or not either
		// line's points are good: every bad line in one pass.
		first, dup := seen[id]
		if dup {
			bad("%s is given twice (first on line %d)", id, first)
		} else {
			seen[id] = line
		}
		p, err := ParseDecimal(num)
		if err != nil || p < 0 {
			bad("points %q for %s: want a plain decimal number ≥ 0 (such as 2 or 1.5)", num, id)
			continue
		}
		if !dup {
			points[id] = p
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	if len(seen) == 0 {
		return nil, fmt.Errorf("%s: no criterion weights (want lines like \"stated.attempts,1\")", name)
	}
	return points, nil
}

// plainDecimal is a number as a person types it: digits with an optional
// fraction, and an optional sign (3, 1.5, .5, -0).
var plainDecimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// ParseDecimal reads a typed score or weight. Only a plain decimal number
// is one: strconv.ParseFloat also takes "3_0" (30), "0x1p1", "1e0" and
// "Inf", which a spreadsheet does not read as that number. -0 is 0, so
// that no output shows "-0".
func ParseDecimal(s string) (float64, error) {
	if !plainDecimal.MatchString(s) {
		return 0, fmt.Errorf("%q is not a plain decimal number", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, err
	}
	if v == 0 {
		v = 0 // not -0
	}
	return v, nil
}

// ReadWeightsFile is ReadWeights of a file, errors named by its path.
// enc is csvtext.GB18030 when the file was not UTF-8 and was decoded
// from GB18030 (the caller warns), "" for UTF-8.
func ReadWeightsFile(path string) (points map[string]float64, enc string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	text, enc, err := csvtext.Decode(b, path)
	if err != nil {
		return nil, "", err
	}
	points, err = ReadWeights(bytes.NewReader(text), path)
	return points, enc, err
}
