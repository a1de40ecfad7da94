package grade

import (
	"encoding/json"
	"fmt"
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
// never an edited one. Cells are matched by id; a submission saved without
// ids (nbformat < 4.5) is matched by the cell's coursekit role, in order.
// Missing locked cells are inserted after the cell that precedes them in
// the release, duplicates are dropped, and every output is cleared. The
// learner's own cells are kept as they are.
func Restore(personal, submitted []byte) ([]byte, RestoreReport, error) {
	var rep RestoreReport
	_, relCells, err := splitNotebook(personal)
	if err != nil {
		return nil, rep, fmt.Errorf("release: %w", err)
	}
	subNB, subCells, err := splitNotebook(submitted)
	if err != nil {
		return nil, rep, fmt.Errorf("submission: %w", err)
	}
	meta, err := releaseMeta(personal)
	if err != nil {
		return nil, rep, err
	}
	locked := map[string]LockedCell{}
	for _, l := range meta.Locked {
		locked[l.ID] = l
	}
	relByID := map[string]map[string]json.RawMessage{}
	var relOrder []string
	relRole := map[string]string{}
	for _, c := range relCells {
		id := cellString(c, "id")
		relByID[id] = c
		relOrder = append(relOrder, id)
		relRole[id] = cellRole(c)
	}

	// Which submitted cell is which release cell: by id; else (no ids
	// saved) an unchanged cell by its content, and the n-th cell with a
	// role is the n-th release cell with it.
	byRole := map[string][]string{}
	byContent := map[string][]string{}
	for _, id := range relOrder {
		if r := relRole[id]; r != "" {
			byRole[r] = append(byRole[r], id)
		}
		k := cellString(relByID[id], "cell_type") + "\x00" + sourceOf(relByID[id])
		byContent[k] = append(byContent[k], id)
	}
	match := make([]string, len(subCells))
	taken := map[string]bool{}
	next := func(ids []string) string {
		for _, id := range ids {
			if !taken[id] {
				taken[id] = true
				return id
			}
		}
		return ""
	}
	for i, c := range subCells {
		if id := cellString(c, "id"); id != "" {
			if _, ok := relByID[id]; ok {
				match[i] = id
			}
			continue
		}
		match[i] = next(byContent[cellString(c, "cell_type")+"\x00"+sourceOf(c)])
		if match[i] == "" && cellRole(c) != "" {
			match[i] = next(byRole[cellRole(c)])
		}
	}

	var out []map[string]json.RawMessage
	placed := map[string]int{} // release id -> index in out
	for i, c := range subCells {
		id := match[i]
		if l, ok := locked[id]; ok {
			if _, dup := placed[id]; dup {
				rep.Duplicates = append(rep.Duplicates, l.ID)
				continue
			}
			rc := relByID[id]
			if cellString(c, "cell_type") != cellString(rc, "cell_type") || sourceOf(c) != sourceOf(rc) {
				rep.Replaced = append(rep.Replaced, l.ID)
			}
			c = cloneCell(rc)
		}
		if id != "" {
			if _, dup := placed[id]; !dup {
				placed[id] = len(out)
			}
		}
		out = append(out, clearOutputs(c))
	}
	// Put back the locked cells that are gone, each after the nearest
	// release cell before it that is present.
	for k, id := range relOrder {
		if _, ok := locked[id]; !ok {
			continue
		}
		if _, ok := placed[id]; ok {
			continue
		}
		at := 0
		for j := k - 1; j >= 0; j-- {
			if p, ok := placed[relOrder[j]]; ok {
				at = p + 1
				break
			}
		}
		out = append(out[:at], append([]map[string]json.RawMessage{clearOutputs(cloneCell(relByID[id]))}, out[at:]...)...)
		for other, p := range placed {
			if p >= at {
				placed[other] = p + 1
			}
		}
		placed[id] = at
		rep.Inserted = append(rep.Inserted, id)
	}
	cells, err := marshalRaw(out)
	if err != nil {
		return nil, rep, err
	}
	subNB["cells"] = cells
	b, err := marshalNotebook(subNB)
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
func releaseMeta(personal []byte) (*AssignmentMeta, error) {
	nb, err := ParseNotebook(personal)
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

func cellRole(c map[string]json.RawMessage) string {
	var m cellMeta
	json.Unmarshal(c["metadata"], &m)
	return m.Coursekit.Role
}

func sourceOf(c map[string]json.RawMessage) string {
	s, _ := multiline(c["source"])
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
