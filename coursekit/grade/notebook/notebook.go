package notebook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/safetext"
)

// DefaultMaxBytes caps what is read of one submission: a notebook with
// megabytes of chart output is ungradable, not a reason to exhaust memory.
const DefaultMaxBytes = 8 << 20

// Cell roles, from the cell metadata {"coursekit":{"role":...}}.
const (
	RoleCard      = "card"
	RoleSelfCheck = "selfcheck"
	RoleData      = "data"
)

// Reason codes for ungradable submissions; stable, English, for tools.
const (
	ReasonTooLarge      = "too_large"
	ReasonTruncated     = "truncated_json"
	ReasonInvalidJSON   = "invalid_json"
	ReasonNotNotebook   = "not_a_notebook"
	ReasonNBFormat      = "unsupported_nbformat"
	ReasonNoCard        = "no_card"
	ReasonSelfCheck     = "self_check_not_run"
	ReasonTwoCards      = "two_cards"
	ReasonWrongCard     = "wrong_card_type"
	ReasonNonFinite     = "non_finite_number"
	ReasonUnknown       = "unknown_learner"
	ReasonUnreadable    = "unreadable_file"
	ReasonVariantFailed = "variant_failed"
	ReasonInternal      = "grader_error" // a bug in the grader, caught per submission
	// ReasonNotRegular: the submission is a symlink, FIFO, device, socket
	// or folder, not a regular file: never followed or read.
	ReasonNotRegular = "not_regular_file"
	// ReasonFoldedKey: a JSON key differs from one of nbformat's only in
	// case (a shadow "CELLS" beside "cells"); Jupyter reads only the exact
	// key, Go's encoding/json either, so the notebook is refused.
	ReasonFoldedKey = "case_folded_key"
)

// Ungradable is why a submission could not be graded: Code is one of the
// Reason constants, Msg says it to the learner in Chinese.
type Ungradable struct {
	Code string
	Msg  string
}

func (u *Ungradable) Error() string { return u.Code + ": " + u.Msg }

// NewUngradable is an Ungradable with the message formatted.
func NewUngradable(code, format string, a ...any) *Ungradable {
	return &Ungradable{Code: code, Msg: fmt.Sprintf(format, a...)}
}

// Notebook is the part of an nbformat 4 notebook the grader reads.
type Notebook struct {
	NBFormat, NBFormatMinor int
	Cells                   []Cell
	// Assignment is the release record assign wrote into the metadata, or
	// nil when there is none (or it is not an object).
	Assignment *AssignmentMeta
	// ExecutedAt is the latest cell execution time in the cell metadata
	// (zero when the notebook records none).
	ExecutedAt time.Time
}

// Version is "4.5" and the like.
func (n *Notebook) Version() string { return fmt.Sprintf("%d.%d", n.NBFormat, n.NBFormatMinor) }

// Cell is one notebook cell.
type Cell struct {
	Index  int // position in the submitted file, 0-based
	ID     string
	Type   string // "code", "markdown" or "raw"
	Source string
	Role   string // metadata coursekit.role, or "card" for a cell tagged "card"
	// Outputs holds each output's MIME bundle (display_data, execute_result
	// and update_display_data; streams and errors carry no card).
	Outputs []map[string]json.RawMessage
}

type rawNotebook struct {
	NBFormat      *int      `json:"nbformat"`
	NBFormatMinor int       `json:"nbformat_minor"`
	Cells         []rawCell `json:"cells"`
	Metadata      struct {
		Coursekit struct {
			Assignment json.RawMessage `json:"assignment"`
		} `json:"coursekit"`
	} `json:"metadata"`
}

type rawCell struct {
	ID       string          `json:"id"`
	CellType string          `json:"cell_type"`
	Source   json.RawMessage `json:"source"`
	Metadata json.RawMessage `json:"metadata"`
	Outputs  []struct {
		OutputType string                     `json:"output_type"`
		Data       map[string]json.RawMessage `json:"data"`
	} `json:"outputs"`
}

