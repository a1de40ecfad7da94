package tracefig

import "testing"

// SetChartPoints lowers the sampling limit for one test: the sampling is the same at any
// limit, and traces a few times a small one decode quickly.
func SetChartPoints(t testing.TB, n int) int {
	old := chartPoints
	chartPoints = n
	t.Cleanup(func() { chartPoints = old })
	return n
}

// Rows is how many attempts d digested.
func (d *Digest) Rows() int64 { return d.rows }
