package card

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llmperf-course/course/coursekit"
)

const injection = `</script><script>alert(1)</script><img src=x onerror=alert(2)>`

func TestHTMLEscapesLearnerText(t *testing.T) {
	c := reference()
	// The sampling point is echoed in its hint; the step name in another.
	c.Path.SamplingPoint = injection
	c.Path.Steps[1].Name = c.Path.Steps[0].Name // duplicate: its name is echoed
	r := Check(c, readUnitTrace(t))
	if x, _ := r.Result("map.sampling"); !strings.Contains(x.Hint, injection) {
		t.Fatalf("test premise: the hint should echo the learner's text: %q", x.Hint)
	}
	out := r.HTML()
	for _, bad := range []string{"</script>", "<script>", "<img"} {
		if strings.Contains(out, bad) {
			t.Errorf("HTML contains %q unescaped", bad)
		}
	}
	if !strings.Contains(out, "&lt;/script&gt;") {
		t.Errorf("escaped learner text missing from HTML")
	}
	// The markup is still well formed: every row opened is closed.
	if strings.Count(out, "<tr") != strings.Count(out, "</tr>") || strings.Count(out, "<tr") != len(r.Results)+1 {
		t.Errorf("table rows do not balance")
	}
}

// Every column of the self-check is text; JupyterLab right-aligns table
// cells unless the cell says otherwise.
func TestHTMLAlignsEveryCellLeft(t *testing.T) {
	out := Check(reference(), readUnitTrace(t)).HTML()
	cells := regexp.MustCompile(`<t[hd]( [^>]*)?>`).FindAllStringSubmatch(out, -1)
	if len(cells) < 6 {
		t.Fatalf("only %d cells in the report", len(cells))
	}
	for _, c := range cells {
		if !strings.Contains(c[1], "text-align:left") {
			t.Errorf("cell not left-aligned: %s", c[0])
		}
	}
}