// CellMeta is the part of a cell's metadata coursekit reads: its role, its
// tags and its execution times.
type CellMeta struct {
	Coursekit struct {
		Role string `json:"role"`
	} `json:"coursekit"`
	Tags []string `json:"tags"`
	// Execution holds the timing JupyterLab (with timing recorded) and
	// nbclient write: "shell.execute_reply" and the like.
	Execution map[string]any `json:"execution"`
}

// ReadLimited reads at most max bytes of r (max ≤ 0: DefaultMaxBytes); a
// longer input is ReasonTooLarge.
func ReadLimited(r io.Reader, max int64) ([]byte, error) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, NewUngradable(ReasonUnreadable, "读不了这个文件：%v", err)
	}
	if int64(len(b)) > max {
		return nil, NewUngradable(ReasonTooLarge, "文件超过 %d 字节的上限（多半是输出太大）：请清除大图表的输出后重新运行自检再提交。", max)
	}
	return b, nil
}

// ReadFileLimited reads the regular file path with ReadLimited. A
// symlink, FIFO, device, socket or folder is refused (ReasonNotRegular)
// without being followed or opened for reading, so none of a link's
// target reaches the reason, and a FIFO cannot block the batch. Use it
// for every file found in a learner's folder or upload.
func ReadFileLimited(path string, max int64) ([]byte, error) {
	return readFile(path, max, regfile.Open)
}

// ReadNamedFileLimited is ReadFileLimited for a file the instructor
// named on the command line: a symlink is followed (the instructor made
// it), but what it names must still be a regular file.
func ReadNamedFileLimited(path string, max int64) ([]byte, error) {
	return readFile(path, max, regfile.OpenNamed)
}

func readFile(path string, max int64, open func(string) (*os.File, fs.FileInfo, error)) ([]byte, error) {
	f, _, err := open(path)
	if nr := (*regfile.NotRegularError)(nil); errors.As(err, &nr) {
		return nil, NotRegular(filepath.Base(path), nr.Mode)
	}
	if err != nil {
		return nil, NewUngradable(ReasonUnreadable, "读不了这个文件：%v", errors.Unwrap(err))
	}
	defer f.Close()
	return ReadLimited(f, max)
}

// NotRegular is the reason for a submission named name that is not a
// regular file (mode says what it is). It names the file and its kind
// and nothing that a link points at.
func NotRegular(name string, mode fs.FileMode) *Ungradable {
	return NewUngradable(ReasonNotRegular, "提交的 %s 是%s，不是普通文件：评分只读普通文件，不跟随链接，也不读管道或设备。请提交笔记本文件本身。", safetext.Name(name), regfile.KindZh(mode))
}

// ParseNotebook reads an nbformat 4 notebook. It never runs anything. The
// error is always an *Ungradable.
func ParseNotebook(b []byte) (*Notebook, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, NewUngradable(ReasonTruncated, "文件是空的。")
	}
	var raw rawNotebook
	folded, err := unmarshalStrict(b, &raw, "")
	if folded != nil {
		return nil, folded
	}
	if err != nil {
		u := jsonProblem(b, err, "笔记本")
		if u.Code == ReasonWrongCard { // a field of the wrong type: not nbformat
			u = NewUngradable(ReasonNotNotebook, "这不是一个 Jupyter 笔记本：%s", u.Msg)
		}
		return nil, u
	}
	if raw.NBFormat == nil {
		return nil, NewUngradable(ReasonNotNotebook, "这不是一个 Jupyter 笔记本（没有 nbformat）。")
	}
	if *raw.NBFormat != 4 {
		return nil, NewUngradable(ReasonNBFormat, "笔记本格式是 nbformat %d，评分只接受 nbformat 4：请用 JupyterLab 打开发下去的笔记本，保存后再提交。", *raw.NBFormat)
	}
	if raw.Cells == nil {
		return nil, NewUngradable(ReasonNotNotebook, "这不是一个 nbformat 4 笔记本（没有 cells）。")
	}
	nb := &Notebook{NBFormat: *raw.NBFormat, NBFormatMinor: raw.NBFormatMinor}
	for i, rc := range raw.Cells {
		src, err := Multiline(rc.Source)
		if err != nil {
			return nil, NewUngradable(ReasonNotNotebook, "第 %d 个单元格的 source 不是文本。", i+1)
		}
		c := Cell{Index: i, ID: rc.ID, Type: rc.CellType, Source: src}
		var m CellMeta
		var folded *Ungradable
		if len(rc.Metadata) > 0 {
			folded, err = unmarshalStrict(rc.Metadata, &m, fmt.Sprintf("cells[%d].metadata", i))
		}
		if folded != nil {
			return nil, folded
		}
		if len(rc.Metadata) > 0 && err == nil {
			if t := executedAt(m.Execution); t.After(nb.ExecutedAt) {
				nb.ExecutedAt = t
			}
			c.Role = m.Coursekit.Role
			if c.Role == "" {
				for _, t := range m.Tags {
					if t == RoleCard {
						c.Role = RoleCard
					}
				}
			}
		}
		for _, o := range rc.Outputs {
			switch o.OutputType {
			case "display_data", "execute_result", "update_display_data":
				if o.Data != nil {
					c.Outputs = append(c.Outputs, o.Data)
				}
			}
		}
		nb.Cells = append(nb.Cells, c)
	}
	if a := raw.Metadata.Coursekit.Assignment; len(a) > 0 && a[0] == '{' {
		var m AssignmentMeta
		folded, err := unmarshalStrict(a, &m, "metadata.coursekit.assignment")
		if folded != nil {
			return nil, folded
		}
		if err == nil {
			nb.Assignment = &m
		}
	}
	return nb, nil
}

