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
	htm, txt := r.HTML(), r.Text()
	bundle := map[protocol.MIMEType]any{}
	payload, err := card.MarshalPayload(c, r, id)
	if err != nil {
		note := "卡片里有写不成 JSON 的数(NaN 或无穷大),评分程序读不到这张卡:" + err.Error()
		htm += `<p class="coursekit-error" style="color:#b00">` + html.EscapeString(note) + `</p>`
		txt += note + "\n"
	} else {
		bundle[protocol.MIMEType(card.MIMEType)] = string(payload)
	}
	bundle[protocol.MIMETextHTML] = htm
	bundle[protocol.MIMETextPlain] = txt
	return bundle, r
}
