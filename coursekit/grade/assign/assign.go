package assign

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/grade/roster"
	"github.com/llmperf-course/course/coursekit/grade/secret"
)

// ReleaseDataRef is how the released deliverable names the unit's trace in
// its data and self-check cells; assign replaces it with the learner's own
// trace file, next to the notebook.
const ReleaseDataRef = `coursekit.Data("unit01/trace.jsonl")`

// lockedRole says whether a release cell is locked, and as what: the
// instruction markdown cells, data loading and the self-check. The card
// cell and the display cells are the learner's.
func lockedRole(cellType, role string) string {
	switch {
	case role == notebook.RoleData || role == notebook.RoleSelfCheck:
		return role
	case cellType == "markdown":
		return "instructions"
	}
	return ""
}

// Personalize turns the released deliverable into learnerID's copy: the
// data path in the locked data and self-check cells points at their
// variant (VariantTraceName, next to the notebook), outputs are cleared,
// and the signed release record goes into the metadata. Nothing else
// changes.
func Personalize(key, release []byte, learnerID string, variant []byte) ([]byte, error) {
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(release, &nb); err != nil {
		return nil, fmt.Errorf("release notebook: %w", err)
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &cells); err != nil {
		return nil, fmt.Errorf("release notebook: cells: %w", err)
	}
	sum := sha256.Sum256(variant)
	meta := notebook.AssignmentMeta{Schema: notebook.AssignmentSchema, Unit: Unit, Learner: learnerID, Trace: VariantTraceName, TraceSHA256: hex.EncodeToString(sum[:])}
	replaced := 0
	ids := map[string]bool{}
	for i, c := range cells {
		var id, typ string
		json.Unmarshal(c["id"], &id)
		json.Unmarshal(c["cell_type"], &typ)
		if id == "" {
			return nil, fmt.Errorf("release notebook: cell %d has no id; save it with nbformat ≥ 4.5", i+1)
		}
		if ids[id] {
			return nil, fmt.Errorf("release notebook: cell id %q appears twice", id)
		}
		ids[id] = true
		var m notebook.CellMeta
		json.Unmarshal(c["metadata"], &m)
		src, err := notebook.Multiline(c["source"])
		if err != nil {
			return nil, fmt.Errorf("release notebook: cell %q: source: %w", id, err)
		}
		role := lockedRole(typ, m.Coursekit.Role)
		if role == notebook.RoleData || role == notebook.RoleSelfCheck {
			n := strings.Count(src, ReleaseDataRef)
			replaced += n
			src = strings.ReplaceAll(src, ReleaseDataRef, fmt.Sprintf("%q", VariantTraceName))
		}
		c["source"] = notebook.SourceLines(src)
		if typ == "code" {
			c["outputs"] = json.RawMessage("[]")
			c["execution_count"] = json.RawMessage("null")
		}
		if role != "" {
			meta.Locked = append(meta.Locked, notebook.LockedCell{ID: id, Role: role, CellType: typ, MAC: notebook.CellMAC(key, learnerID, id, typ, src)})
		}
	}
	if replaced == 0 {
		return nil, fmt.Errorf("release notebook: no locked data or self-check cell reads %s; nothing would point at the variant", ReleaseDataRef)
	}
	meta.MAC = meta.Sum(key)
	cb, err := notebook.MarshalRaw(cells)
	if err != nil {
		return nil, err
	}
	nb["cells"] = cb
	var md map[string]json.RawMessage
	if raw, ok := nb["metadata"]; ok {
		if err := json.Unmarshal(raw, &md); err != nil {
			return nil, fmt.Errorf("release notebook: metadata: %w", err)
		}
	}
	if md == nil {
		md = map[string]json.RawMessage{}
	}
	mb, err := notebook.MarshalRaw(map[string]any{"assignment": meta})
	if err != nil {
		return nil, err
	}
	md["coursekit"] = mb
	if nb["metadata"], err = notebook.MarshalRaw(md); err != nil {
		return nil, err
	}
	return notebook.MarshalNotebook(nb)
}

// Assignment is what assign wrote for one learner, relative to the output
// directory.
type Assignment struct {
	Learner     string
	Notebook    string // e.g. "alice/06-deliverable.ipynb"
	Trace       string // e.g. "alice/trace.jsonl"
	TraceSHA256 string
}

// Assign writes, for every learner on the roster, DIR/<id>/<notebookName>
// (the personalized deliverable) and DIR/<id>/trace.jsonl (their variant).
// It stops at the first error: a half-released class is worse than none.
func Assign(key []byte, roster *roster.Roster, release []byte, notebookName, outDir string) ([]Assignment, error) {
	if len(key) < secret.MinKeyBytes {
		return nil, fmt.Errorf("assign: key shorter than %d bytes", secret.MinKeyBytes)
	}
	if roster == nil || len(roster.Learners) == 0 {
		return nil, errors.New("assign: empty roster")
	}
	if notebookName == "" || filepath.Base(notebookName) != notebookName {
		return nil, fmt.Errorf("assign: notebook name %q must be a plain file name", notebookName)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	if err := writeReleaseMarker(key, outDir); err != nil {
		return nil, err
	}
	var out []Assignment
	for _, l := range roster.Learners {
		v, err := Variant(key, l.ID)
		if err != nil {
			return out, err
		}
		nbBytes, err := Personalize(key, release, l.ID, v)
		if err != nil {
			return out, err
		}
		dir := filepath.Join(outDir, l.ID)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return out, err
		}
		if err := os.WriteFile(filepath.Join(dir, VariantTraceName), v, 0o644); err != nil {
			return out, err
		}
		if err := os.WriteFile(filepath.Join(dir, notebookName), nbBytes, 0o644); err != nil {
			return out, err
		}
		sum := sha256.Sum256(v)
		out = append(out, Assignment{Learner: l.ID, Notebook: l.ID + "/" + notebookName, Trace: l.ID + "/" + VariantTraceName, TraceSHA256: hex.EncodeToString(sum[:])})
	}
	return out, nil
}