// Multiline reads nbformat's "string or list of strings".
func Multiline(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", err
	}
	return strings.Join(parts, ""), nil
}

// jsonProblem turns a decoding error into a reason a learner can act on:
// truncated, NaN/Inf, a field of the wrong type, or plain invalid JSON.
func jsonProblem(b []byte, err error, what string) *Ungradable {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if strings.Contains(se.Error(), "unexpected end of JSON input") || endsAt(b, se) {
			return NewUngradable(ReasonTruncated, "%s的 JSON 在中途断了（文件不完整）：请重新保存笔记本后再提交。", what)
		}
		if nonFiniteAt(b, se.Offset) {
			return NewUngradable(ReasonNonFinite, "%s里有 NaN 或无穷大（Inf），JSON 存不下这样的数：检查口径卡里的数，重新运行自检。", what)
		}
		return NewUngradable(ReasonInvalidJSON, "%s不是合法的 JSON（第 %d 个字节附近）：%v", what, se.Offset, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if v, ok := strings.CutPrefix(te.Value, "number "); ok {
			if f, perr := strconv.ParseFloat(v, 64); perr != nil || f != f {
				return NewUngradable(ReasonNonFinite, "%s里有超出范围的数（%s），当作无穷大，不能评分。", what, v)
			}
		}
		field := te.Field
		if field == "" {
			field = "（顶层）"
		}
		return NewUngradable(ReasonWrongCard, "%s的字段 %s 类型不对：应当是 %s，却是 %s。", what, field, te.Type, te.Value)
	}
	return NewUngradable(ReasonInvalidJSON, "%s读不出来：%v", what, err)
}

// nonFiniteAt reports whether the syntax error at offset is a NaN or
// Infinity literal, which Python's json writes and JSON does not allow.
func nonFiniteAt(b []byte, offset int64) bool {
	lo := max(int(offset)-2, 0)
	hi := min(int(offset)+9, len(b))
	if lo >= hi {
		return false
	}
	w := string(b[lo:hi])
	return strings.Contains(w, "NaN") || strings.Contains(w, "Infinity") || strings.Contains(w, "Inf")
}

// FoundPayload is one card payload and the cell that carried it.
type FoundPayload struct {
	Cell    *Cell
	Payload *card.Payload
	Raw     []byte // the canonical JSON of the card, to compare payloads
}

