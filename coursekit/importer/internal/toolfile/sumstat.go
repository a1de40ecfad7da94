package toolfile

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// SumKind says how a summary number is checked.
type SumKind int

const (
	SumTime   SumKind = iota // a duration: ≥ 0; NaN/Infinity kept as NonFinite
	SumSigned                // a signed duration (a schedule lag can be negative)
	SumValue                 // a rate, ratio or percentage: ≥ 0; NaN/Infinity kept
	SumCount                 // a request count: a whole number ≥ 0, never NaN
)

// SumStat reads o[key] as one Stat, multiplied by scale. ok is false when
// the key is absent; null gives a Stat with a nil Value.
func SumStat(o *Obj, key, metric, stat string, scale float64, k SumKind) (Stat, bool, error) {
	raw, ok := o.Get(key)
	if !ok {
		return Stat{}, false, nil
	}
	st := Stat{Metric: metric, Stat: stat, Key: JoinPath(o.Path, key)}
	if IsNull(raw) {
		return st, true, nil
	}
	if k == SumCount {
		n, err := o.Src.Count(raw, o.Line, st.Key)
		if err != nil {
			return Stat{}, false, err
		}
		st.Value = Ptr(float64(n))
		return st, true, nil
	}
	v, err := o.Src.Num(raw, o.Line, st.Key)
	if err != nil {
		return Stat{}, false, err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		st.NonFinite = strings.Trim(string(bytes.TrimSpace(raw)), `"#`)
		return st, true, nil
	}
	if v < 0 && k != SumSigned {
		return Stat{}, false, o.Err(key, fmt.Sprintf("is negative (%g), want a value ≥ 0", v))
	}
	st.Value = Ptr(Snap(v * scale))
	return st, true, nil
}

// Snap removes unit-conversion noise (0.182 s → 182.00000000000003 ms) by
// keeping 15 significant digits.
func Snap(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 15, 64), 64)
	return f
}

// AddStats appends the stats of keys found in o (key → stat name), in order.
func AddStats(out []Stat, o *Obj, metric string, scale float64, k SumKind, keys [][2]string) ([]Stat, error) {
	for _, ks := range keys {
		st, ok, err := SumStat(o, ks[0], metric, ks[1], scale, k)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, st)
		}
	}
	return out, nil
}

// StatName is the Stat of a single number: count for a request count.
func StatName(k SumKind) string {
	if k == SumCount {
		return "count"
	}
	return "value"
}
