package integrity

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/llmperf-course/course/coursekit/card"
	"github.com/llmperf-course/course/coursekit/grade/assign"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Integrity finding codes; stable, English, for tools.
const (
	FindNBFormat          = "nbformat"
	FindDuplicateIDs      = "duplicate_cell_ids"
	FindNoRelease         = "no_release_record"
	FindReleaseEdited     = "release_record_invalid"
	FindOtherLearner      = "other_learners_notebook"
	FindLockedDeleted     = "locked_cell_deleted"
	FindLockedDuplicated  = "locked_cell_duplicated"
	FindLockedEdited      = "locked_cell_edited"
	FindInconsistent      = "outputs_inconsistent_with_card"
	FindNotComparable     = "card_cell_not_comparable"
	FindNoCardCell        = "no_card_cell"
	FindReportMismatch    = "selfcheck_report_mismatch"
	FindOtherTrace        = "selfcheck_on_other_trace"
	FindCardOutputOutside = "card_output_outside_selfcheck"
)

// CardSource is the card cell as read: its card, or why it could not be
// read (cell nil: no card cell at all).
type CardSource struct {
	Cell *notebook.Cell
	Card *card.Card
	Err  error
}

// Check checks a submission against its signed release record and
// itself. Nothing here changes the score: the instructor decides; the
// copy check that does cost points is the OwnVariantID criterion, and the
// card graded is the card cell's source whenever it can be read, so
// edited or forged output gains nothing. key is the instructor's; own is
// the learner's variant and ownSHAs the sha256 its bytes may have (as this
// coursekit writes it, and as earlier releases did); whose names who each trace
// with a sha256 belongs to ("" for the public trace); rep is the graded
// card's report.
func Check(key []byte, nb *notebook.Notebook, learner string, payloads []notebook.FoundPayload, src CardSource, own *trace.Trace, ownSHAs []string, whose func(sha string) []string, rep card.Report) []Finding {
	var fs []Finding
	add := func(code string, warn bool, detail, format string, a ...any) {
		fs = append(fs, Finding{Code: code, Warn: warn, Message: fmt.Sprintf(format, a...), Detail: detail})
	}
	// Duplicate cell ids (nbgrader #1083): a copied cell keeps its id.
	count := map[string]int{}
	for _, c := range nb.Cells {
		if c.ID != "" {
			count[c.ID]++
		}
	}
	var dups []string
	for _, c := range nb.Cells {
		if count[c.ID] > 1 && !slices.Contains(dups, c.ID) {
			dups = append(dups, c.ID)
		}
	}
	if len(dups) > 0 {
		add(FindDuplicateIDs, true, "", "有重复的单元格 id：%s（复制单元格会带上原来的 id）。", strings.Join(dups, "、"))
	}

	// Locked cells, against the signed release record.
	a := nb.Assignment
	switch {
	case a == nil:
		add(FindNoRelease, true, "", "笔记本里没有发放记录：这不是发给你的那份笔记本，锁定的单元格无法核对。")
	case !a.Verify(key):
		add(FindReleaseEdited, true, "", "笔记本元数据里的发放记录被改动过，锁定的单元格无法核对。")
	default:
		if a.Learner != learner {
			add(FindOtherLearner, true, "release record names "+a.Learner, "这份笔记本是发给另一位学习者的。")
		}
		matched, st := MatchLocked(key, nb, a)
		if st.noIDs() {
			add(FindNBFormat, false, st.String(), "笔记本格式 nbformat %s：单元格没有 id（Jupyter 按旧格式保存的）。锁定的单元格改为按发放记录里的签名逐格对上（%d 个）；对不上的再按元数据里的角色（%d 个）和前后位置（%d 个）找，找到的算作改动，找不到的算作删除。", nb.Version(), st.bySig, st.byRole, st.byPos)
		}
		for k, l := range a.Locked {
			same := matched[k]
			what := lockedName(l.Role)
			where := func(c *notebook.Cell) string {
				if c.ID != "" {
					return "id " + c.ID
				}
				return fmt.Sprintf("第 %d 个单元格", c.Index+1)
			}
			switch {
			case len(same) == 0:
				add(FindLockedDeleted, true, "cell "+l.ID, "锁定的%s（发放时的 id %s）被删除了，或者改了 id。", what, l.ID)
			case len(same) > 1:
				add(FindLockedDuplicated, true, "cell "+l.ID, "锁定的%s（发放时的 id %s）出现了 %d 次。", what, l.ID, len(same))
			}
			for _, c := range same {
				if notebook.CellMAC(key, a.Learner, l.ID, c.Type, c.Source) == l.MAC {
					continue
				}
				if c.Type != l.CellType {
					add(FindLockedEdited, true, "cell "+l.ID, "锁定的%s（%s）的类型被改成了 %s。", what, where(c), c.Type)
				} else {
					add(FindLockedEdited, true, "cell "+l.ID, "锁定的%s（%s）的内容被改动了。", what, where(c))
				}
			}
		}
	}
	if nb.NBFormatMinor < 5 && (a == nil || !a.Verify(key)) {
		add(FindNBFormat, false, "", "笔记本格式 nbformat %s：单元格没有 id；没有可用的发放记录，锁定的单元格无法核对。", nb.Version())
	}

	// The card the self-check saw, against the card cell as submitted.
	p := payloads[0]
	if p.Cell.Role != notebook.RoleSelfCheck {
		add(FindCardOutputOutside, true, "", "口径卡数据出现在自检单元格以外的第 %d 个单元格的输出里。", p.Cell.Index+1)
	}
	switch {
	case src.Cell == nil:
		add(FindNoCardCell, true, "", "没有找到口径卡单元格（元数据 role=card，或声明 card.Card 的代码）：只能按自检输出里的口径卡评分，而输出无法与代码核对。请老师核对，或用 --execute 重新运行。")
	case errors.Is(src.Err, notebook.ErrNotStatic):
		add(FindNotComparable, true, src.Err.Error(), "口径卡单元格里有不是常量的写法（调用或变量），不符合口径卡单元格的约定（只用字面量和 card 包的常量），评分程序读不出这张口径卡；暂按自检输出里的口径卡评分，请老师核对。")
	case src.Err != nil:
		add(FindInconsistent, true, src.Err.Error(), "口径卡单元格的代码读不出一张口径卡（不能编译），但输出里有口径卡：暂按自检输出里的口径卡评分，请老师核对。改完口径卡后请从口径卡单元格开始重新运行到自检单元格。")
	default:
		if diff := CardDiff(src.Card, p.Payload.Card); len(diff) > 0 {
			add(FindInconsistent, true, "differs in "+strings.Join(diff, ", "), "口径卡单元格现在的内容和自检输出里的口径卡在这些地方不同：%s。评分按口径卡单元格里的代码进行；改完口径卡后请从口径卡单元格开始重新运行到自检单元格，再保存提交。", strings.Join(diff, "、"))
			rep = card.Check(p.Payload.Card, own) // what the saved report should have said
		}
	}

	// Which trace the self-check ran on, and what it said.
	if !slices.Contains(ownSHAs, p.Payload.Trace.SHA256) {
		detail := "payload trace sha256 " + short(p.Payload.Trace.SHA256)
		for _, who := range whose(p.Payload.Trace.SHA256) {
			if who == "" {
				detail += " = the public teaching trace"
			} else {
				detail += " = variant of " + who
			}
		}
		add(FindOtherTrace, true, detail, "自检运行时读的不是发给你的那份 trace（%s）。", assign.VariantTraceName)
	} else {
		var claimed []string
		for _, r := range p.Payload.Report.Results {
			if x, ok := rep.Result(r.ID); ok && r.Status == card.Pass && x.Status != card.Pass {
				claimed = append(claimed, r.ID)
			}
		}
		if len(claimed) > 0 {
			add(FindReportMismatch, true, strings.Join(claimed, ", "), "自检输出里记录为通过的 %d 项，重新计算后并未通过：输出被改动过，或不是这张口径卡的自检结果。", len(claimed))
		}
	}
	return fs
}