// FindPayloads parses every card.MIMEType output. A payload that cannot be
// read makes the submission ungradable, with the reason.
func FindPayloads(nb *Notebook) ([]FoundPayload, *Ungradable) {
	var out []FoundPayload
	for i := range nb.Cells {
		c := &nb.Cells[i]
		for _, data := range c.Outputs {
			raw, ok := data[card.MIMEType]
			if !ok {
				continue
			}
			// The payload is a JSON string holding the card's JSON.
			inner := []byte(raw)
			var str string
			if json.Unmarshal(raw, &str) == nil {
				inner = []byte(str)
			}
			if u := checkFoldedKeys(inner, reflect.TypeFor[card.Payload](), fmt.Sprintf("cells[%d].outputs.data.%s", c.Index, card.MIMEType)); u != nil {
				return nil, u
			}
			p, err := card.ParsePayload(raw)
			if err != nil {
				return nil, payloadProblem(raw, err)
			}
			canon, _ := json.Marshal(Normalized(p.Card))
			out = append(out, FoundPayload{Cell: c, Payload: p, Raw: canon})
		}
	}
	return out, nil
}

func payloadProblem(raw json.RawMessage, err error) *Ungradable {
	msg := err.Error()
	switch {
	case errors.Is(err, card.ErrOldCardLayout):
		return NewUngradable(ReasonWrongCard, "自检输出里的口径卡是旧版格式（成功 P95 和失败率写在每个门槛条件里）。它们不随门槛变，现在只在卡上写一次：请在口径卡单元格里把这两项移到 SuccessSamples、Attempts 旁边，从口径卡单元格运行到自检，保存后再提交。")
	case strings.Contains(msg, "schema"):
		return NewUngradable(ReasonWrongCard, "自检输出里的口径卡不是本单元的口径卡类型（%s）。", msg)
	case strings.Contains(msg, "no card"):
		return NewUngradable(ReasonWrongCard, "自检输出里没有口径卡内容。")
	}
	// The payload is usually a JSON string holding the JSON: look inside.
	inner := []byte(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		inner = []byte(s)
	}
	return jsonProblem(inner, err, "自检输出里的口径卡")
}

// Normalized makes nil and empty slices compare equal.
func Normalized(c *card.Card) *card.Card {
	if c == nil {
		return &card.Card{Path: card.PathMap{Steps: []card.Step{}}, Conditions: []card.Condition{}}
	}
	x := *c
	if x.Path.Steps == nil {
		x.Path.Steps = []card.Step{}
	}
	if x.Conditions == nil {
		x.Conditions = []card.Condition{}
	}
	return &x
}

// executedAt is the latest cell execution time the notebook's cell
// metadata records (JupyterLab with timing recorded, nbclient always).
func executedAt(meta map[string]any) time.Time {
	var latest time.Time
	for _, k := range []string{"shell.execute_reply", "iopub.status.idle", "iopub.execute_input", "iopub.status.busy"} {
		v, _ := meta[k].(string)
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil && t.After(latest) {
			latest = t
		}
	}
	return latest
}

// FindCardCellBySource is the fallback when the card cell lost its
// metadata (recreated by the learner): the one code cell declaring a card.
func FindCardCellBySource(nb *Notebook) *Cell {
	var found *Cell
	for i := range nb.Cells {
		c := &nb.Cells[i]
		if c.Type == "code" && strings.Contains(c.Source, "card.Card{") {
			if found != nil {
				return nil
			}
			found = c
		}
	}
	return found
}

// endsAt reports whether a syntax error is the end of the data:
// encoding/json feeds its scanner a space after the last byte, so a file cut
// inside an escape (`"\u00`) or a literal (`tr`) fails with "invalid
// character ' '" at offset len(b) (or at the whitespace that ends a file cut
// there), where the file itself has no space.
func endsAt(b []byte, se *json.SyntaxError) bool {
	if se.Offset <= 0 || se.Offset > int64(len(b)) || !strings.HasPrefix(se.Error(), "invalid character ") {
		return false
	}
	if b[se.Offset-1] != ' ' && strings.HasPrefix(se.Error(), "invalid character ' '") {
		return se.Offset == int64(len(b)) // the space fed after the last byte
	}
	rest := b[se.Offset-1:] // the bad character and what follows it
	return len(bytes.TrimSpace(rest)) == 0
}
