package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// JSONSchema passes an answer that is one JSON value valid under the
// schema. A schema without "$schema" is read as draft 2020-12; drafts 4, 6,
// 7 and 2019-09 are honoured when named. The schema must be
// self-contained: a $ref to another file or URL is an error when the
// judge is built (nothing is fetched). An answer wrapped in one Markdown
// code fence (```json … ```) is judged by what is inside it.
type JSONSchema struct{ sch *jsonschema.Schema }

// refuseLoader makes every external $ref an error: a dataset is judged
// offline and the same way on every machine.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s: a json_schema expectation must be self-contained (no external $ref)", url)
}

// NewJSONSchema compiles a schema given as JSON (an object, or true/false).
func NewJSONSchema(schema json.RawMessage) (*JSONSchema, error) {
	s := bytes.TrimSpace(schema)
	if len(s) == 0 || (s[0] != '{' && string(s) != "true" && string(s) != "false") {
		return nil, fmt.Errorf("json_schema: want a schema object, got %s", shortJSON(schema))
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
	if err != nil {
		return nil, fmt.Errorf("json_schema: not valid JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(refuseLoader{})
	c.DefaultDraft(jsonschema.Draft2020)
	const loc = "file:///coursekit/expect.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("json_schema: %v", oneLine(err))
	}
	sch, err := c.Compile(loc)
	if err != nil {
		var se *jsonschema.SchemaValidationError
		var ve *jsonschema.ValidationError
		if errors.As(err, &se) && errors.As(se.Err, &ve) {
			// Not valid against the draft's metaschema: say where in the schema.
			return nil, fmt.Errorf("json_schema: invalid schema: %s", strings.Replace(firstCause(ve), "at ", "schema at ", 1))
		}
		return nil, fmt.Errorf("json_schema: invalid schema: %s", oneLine(err))
	}
	return &JSONSchema{sch: sch}, nil
}

func (j *JSONSchema) Name() string { return "json_schema" }

func (j *JSONSchema) Judge(answer string) Verdict {
	body := unfence(strings.TrimSpace(answer))
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(body))
	if err != nil {
		return Verdict{Reason: fmt.Sprintf("not one JSON value (%s): %s", oneLine(err), quote(body, 40))}
	}
	if err := j.sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return Verdict{Reason: "schema: " + firstCause(ve)}
		}
		return Verdict{Reason: "schema: " + oneLine(err)}
	}
	return Verdict{Pass: true, Reason: "valid under the schema"}
}

// firstCause is the deepest first validation error, e.g.
// `at /age: got string, want integer`.
func firstCause(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	at := "/" + strings.Join(ve.InstanceLocation, "/")
	msg := oneLine(ve)
	// The library's own text starts with the location; keep the message part.
	if i := strings.Index(msg, ": "); i >= 0 && strings.HasPrefix(msg, "at ") {
		msg = msg[i+2:]
	}
	return shorten("at "+at+": "+msg, 160)
}

// unfence strips one surrounding Markdown code fence.
func unfence(s string) string {
	if !strings.HasPrefix(s, "```") || !strings.HasSuffix(s, "```") || len(s) < 6 {
		return s
	}
	inner := s[3 : len(s)-3]
	if i := strings.IndexByte(inner, '\n'); i >= 0 && !strings.ContainsAny(inner[:i], "{[\"") {
		inner = inner[i+1:] // the info string, e.g. json
	}
	return strings.TrimSpace(inner)
}

func oneLine(err error) string {
	return shorten(strings.Join(strings.Fields(err.Error()), " "), 200)
}

func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