func lockedName(role string) string {
	switch role {
	case notebook.RoleData:
		return "数据单元格"
	case notebook.RoleSelfCheck:
		return "自检单元格"
	}
	return "说明单元格"
}

func short(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// CardDiff names the top-level card fields (JSON keys) where a and b differ.
func CardDiff(a, b *card.Card) []string {
	ja, _ := json.Marshal(notebook.Normalized(a))
	jb, _ := json.Marshal(notebook.Normalized(b))
	var ma, mb map[string]json.RawMessage
	json.Unmarshal(ja, &ma)
	json.Unmarshal(jb, &mb)
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(ma)) {
		if string(ma[k]) != string(mb[k]) {
			diff = append(diff, k)
		}
	}
	return diff
}

// lockedStats says how the locked cells of a release record were found in
// a submission: by cell id (nbformat ≥ 4.5), by signature, or, for a cell
// whose signature no longer verifies, by its metadata role or its place
// between the locked cells that were found.
type lockedStats struct {
	byID, bySig, byRole, byPos, missing int
}

// noIDs reports whether some locked cell had to be found without its id.
func (s lockedStats) noIDs() bool { return s.bySig+s.byRole+s.byPos+s.missing > 0 && s.byID == 0 }

func (s lockedStats) String() string {
	return fmt.Sprintf("locked cells matched: %d by id, %d by signature, %d by role, %d by position, %d not found", s.byID, s.bySig, s.byRole, s.byPos, s.missing)
}

