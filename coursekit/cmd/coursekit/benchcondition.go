package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// conditionFlags are bench's repeated --condition KEY=VALUE: conditions
// of the run that the client cannot see (the server's slot count, a build
// flag), recorded in the header's conditions beside bench's own, for card
// to show and compare to compare.
type conditionFlags []string

func (*conditionFlags) Metavar() string { return "KEY=VALUE" }

func (c *conditionFlags) String() string { return strings.Join(*c, " ") }

// The header records every --condition, and must stay under the trace
// reader's 1 MiB line (a JSON escape is up to 6 bytes a byte): one is at
// most maxConditionBytes, all together at most maxConditionsBytes. A
// server's slot count or build id is a few dozen bytes.
const (
	maxConditionBytes  = 4 << 10
	maxConditionsBytes = 64 << 10
)

func (c *conditionFlags) Set(v string) error {
	if len(v) > maxConditionBytes {
		return fmt.Errorf("%.40q… is %d bytes: a condition is at most %d bytes (KEY=VALUE), for the trace header to stay readable", v, len(v), maxConditionBytes)
	}
	total := len(v)
	for _, kv := range *c {
		total += len(kv)
	}
	if total > maxConditionsBytes {
		return fmt.Errorf("the conditions together are %d bytes: at most %d bytes, for the trace header to stay readable", total, maxConditionsBytes)
	}
	key, _, ok := strings.Cut(v, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q: want KEY=VALUE, e.g. engine.parallel=4", v)
	}
	for _, part := range strings.Split(key, ".") {
		if part == "" {
			return fmt.Errorf("%q: a key has no empty part (write engine.parallel)", key)
		}
	}
	*c = append(*c, v)
	return nil
}

const conditionHelp = "a condition of the run that bench cannot see, recorded in the header's conditions: KEY=VALUE, e.g. engine.parallel=4 or server.build=b4567 (repeat; a dotted key nests: engine.parallel is conditions.engine.parallel; a VALUE that reads as a JSON number, true, false or a quoted string is kept as that, else it is a string; a key that bench records itself or coursekit reads, such as model, slo, percentiles or dataset, is refused, in any case, and so are two keys that differ only in case; each KEY=VALUE is at most 4 KiB, all together 64 KiB; default: none)"

// add puts every --condition into conds, refusing a key that bench
// records itself (cfg), that two flags give, or that differs from another
// only in case (coursekit reads keys in any case, so both would be
// recorded and one read).
func (c conditionFlags) add(conds map[string]any, cfg *loadgen.Config) error {
	given := map[string]bool{}
	for _, kv := range c {
		key, val, _ := strings.Cut(kv, "=")
		if cfg.ReservedCondition(key) {
			head, _, _ := strings.Cut(key, ".")
			return fmt.Errorf("--condition %s: %q is a condition bench records itself or coursekit reads; give it with its own flag", kv, head)
		}
		if given[key] {
			return fmt.Errorf("--condition %s: %s is given twice", kv, key)
		}
		given[key] = true
		var v any = val
		var parsed any
		if json.Unmarshal([]byte(val), &parsed) == nil {
			switch parsed.(type) {
			case float64, bool, string:
				v = json.RawMessage(val)
			}
		}
		parts := strings.Split(key, ".")
		m := conds
		for i, p := range parts {
			for k := range m {
				if k != p && strings.EqualFold(k, p) {
					return fmt.Errorf("--condition %s: %q and %q differ only in case, and coursekit reads keys in any case: give one", kv, k, p)
				}
			}
			if i == len(parts)-1 {
				break
			}
			next, ok := m[p]
			if !ok {
				sub := map[string]any{}
				m[p], m = sub, sub
				continue
			}
			sub, isMap := next.(map[string]any)
			if !isMap {
				return fmt.Errorf("--condition %s: %s already has a value", kv, strings.Join(parts[:i+1], "."))
			}
			m = sub
		}
		last := parts[len(parts)-1]
		if _, ok := m[last]; ok {
			return fmt.Errorf("--condition %s: %s already holds other conditions", kv, key)
		}
		m[last] = v
	}
	return nil
}
