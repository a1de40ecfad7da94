package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// layout is what a tool's result file has at its top: the keys of its one
// object (or of a JSON Lines file's first record), or of the first row of
// its array. Each entry lists keys its importer needs, so that a file which
// has them all is that tool's, not merely like it.
type layout struct {
	tool  string   // the --from value
	name  string   // the tool as its makers write it
	file  string   // what the file is, as the message names it
	array bool     // the keys are the first array element's
	keys  []string // all present
}

// layouts are the tools' files as their importers read them.
var layouts = []layout{
	{tool: "vllm", name: "vLLM", file: "vLLM's result JSON", keys: []string{"ttfts", "num_prompts"}},
	{tool: "aiperf", name: "AIPerf", file: "AIPerf's profile_export.jsonl", keys: []string{"metadata", "metrics"}},
	{tool: "genai-perf", name: "GenAI-Perf", file: "GenAI-Perf's profile_export.json", keys: []string{"experiments"}},
	{tool: "guidellm", name: "guidellm", file: "guidellm's benchmarks.json", keys: []string{"benchmarks"}},
	{tool: "llmperf", name: "llmperf", file: "llmperf's individual_responses.json", array: true, keys: []string{"ttft_s", "end_to_end_latency_s"}},
	{tool: "inference-perf", name: "inference-perf", file: "inference-perf's per-request lifecycle metrics", array: true, keys: []string{"start_time", "end_time", "info"}},
}

// topKeys returns the keys of raw's first JSON value when it is an object,
// or of its first element when it is an array (arr true); ok is false for
// anything else, a value that does not parse included.
func topKeys(raw []byte) (keys map[string]json.RawMessage, arr, ok bool) {
	var v json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&v); err != nil {
		return nil, false, false
	}
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '[' {
		var elems []json.RawMessage
		if json.Unmarshal(v, &elems) != nil || len(elems) == 0 {
			return nil, true, false
		}
		v, arr = elems[0], true
	}
	if json.Unmarshal(v, &keys) != nil || keys == nil {
		return nil, arr, false
	}
	return keys, arr, true
}

// wrongFile tells, for a file that tool from failed to import, whether it
// is recognisably something else: a coursekit trace, which needs no import,
// or exactly one other tool's layout. It returns nil where the file is
// nobody's or ambiguous, and the importer's own error then stands.
func wrongFile(from, name string, raw []byte) error {
	keys, arr, ok := topKeys(raw)
	if !ok {
		return nil
	}
	if _, isTrace := keys["trace"]; isTrace && !arr {
		return fmt.Errorf("%s: this is already a coursekit trace (its first line is a trace header): it needs no import; give it to coursekit card or coursekit report", name)
	}
	var found []layout
	for _, l := range layouts {
		if l.array != arr {
			continue
		}
		all := true
		for _, k := range l.keys {
			if _, ok := keys[k]; !ok {
				all = false
				break
			}
		}
		if all {
			found = append(found, l)
		}
	}
	if len(found) != 1 || found[0].tool == from {
		return nil
	}
	not := from
	for _, l := range layouts {
		if l.tool == from {
			not = l.name
		}
	}
	return fmt.Errorf("%s: this looks like %s, not %s's output: try --from %s", name, found[0].file, not, found[0].tool)
}
