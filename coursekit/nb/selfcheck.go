package nb

import (
	"fmt"
	"html"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/llmperf-course/course/coursekit/card"
)

// SelfCheck is the last cell of the deliverable notebook: it reads the
// trace at tracePath, checks the card against it and shows the report.
//
// The same display_data output also carries the card as JSON under
// card.MIMEType (with the report, the coursekit version and the trace's
// sha256), so a grader can read the saved notebook without running it.
// Outside a notebook it prints the text report instead.
//
// It returns the report, so a cell can also test it.
func SelfCheck(c *card.Card, tracePath string) card.Report {
	bundle, r := SelfCheckBundle(c, tracePath)
	if !gonbui.IsNotebook {
		fmt.Print(bundle[protocol.MIMETextPlain])
		return r
	}
	gonbui.SendData(&protocol.DisplayData{Data: bundle})
	gonbui.Sync() // the cell's process may exit right after this call
	return r
}

// SelfCheckBundle builds SelfCheck's MIME bundle: text/html (the report),
// text/plain (the same as text) and, when the card can be written as JSON,
// card.MIMEType with the payload. Every value is a string: GoNB passes
// display data to the kernel through gob, which only carries registered
// types, and the kernel forwards the string to Jupyter as is.
func SelfCheckBundle(c *card.Card, tracePath string) (map[protocol.MIMEType]any, card.Report) {
	r, id, _ := card.CheckFile(c, tracePath) // a read error is in r.Error
	markCourseNumbers(c, &r, tracePath)
	htm, txt := r.HTML(), r.Text()
	bundle := map[protocol.MIMEType]any{}
	payload, err := card.MarshalPayload(c, r, id)
	if err != nil {
		note := "指标口径卡里有写不成 JSON 的数（NaN 或无穷大），评分程序读不到这张卡：" + err.Error()
		htm += `<p class="coursekit-error" style="color:#b00">` + html.EscapeString(note) + `</p>`
		txt += note + "\n"
	} else {
		bundle[protocol.MIMEType(card.MIMEType)] = string(payload)
	}
	bundle[protocol.MIMETextHTML] = htm
	bundle[protocol.MIMETextPlain] = txt
	return bundle, r
}

// ownTraceHint replaces a failing row's hint when the same row passes on
// the course trace: the learner most likely copied the course's numbers.
const ownTraceHint = "这一项和课程 trace（笔记本 01–05 用的那份）算出的数一致，但和你自己的 trace 不一致：" +
	"请在本笔记本“用我的 trace 计算”一节里从你的 trace 重新算。"

// markCourseNumbers gives every row that fails on the learner's own trace
// but passes on the course trace the hint ownTraceHint, so the learner is
// not sent back to notebook 03 (which shows exactly the numbers they
// copied). It gives no value. Nothing changes when tracePath is the course
// trace itself or cannot be read.
func markCourseNumbers(c *card.Card, r *card.Report, tracePath string) {
	if r.Error != "" || WhoseTrace(tracePath).Course {
		return
	}
	course, _, err := card.CheckFile(c, CourseTrace())
	if err != nil || course.Error != "" {
		return
	}
	for i, x := range r.Results {
		if y, ok := course.Result(x.ID); ok && x.Status == card.Fail && y.Status == card.Pass {
			r.Results[i].Hint = ownTraceHint
		}
	}
}
