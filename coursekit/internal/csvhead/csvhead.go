// Package csvhead checks a CSV header row for columns that name the same
// thing. coursekit matches its own columns ("id", "score", "lms_id") in any
// case, so a header with "score" and "Score", or "id" twice, would let the
// last one win silently; a spreadsheet, pandas or DuckDB would read the
// other. Readers refuse such headers, with where they are and both names,
// as the trace and notebook readers refuse JSON keys that differ only in
// case (internal/jsonkeys).
package csvhead

import (
	"fmt"
	"strings"

	"golang.org/x/text/cases"
)

// Clean is a header cell as readers compare it: a UTF-8 byte-order mark
// and surrounding spaces removed.
func Clean(h string) string { return strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) }

// DupError is two columns of one header whose names are equal, or equal
// but for case.
type DupError struct {
	First, Second     string // the names as headed
	FirstAt, SecondAt int    // 1-based column numbers
}

func (e *DupError) Error() string {
	if e.First == e.Second {
		return fmt.Sprintf("column %q appears twice (columns %d and %d): rename or delete one", e.First, e.FirstAt, e.SecondAt)
	}
	return fmt.Sprintf("columns %q (column %d) and %q (column %d) differ only in case, and coursekit reads column names in any case: rename or delete one", e.First, e.FirstAt, e.Second, e.SecondAt)
}

// Check returns a *DupError for the first pair of non-empty columns whose
// cleaned names are equal under Unicode case folding, or nil.
func Check(header []string) error {
	fold := cases.Fold()
	seen := map[string]int{}
	for i, h := range header {
		h = Clean(h)
		if h == "" {
			continue
		}
		k := fold.String(h)
		if j, dup := seen[k]; dup {
			return &DupError{First: Clean(header[j]), Second: h, FirstAt: j + 1, SecondAt: i + 1}
		}
		seen[k] = i
	}
	return nil
}
