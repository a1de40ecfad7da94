// Package metrics computes the honest summary of a trace: every rate with
// its numerator, denominator and unit, every percentile with its method and
// sample count, and failures kept in the denominators.
//
// It knows nothing of notebooks, charts or grading; those read its results.
package metrics

import (
	"fmt"
	"math"
)

// Method names how a percentile is read off a sorted sample.
type Method string

const (
	// NearestRank is the ⌈p·n⌉-th smallest value: always an observed value.
	// The course uses it by default.
	NearestRank Method = "nearest-rank"
	// Linear is numpy's default (Hyndman–Fan type 7), used by vLLM, AIPerf
	// and GenAI-Perf; it interpolates between observed values.
	Linear Method = "linear"
)

// ParseMethod accepts the CLI spelling of a method.
func ParseMethod(s string) (Method, error) {
	switch Method(s) {
	case NearestRank, Linear:
		return Method(s), nil
	}
	return "", fmt.Errorf("unknown percentile method %q (want nearest-rank or linear)", s)
}

// ppm is the scale at which percentile levels are exact integers, so that
// ⌈p·n⌉ is computed without floating-point error (0.07×100 = 7.000000000000001).
const ppm = 1_000_000

// NearestRankIndex is the 0-based index of the ⌈p·n⌉-th smallest of n
// values, with p rounded to a millionth and the ceiling taken in integers.
func NearestRankIndex(n int, p float64) int {
	k := (int64(math.Round(p*ppm))*int64(n) + ppm - 1) / ppm
	if k < 1 {
		k = 1
	}
	if k > int64(n) {
		k = int64(n)
	}
	return int(k - 1)
}

// Quantile reads the p-quantile (0 ≤ p ≤ 1) of an ascending sample.
// ok is false for an empty sample: there is no percentile of nothing.
func Quantile(sorted []float64, p float64, m Method) (v float64, ok bool) {
	n := len(sorted)
	if n == 0 {
		return 0, false
	}
	if m == Linear {
		return linear(sorted, p), true
	}
	return sorted[NearestRankIndex(n, p)], true
}

// linear reproduces numpy.percentile(method="linear") bit for bit,
// including numpy's two-sided lerp.
func linear(x []float64, p float64) float64 {
	n := len(x)
	h := float64(n-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i >= n-1 {
		return x[n-1]
	}
	if i < 0 {
		return x[0]
	}
	return lerp(x[i], x[i+1], h-lo)
}

// lerp is numpy's two-sided linear interpolation.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}
