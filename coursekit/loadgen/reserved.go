package loadgen

import (
	"encoding/json"
	"strings"
)

// reservedConditions are condition keys bench writes in some runs but not
// in every one (the loop's, a dataset's, a metrics sidecar's), and those
// coursekit reads (trace.Conditions).
var reservedConditions = []string{
	"loop", "concurrency", "think_time_ms", "arrival", "replay_requests", "rate_per_s", "burstiness", "schedule",
	"max_concurrency", "max_concurrency_rule", "dataset", "judges", "quality",
	"metrics_sidecar", "metrics_url", "metrics_scrape", "slo", "percentiles", "capture_ms", "run_end",
}

// ReservedCondition reports whether key, or its first dotted part
// (engine.parallel: engine), names in any case a condition that bench
// records itself (for this run or another kind of run) or that coursekit
// reads: a user's --condition may not replace or shadow it.
func (c *Config) ReservedCondition(key string) bool {
	head, _, _ := strings.Cut(key, ".")
	r := &runner{cfg: *c, chat: c.API == "chat"}
	r.cfg.Conditions = nil
	var own map[string]json.RawMessage
	_ = json.Unmarshal(r.conditions(0), &own)
	for k := range own {
		if strings.EqualFold(k, head) {
			return true
		}
	}
	for _, k := range reservedConditions {
		if strings.EqualFold(k, head) {
			return true
		}
	}
	return false
}
