package nb

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"html"
	"os"
	"path/filepath"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/llmperf-course/course/coursekit"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// CourseTrace is the unit's public teaching trace, the one notebooks 01–05
// read. A copy released by `coursekit assign` reads the learner's own
// variant instead.
func CourseTrace() string { return coursekit.Data("unit01/trace.jsonl") }

// TraceOwner says whose trace the file at path is.
type TraceOwner struct {
	Path string
	// Course is true when the file is byte for byte the course trace.
	Course bool
	// Learner is the learner id of the release record (coursekit assign)
	// of a notebook next to the trace whose trace_sha256 matches the file,
	// or "" when there is none.
	Learner string
	// Err is set when the file cannot be read.
	Err error
}

// WhoseTrace identifies the trace at path: the course trace, a learner's
// released variant (named through the signed release record in the
// notebook that assign wrote beside it), or another file.
func WhoseTrace(path string) TraceOwner {
	o := TraceOwner{Path: path}
	b, err := os.ReadFile(path)
	if err != nil {
		o.Err = err
		return o
	}
	if course, err := os.ReadFile(CourseTrace()); err == nil && bytes.Equal(course, b) {
		o.Course = true
		return o
	}
	sum := sha256.Sum256(b)
	o.Learner = releasedTo(filepath.Dir(path), hex.EncodeToString(sum[:]))
	return o
}

// releasedTo finds the learner whose release record, in a notebook in dir,
// names the trace with this sha256. The record is not verified (that needs
// the instructor's key): the name is only shown to the learner.
func releasedTo(dir, sha string) string {
	nbs, _ := filepath.Glob(filepath.Join(dir, "*.ipynb"))
	for _, p := range nbs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := notebook.ParseNotebook(b)
		if err != nil || n.Assignment == nil {
			continue
		}
		if n.Assignment.TraceSHA256 == sha && n.Assignment.Learner != "" {
			return n.Assignment.Learner
		}
	}
	return ""
}

// Text is the note the deliverable shows at its top, in Chinese.
func (o TraceOwner) Text() string {
	name := filepath.Base(o.Path)
	switch {
	case o.Err != nil:
		return fmt.Sprintf("读不到这份笔记本要核对的 trace 文件 %s：检查它是否和本笔记本在同一个文件夹。", name)
	case o.Course:
		return fmt.Sprintf("这份笔记本读的是课程 trace（%s），就是笔记本 01–05 用的那一份。"+
			"老师用 coursekit assign 发给你的副本会改读你自己的 trace.jsonl，那时数字和 01–05 里的不同。", name)
	case o.Learner != "":
		return fmt.Sprintf("这份笔记本读的是发给学员 %s 的 trace：%s（和本笔记本在同一个文件夹）。"+
			"它是你自己的变体，数字和笔记本 01–05 用的课程 trace 不同：不要照抄 03、04 里的数，"+
			"请用下面“用我的 trace 计算”一节的代码从这份 trace 算出来。", o.Learner, name)
	}
	return fmt.Sprintf("这份笔记本读的是 %s，它不是课程 trace：数字和笔记本 01–05 里的不同，"+
		"请用下面“用我的 trace 计算”一节的代码从这份 trace 算出来。", name)
}

// HTML is Text as a highlighted note, escaped.
func (o TraceOwner) HTML() string {
	color, bg := "#a86b00", "#fff6dd"
	if o.Course {
		color, bg = "#2d4f87", "#eef3fb"
	}
	return fmt.Sprintf(`<div class="coursekit-trace-owner" style="border-left:4px solid %s;background:%s;color:#222;padding:8px 12px">%s</div>`,
		color, bg, html.EscapeString(o.Text()))
}

// ShowTraceOwner shows whose trace path is (WhoseTrace) at the top of the
// deliverable, so a learner with a released copy knows that their numbers
// differ from the course's.
func ShowTraceOwner(path string) TraceOwner {
	o := WhoseTrace(path)
	if gonbui.IsNotebook {
		gonbui.DisplayHTML(o.HTML())
	} else {
		fmt.Println(o.Text())
	}
	return o
}
