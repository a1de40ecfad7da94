package notebook

import (
	"crypto/hmac"
	"encoding/hex"

	"github.com/llmperf-course/course/coursekit/grade/secret"
)

// AssignmentSchema names the layout of AssignmentMeta.
const AssignmentSchema = "coursekit.assignment/v1"

// LockedCell is the signature of one locked cell: HMAC(key, learner, id,
// cell type, source). The learner id is in it so that a locked cell copied
// from another learner's notebook does not verify.
type LockedCell struct {
	ID       string `json:"id"`
	Role     string `json:"role"` // "data", "selfcheck" or "instructions"
	CellType string `json:"cell_type"`
	MAC      string `json:"mac"`
}

// AssignmentMeta is the release record assign writes into the notebook
// metadata under coursekit.assignment. MAC covers every other field, so
// the record itself cannot be edited without the key.
type AssignmentMeta struct {
	Schema      string       `json:"schema"`
	Unit        string       `json:"unit"`
	Learner     string       `json:"learner"`
	Trace       string       `json:"trace"`
	TraceSHA256 string       `json:"trace_sha256"`
	Locked      []LockedCell `json:"locked"`
	MAC         string       `json:"mac"`
}

// Sum is the record's MAC under key, over every other field.
func (m *AssignmentMeta) Sum(key []byte) string {
	parts := []string{"coursekit.assignment/v1", m.Schema, m.Unit, m.Learner, m.Trace, m.TraceSHA256}
	for _, l := range m.Locked {
		parts = append(parts, l.ID, l.Role, l.CellType, l.MAC)
	}
	return hex.EncodeToString(secret.MAC(key, parts...))
}

// Verify reports whether the record was signed with key.
func (m *AssignmentMeta) Verify(key []byte) bool {
	got, err := hex.DecodeString(m.MAC)
	if err != nil {
		return false
	}
	want, _ := hex.DecodeString(m.Sum(key))
	return hmac.Equal(got, want)
}

// CellMAC signs one locked cell.
func CellMAC(key []byte, learner, id, cellType, source string) string {
	return hex.EncodeToString(secret.MAC(key, "coursekit.locked/v1", learner, id, cellType, source))
}
