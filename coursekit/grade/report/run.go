package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/criteria"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// RunFile is the record of a grading run, kept in OUT beside OutMarker
// (instructor only): what the run graded, with which weights, and every
// file it wrote. The next run into the same OUT reads it to keep the
// class whole (a partial run is refused), the weights the same, and
// every file the instructor added.
const RunFile = ".coursekit-run.json"

// Run is a grading run's record (RunFile).
type Run struct {
	// Inputs are the submissions given to the run (files, folders, zips),
	// as absolute paths, so that the next run can say the exact command
	// that grades the whole class again.
	Inputs []string `json:"inputs"`
	// Learners are the learners the run had a submission of.
	Learners []string `json:"learners"`
	// Weights are the points of every criterion in force.
	Weights map[string]float64 `json:"weights"`
	// Files is every file the run wrote into OUT (slash-separated, relative
	// to OUT) with its sha256: a file in OUT that is not here was added by
	// someone else, one whose hash differs was edited since.
	Files map[string]string `json:"files"`
}

// MaxRunBytes bounds the read of RunFile: it lists every file a run
// wrote, a few hundred bytes a learner.
const MaxRunBytes = 64 << 20

// ReadRun reads OUT's run record; nil, nil when OUT has none (a new OUT,
// or one written by an older coursekit).
func ReadRun(out string) (*Run, error) {
	b, err := regfile.Read(filepath.Join(out, RunFile), "a grading run's record", MaxRunBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w (move it away to grade without it)", filepath.Join(out, RunFile), err)
	}
	return &r, nil
}

// WriteRun writes r into dir (the staging folder).
func WriteRun(dir string, r *Run) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, RunFile), append(b, '\n'), 0o644)
}

// WeightChange is one criterion whose points differ between two runs.
type WeightChange struct {
	ID       string
	Was, Now float64
}

func (c WeightChange) String() string {
	return fmt.Sprintf("%s %s → %s", c.ID, criteria.FmtPts(c.Was), criteria.FmtPts(c.Now))
}

// DiffWeights lists the criteria whose points differ between was and now
// (nil means the defaults). execution is compared only when both have it:
// its weight applies with --execute only.
func DiffWeights(was, now map[string]float64) []WeightChange {
	def := criteria.DefaultPoints()
	get := func(m map[string]float64, id string) (float64, bool) {
		if m == nil {
			m = def
		}
		v, ok := m[id]
		if !ok && id != criteria.ExecutionID {
			v, ok = def[id], true
		}
		return v, ok
	}
	var out []WeightChange
	ids := slices.Sorted(maps.Keys(def))
	for _, id := range ids {
		a, okA := get(was, id)
		b, okB := get(now, id)
		if okA && okB && a != b {
			out = append(out, WeightChange{id, a, b})
		}
	}
	return out
}

// JoinChanges is changes as one line.
func JoinChanges(cs []WeightChange) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.String()
	}
	return strings.Join(s, ", ")
}