// MatchLocked finds each locked cell of a in nb: the cells with its id;
// else, among cells without an id (nbformat < 4.5 drops them), the cells
// whose HMAC under its id verifies; else the one cell left with its
// metadata role (data, self-check); else, for instructions, the first cell
// of its type, without a role, between the neighbouring locked cells.
// A cell found by role or position fails the signature check, so it is
// reported as edited; a locked cell found nowhere is reported as deleted.
func MatchLocked(key []byte, nb *notebook.Notebook, a *notebook.AssignmentMeta) ([][]*notebook.Cell, lockedStats) {
	out := make([][]*notebook.Cell, len(a.Locked))
	var st lockedStats
	var noID []*notebook.Cell
	for i := range nb.Cells {
		if nb.Cells[i].ID == "" {
			noID = append(noID, &nb.Cells[i])
		}
	}
	used := map[*notebook.Cell]bool{}
	var left []int
	for k, l := range a.Locked {
		for i := range nb.Cells {
			if nb.Cells[i].ID == l.ID {
				out[k] = append(out[k], &nb.Cells[i])
			}
		}
		if len(out[k]) > 0 {
			st.byID++
			continue
		}
		for _, c := range noID {
			// Its signature under its own type, or under the released
			// type (a cell whose type alone was changed).
			if notebook.CellMAC(key, a.Learner, l.ID, c.Type, c.Source) == l.MAC || notebook.CellMAC(key, a.Learner, l.ID, l.CellType, c.Source) == l.MAC {
				out[k] = append(out[k], c)
				used[c] = true
			}
		}
		if len(out[k]) > 0 {
			st.bySig++
			continue
		}
		left = append(left, k)
	}
	for _, k := range left {
		l := a.Locked[k]
		if l.Role == notebook.RoleData || l.Role == notebook.RoleSelfCheck {
			for _, c := range noID {
				if !used[c] && c.Role == l.Role {
					out[k] = append(out[k], c)
					used[c] = true
				}
			}
			if len(out[k]) > 0 {
				st.byRole++
			} else {
				st.missing++
			}
			continue
		}
		// Between the nearest locked cells found before and after it.
		lo, hi := -1, len(nb.Cells)
		for j := k - 1; j >= 0 && lo < 0; j-- {
			for _, c := range out[j] {
				lo = max(lo, c.Index)
			}
		}
		for j := k + 1; j < len(out) && hi == len(nb.Cells); j++ {
			for _, c := range out[j] {
				hi = min(hi, c.Index)
			}
		}
		var pick *notebook.Cell
		for _, c := range noID {
			if !used[c] && c.Role == "" && c.Type == l.CellType && c.Index > lo && c.Index < hi {
				pick = c
				break
			}
		}
		if pick == nil {
			st.missing++
			continue
		}
		out[k] = []*notebook.Cell{pick}
		used[pick] = true
		st.byPos++
	}
	return out, st
}

// Finding is one integrity observation.
type Finding struct {
	Code string `json:"code"`
	// Warn findings fail the integrity check; info findings are notes.
	Warn bool `json:"warn"`
	// Message is learner-facing Chinese, unless Private.
	Message string `json:"message"`
	Detail  string `json:"detail,omitempty"`
	// Private findings are for the instructor only (the summary, the class
	// report, manual-review.csv, grades.json): a copy or identical-answer
	// finding names other learners and states a suspicion the instructor
	// has not judged yet. Learner-facing files leave them out.
	Private bool `json:"private,omitempty"`
}

// LearnerFacing is fs without the Private findings.
func LearnerFacing(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if !f.Private {
			out = append(out, f)
		}
	}
	return out
}