func TestTextReport(t *testing.T) {
	c := reference()
	c.Conditions[0].Qualified = 6
	out := Check(c, readUnitTrace(t)).Text()
	for _, want := range []string{"公开检查 20/21 通过；评分时还有 7 项隐藏检查", "✗ 数值：联合合格数 [figures.qualified]", "✓ ", "? ", "回看"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

func TestPayloadRoundTrips(t *testing.T) {
	b, err := os.ReadFile(unitTrace)
	if err != nil {
		t.Fatal(err)
	}
	c := reference()
	c.CounterEvidence += injection // any learner string survives intact
	r := Check(c, readUnitTrace(t))
	id := IdentifyBytes("../../data/unit01/trace.jsonl", b)
	sum := sha256.Sum256(b)
	if id.SHA256 != hex.EncodeToString(sum[:]) || id.Bytes != int64(len(b)) || id.Path != "../../data/unit01/trace.jsonl" {
		t.Errorf("identity %+v", id)
	}
	data, err := MarshalPayload(c, r, id)
	if err != nil {
		t.Fatal(err)
	}
	// English keys, the schema and the version travel with the card.
	for _, key := range []string{`"schema":"` + PayloadSchema + `"`, `"coursekit_version":"` + coursekit.Version + `"`,
		`"sha256":"` + id.SHA256 + `"`, `"sampling_point"`, `"failure_rate":{"num":2,"den":10,"unit":`, `"cost_per_1000_qualified"`, `"results"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("payload lacks %s", key)
		}
	}
	// A notebook may store it as the object, as one string, or as pieces.
	asString, _ := json.Marshal(string(data))
	half := len(data) / 2
	for !utf8.RuneStart(data[half]) {
		half++
	}
	asPieces, _ := json.Marshal([]string{string(data[:half]), string(data[half:])})
	for name, raw := range map[string][]byte{"object": data, "string": asString, "pieces": asPieces} {
		p, err := ParsePayload(raw)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(p.Card, c) {
			t.Errorf("%s: card changed in the round trip:\n got %+v\nwant %+v", name, p.Card, c)
		}
		if !reflect.DeepEqual(p.Report, r) || p.Trace != id || p.CoursekitVersion != coursekit.Version {
			t.Errorf("%s: payload changed in the round trip", name)
		}
		// The grader recomputes from the card it read: same verdict.
		if got := Check(p.Card, readUnitTrace(t)); !reflect.DeepEqual(got, r) {
			t.Errorf("%s: recomputed report differs", name)
		}
	}
}

func TestParsePayloadRejectsBadInput(t *testing.T) {
	for name, raw := range map[string]string{
		"empty":      "",
		"truncated":  `{"schema":"coursekit.card/v2","card":{`,
		"not json":   "<html>",
		"old schema": `{"schema":"coursekit.card/v0","card":{}}`,
		"no card":    `{"schema":"coursekit.card/v2"}`,
		"wrong type": `{"schema":"coursekit.card/v2","card":{"attempts":"ten"}}`,
		"bad string": `"{not json}"`,
	} {
		if _, err := ParsePayload([]byte(raw)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// A v1 payload holds a P95 and a failure rate in each condition. Read into
// today's Card they would vanish without a word and the card would fail
// figures.p95 for a number it did write: it is refused by name instead.
func TestParsePayloadRefusesTheOldLayoutByName(t *testing.T) {
	old := `{"schema":"coursekit.card/v1","card":{"attempts":10,"conditions":[{"slo":{"value":1,"unit":"s"},"p95":{"value":2,"unit":"s"},"failure_rate":{"num":2,"den":10,"unit":"失败尝试/全部尝试"}}]}}`
	_, err := ParsePayload([]byte(old))
	if !errors.Is(err, ErrOldCardLayout) {
		t.Fatalf("v1 payload: err = %v, want ErrOldCardLayout", err)
	}
	for _, want := range []string{"coursekit.card/v1", "P95", "failure_rate", "inside each condition", PayloadSchema} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
}

// The card's own P95 and failure rate are checked for JSON like the rest.
func TestMarshalPayloadNamesACardLevelNaN(t *testing.T) {
	c := reference()
	c.P95.Value = math.Inf(1)
	if _, err := MarshalPayload(c, Report{}, TraceIdentity{}); err == nil || !strings.Contains(err.Error(), "card: p95.value") {
		t.Errorf("+Inf P95: err = %v", err)
	}
}

func TestMarshalPayloadRejectsNaN(t *testing.T) {
	c := reference()
	c.Conditions[1].Goodput.Value = math.NaN()
	_, err := MarshalPayload(c, Report{}, TraceIdentity{})
	if err == nil || !strings.Contains(err.Error(), "conditions[1].goodput.value") {
		t.Errorf("NaN: err = %v", err)
	}
	// Check itself copes: the figure simply does not match.
	if x, _ := Check(c, readUnitTrace(t)).Result("figures.goodput"); x.Status != Fail {
		t.Errorf("NaN goodput passed")
	}
}

func TestIdentityNeverCarriesAnAbsolutePath(t *testing.T) {
	abs, _ := filepath.Abs(unitTrace)
	if id := IdentifyBytes(abs, nil); id.Path != "trace.jsonl" {
		t.Errorf("absolute path kept: %q", id.Path)
	}
}

func TestCheckFile(t *testing.T) {
	r, id, err := CheckFile(reference(), unitTrace)
	if err != nil || !r.AllPublicPassed() || id.SHA256 == "" {
		t.Fatalf("CheckFile: %v %+v", err, id)
	}
	abs, _ := filepath.Abs(filepath.Join(t.TempDir(), "missing.jsonl"))
	r, id, err = CheckFile(reference(), abs)
	if err == nil || r.Error == "" || r.AllPublicPassed() {
		t.Errorf("missing file: err %v, report error %q", err, r.Error)
	}
	if strings.Contains(r.Error, string(filepath.Separator)+"missing") || strings.Contains(id.Path, string(filepath.Separator)) {
		t.Errorf("a machine path leaked: %q %q", r.Error, id.Path)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"trace\":\"nope\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, _, err := CheckFile(reference(), bad); err == nil || r.Error == "" {
		t.Errorf("bad trace accepted")
	}
}
