package execute

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// RestoreReport says what Restore changed, for the instructor's log.
type RestoreReport struct {
	Replaced   []string // locked cells put back to the release's source
	Inserted   []string // locked cells missing from the submission, put back
	Duplicates []string // extra copies of a locked cell, removed
}

// Changed reports whether the submission's locked cells differed from the
// release in any way Restore repaired.
func (r RestoreReport) Changed() bool {
	return len(r.Replaced)+len(r.Inserted)+len(r.Duplicates) > 0
}

// Restore prepares a submission for re-execution: every locked cell of
// personal (the learner's release, from Personalize) is put back exactly
// as released, whatever the learner did to it, so that re-running checks
// the learner's card with the course's own data loading and self-check,
// never an edited one. Locked cells are found by matchLocked, the matcher
// the integrity report uses (id; without ids, signature, role, position),
// so the cells restored are the ones reported. Extra copies are dropped,
// a locked cell found nowhere is inserted after the nearest locked cell
// before it, and every output is cleared. The learner's own cells are kept
// as they are.
func Restore(key, personal, submitted []byte) ([]byte, RestoreReport, error) {
	var rep RestoreReport
	meta, err := releaseMeta(personal)
	if err != nil {
		return nil, rep, err
	}
	_, relCells, err := splitNotebook(personal)
	if err != nil {
		return nil, rep, fmt.Errorf("release: %w", err)
	}
	relByID := map[string]map[string]json.RawMessage{}
	for _, c := range relCells {
		relByID[cellString(c, "id")] = c
	}
	subNB, subCells, err := splitNotebook(submitted)
	if err != nil {
		return nil, rep, fmt.Errorf("submission: %w", err)
	}
	nb, err := notebook.ParseNotebook(submitted)
	if err != nil {
		return nil, rep, fmt.Errorf("submission: %w", err)
	}
	matched, _ := integrity.MatchLocked(key, nb, meta)
	lockedAt := map[int]int{} // submitted cell index -> locked cell k
	drop := map[int]bool{}
	for k, cs := range matched {
		for j, c := range cs {
			if j == 0 {
				lockedAt[c.Index] = k
			} else {
				drop[c.Index] = true
				rep.Duplicates = append(rep.Duplicates, meta.Locked[k].ID)
			}
		}
	}

	var out []map[string]json.RawMessage
	placed := map[int]int{} // locked cell k -> index in out
	for i, c := range subCells {
		if drop[i] {
			continue
		}
		if k, ok := lockedAt[i]; ok {
			rc := relByID[meta.Locked[k].ID]
			if cellString(c, "cell_type") != cellString(rc, "cell_type") || sourceOf(c) != sourceOf(rc) {
				rep.Replaced = append(rep.Replaced, meta.Locked[k].ID)
			}
			c = rc
			placed[k] = len(out)
		}
		out = append(out, clearOutputs(c))
	}
	for k, l := range meta.Locked {
		if _, ok := placed[k]; ok {
			continue
		}
		at := 0
		for j := k - 1; j >= 0; j-- {
			if p, ok := placed[j]; ok {
				at = p + 1
				break
			}
		}
		out = slices.Insert(out, at, clearOutputs(relByID[l.ID]))
		for j, p := range placed {
			if p >= at {
				placed[j] = p + 1
			}
		}
		placed[k] = at
		rep.Inserted = append(rep.Inserted, l.ID)
	}
	cells, err := notebook.MarshalRaw(out)
	if err != nil {
		return nil, rep, err
	}
	subNB["cells"] = cells
	b, err := notebook.MarshalNotebook(subNB)
	return b, rep, err
}

// splitNotebook decodes a notebook's top level and its cells, keeping
// everything else verbatim.
func splitNotebook(b []byte) (map[string]json.RawMessage, []map[string]json.RawMessage, error) {
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, nil, err
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, nil, fmt.Errorf("cells: %w", err)
	}
	return nb, cells, nil
}

// releaseMeta is the assignment record of a personalized release.
func releaseMeta(personal []byte) (*notebook.AssignmentMeta, error) {
	nb, err := notebook.ParseNotebook(personal)
	if err != nil {
		return nil, fmt.Errorf("release: %w", err)
	}
	if nb.Assignment == nil || len(nb.Assignment.Locked) == 0 {
		return nil, fmt.Errorf("release: no assignment record with locked cells (was it made by Personalize?)")
	}
	return nb.Assignment, nil
}

func cellString(c map[string]json.RawMessage, key string) string {
	var s string
	json.Unmarshal(c[key], &s)
	return s
}

func sourceOf(c map[string]json.RawMessage) string {
	s, _ := notebook.Multiline(c["source"])
	return s
}

func cloneCell(c map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(c))
	for k, v := range c {
		out[k] = v
	}
	return out
}

// clearOutputs drops a code cell's outputs and execution count; the
// executed copy must hold only what the re-run produced.
func clearOutputs(c map[string]json.RawMessage) map[string]json.RawMessage {
	if cellString(c, "cell_type") != "code" {
		return c
	}
	c = cloneCell(c)
	c["outputs"] = json.RawMessage("[]")
	c["execution_count"] = json.RawMessage("null")
	return c
}
