// Package sqlcard writes the core of the metrics card as one SQL query over
// Parquet exports (coursekit/export), for DuckDB and Spark SQL, so that the
// honest card can be read where request logs live: in a warehouse.
//
// The query keeps the card's definitions, not the engines' defaults:
//   - percentiles are nearest rank, the ⌈p·n⌉-th smallest value taken with
//     row_number(), with ⌈p·n⌉ computed in integers as metrics.NearestRankIndex
//     does, never the engines' interpolating or discrete quantile functions;
//   - failures and in-flight attempts stay in every denominator (attempts);
//   - a missing TTFT is missing: only complete successes have one, and no
//     null becomes 0;
//   - an attempt is qualified under the card's rule (metrics.Rule): a
//     complete success whose TTFT, and E2E when --slo-e2e is set, are at
//     most the SLOs, and which passed quality when quality is required.
//     Quality is required with a TTFT SLO alone, and with a latency SLO
//     when a judge was asked for (Options.Judged) or any success was
//     rated; otherwise a success qualifies on latency alone. When quality
//     is required and no success was rated, the qualified count is unknown
//     (NULL), as the card's is.
//
// Columns lists every output column beside the Go card value it must equal,
// so the query and the card are checked against one table.
package sqlcard

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/safetext"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// Dialect is an SQL engine the query is written for.
type Dialect string

// The dialects Query writes.
const (
	DuckDB Dialect = "duckdb"
	Spark  Dialect = "spark"
)

// ParseDialect accepts the CLI spelling of a dialect.
func ParseDialect(s string) (Dialect, error) {
	switch Dialect(s) {
	case DuckDB, Spark:
		return Dialect(s), nil
	}
	return "", fmt.Errorf("unknown SQL dialect %q (want duckdb or spark)", s)
}

// Options are the card's choices the query takes.
type Options struct {
	// SLOsMS are the TTFT SLO conditions, one output row each (default 1000 ms).
	SLOsMS []float64
	// WindowCost overrides the header's window_cost when set.
	WindowCost *float64
	// Latency are the per-attempt SLOs beyond TTFT; the query judges E2E
	// (ITL P95 and TPOT are refused: coursekit card judges them).
	Latency metrics.LatencySLO
	// Judged says a judge was asked for (metrics.Options.Judged).
	Judged bool
}

// ErrLatencySLO refuses an SLO the query does not judge.
var ErrLatencySLO = errors.New("sql: the query judges TTFT and E2E SLOs only; an ITL P95 or TPOT SLO (given, or recorded in the header's conditions.slo) is judged by coursekit card")

// Column is one output column and the value of the Go card it must equal
// (nil: SQL NULL). Card reads a metrics.Summary and one of its conditions.
type Column struct {
	Name string
	Card func(s *metrics.Summary, c *metrics.Condition) *float64
}

func count(f func(s *metrics.Summary) int64) func(*metrics.Summary, *metrics.Condition) *float64 {
	return func(s *metrics.Summary, _ *metrics.Condition) *float64 { v := float64(f(s)); return &v }
}

// Columns are the query's output columns, in order.
var Columns = []Column{
	{"attempts", count(func(s *metrics.Summary) int64 { return s.Attempts })},
	{"complete_successes", count(func(s *metrics.Summary) int64 { return s.CompleteSuccess })},
	{"failures", count(func(s *metrics.Summary) int64 { return s.Failures })},
	{"in_flight", count(func(s *metrics.Summary) int64 { return s.InFlight })},
	{"outside_window", count(func(s *metrics.Summary) int64 { return s.OutsideWindow })},
	{"ttft_p50_ms", func(s *metrics.Summary, _ *metrics.Condition) *float64 { return s.TTFT.P50 }},
	{"ttft_p95_ms", func(s *metrics.Summary, _ *metrics.Condition) *float64 { return s.TTFT.P95 }},
	{"ttft_p99_ms", func(s *metrics.Summary, _ *metrics.Condition) *float64 { return s.TTFT.P99 }},
	{"e2e_p95_ms", func(s *metrics.Summary, _ *metrics.Condition) *float64 { return s.E2E.P95 }},
	{"itl_p95_ms", func(s *metrics.Summary, _ *metrics.Condition) *float64 { return s.ITL.P95 }},
	{"slo_ttft_ms", func(_ *metrics.Summary, c *metrics.Condition) *float64 { return &c.SLOTTFTMS }},
	{"slo_e2e_ms", func(_ *metrics.Summary, c *metrics.Condition) *float64 {
		if c.E2EMS == 0 {
			return nil
		}
		return &c.E2EMS
	}},
	{"qualified", known(func(c *metrics.Condition) float64 { return float64(c.Qualified) })},
	{"goodput_per_s", known(func(c *metrics.Condition) float64 { return c.GoodputPerS })},
	{"cost_per_1000_qualified", func(_ *metrics.Summary, c *metrics.Condition) *float64 { return c.CostPer1000 }},
}

// known is a condition's value, nil when its qualified count is unknown
// (metrics.Condition.Unknown): the card writes null there, not 0.
func known(f func(c *metrics.Condition) float64) func(*metrics.Summary, *metrics.Condition) *float64 {
	return func(_ *metrics.Summary, c *metrics.Condition) *float64 {
		if c.Unknown != "" {
			return nil
		}
		v := f(c)
		return &v
	}
}

// rankScale is the scale at which percentile levels are whole numbers,
// the same as metrics.NearestRankIndex's, so ⌈p·n⌉ has no rounding error.
const rankScale = 1_000_000

// globChars are the characters DuckDB and Spark (Hadoop) expand in a file name.
const globChars = "*?[]{}"

// Query writes the card's query over the Parquet exports files, all of one
// trace window h (read it with export.ReadHeader).
func Query(d Dialect, files []string, h *trace.Header, opts Options) (string, error) {
	if len(files) == 0 {
		return "", fmt.Errorf("sql: no Parquet file given")
	}
	if _, err := ParseDialect(string(d)); err != nil {
		return "", err
	}
	for _, f := range files {
		// The query is printed for a terminal or a pipe, and the name must stay the file's
		// own bytes to name the file: a control code, a bidi override or a byte that is not
		// UTF-8 in it is refused rather than printed raw or escaped into another name.
		if safetext.Line(f) != f {
			return "", &trace.Error{File: safetext.Line(f), Msg: "the file name holds control codes or bytes that are not UTF-8 (shown escaped), which the query would print raw: rename the file"}
		}
		// DuckDB's read_parquet and Spark's parquet.`…` read a name as a glob pattern: "g*[1].parquet"
		// would read every file the pattern matches (or none), not this one. Neither has an escape
		// that both engines honour, so such a name is refused.
		if i := strings.IndexAny(f, globChars); i >= 0 {
			return "", &trace.Error{File: f, Msg: fmt.Sprintf("the file name holds %q, which DuckDB and Spark read as a glob pattern (any of %s), so the query would read other files or none: rename the file", f[i:i+1], globChars)}
		}
	}
	if opts.Latency.ITLP95MS > 0 || opts.Latency.TPOTMS > 0 {
		return "", ErrLatencySLO
	}
	slos := opts.SLOsMS
	if len(slos) == 0 {
		slos = []float64{metrics.DefaultSLOMS}
	}
	cost := h.WindowCost
	if opts.WindowCost != nil {
		cost = opts.WindowCost
	}
	q := &builder{d: d}
	q.line("-- The metrics card's core (coursekit sql --dialect %s): nearest-rank percentiles,", d)
	q.line("-- failures in every denominator, missing TTFT missing; one row per TTFT SLO.")
	q.line("WITH src AS (")
	q.line("  %s", q.source(files))
	q.line("),")
	q.line("win AS (")
	q.line("  SELECT outcome, quality, start_ms, end_ms, events,")
	q.line("    start_ms >= %s AND start_ms < %s AS in_window", double(h.Window.StartMS), double(h.Window.EndMS))
	q.line("  FROM src")
	q.line("),")
	q.line("ok AS (")
	q.line("  SELECT %s - start_ms AS ttft_ms, end_ms - start_ms AS e2e_ms, events, quality", q.firstEventT())
	q.line("  FROM win WHERE in_window AND outcome = %s", str(trace.OK.String()))
	q.line("),")
	q.line("counts AS (")
	q.line("  SELECT count(CASE WHEN in_window THEN 1 END) AS attempts,")
	q.line("    count(CASE WHEN in_window AND outcome = %s THEN 1 END) AS complete_successes,", str(trace.OK.String()))
	q.line("    count(CASE WHEN in_window AND outcome = %s THEN 1 END) AS in_flight,", str(trace.InFlight.String()))
	q.line("    count(CASE WHEN NOT in_window THEN 1 END) AS outside_window,")
	q.line("    count(CASE WHEN in_window AND outcome = %s AND quality IS NOT NULL THEN 1 END) AS rated", str(trace.OK.String()))
	q.line("  FROM win")
	q.line("),")
	q.line("itl AS (")
	q.line("  SELECT %s AS v FROM ok", q.intervals())
	q.line("),")
	q.dist("ttft", "SELECT ttft_ms AS v FROM ok", []float64{0.50, 0.95, 0.99})
	q.dist("e2e", "SELECT e2e_ms AS v FROM ok", []float64{0.95})
	q.dist("itl", "SELECT v FROM itl", []float64{0.95})
	q.line("slos AS (")
	for i, s := range slos {
		if i > 0 {
			q.line("  UNION ALL")
		}
		q.line("  SELECT %d AS i, %s AS slo_ttft_ms", i, double(s))
	}
	q.line("),")
	e2eOK := "TRUE"
	if opts.Latency.E2EMS > 0 {
		e2eOK = fmt.Sprintf("ok.e2e_ms <= %s", double(opts.Latency.E2EMS))
	}
	q.line("qual0 AS (")
	q.line("  SELECT slos.i, slos.slo_ttft_ms,")
	q.line("    count(CASE WHEN ok.quality = %s AND ok.ttft_ms <= slos.slo_ttft_ms AND %s THEN 1 END) AS passed,", str(trace.Pass.String()), e2eOK)
	q.line("    count(CASE WHEN ok.ttft_ms <= slos.slo_ttft_ms AND %s THEN 1 END) AS fast", e2eOK)
	q.line("  FROM slos LEFT JOIN ok ON 1 = 1")
	q.line("  GROUP BY slos.i, slos.slo_ttft_ms")
	q.line("),")
	// Quality is required unless a latency SLO is set and nothing asked
	// for or recorded a judgement; required with nothing rated, the count
	// is unknown (the card's metrics.Condition.Unknown).
	required := "TRUE"
	if opts.Latency.Set() && !opts.Judged {
		required = "counts.rated > 0"
	}
	q.line("qual AS (")
	q.line("  SELECT qual0.i, qual0.slo_ttft_ms,")
	q.line("    CASE WHEN NOT (%s) THEN qual0.fast", required)
	q.line("      WHEN counts.rated = 0 AND counts.complete_successes > 0 THEN CAST(NULL AS BIGINT)")
	q.line("      ELSE qual0.passed END AS qualified")
	q.line("  FROM qual0 CROSS JOIN counts")
	q.line(")")
	costExpr := "CAST(NULL AS DOUBLE)"
	if cost != nil {
		costExpr = fmt.Sprintf("CASE WHEN qual.qualified > 0 THEN %s * %s / CAST(qual.qualified AS DOUBLE) END", double(*cost), double(1000))
	}
	exprs := map[string]string{
		"attempts":                "counts.attempts",
		"complete_successes":      "counts.complete_successes",
		"failures":                "counts.attempts - counts.complete_successes - counts.in_flight",
		"in_flight":               "counts.in_flight",
		"outside_window":          "counts.outside_window",
		"ttft_p50_ms":             "ttft_p.p50",
		"ttft_p95_ms":             "ttft_p.p95",
		"ttft_p99_ms":             "ttft_p.p99",
		"e2e_p95_ms":              "e2e_p.p95",
		"itl_p95_ms":              "itl_p.p95",
		"slo_ttft_ms":             "qual.slo_ttft_ms",
		"slo_e2e_ms":              nullable(opts.Latency.E2EMS),
		"qualified":               "qual.qualified",
		"goodput_per_s":           fmt.Sprintf("CAST(qual.qualified AS DOUBLE) / %s", double(h.Window.Seconds())),
		"cost_per_1000_qualified": costExpr,
	}
	q.line("SELECT")
	for i, c := range Columns {
		sep := ","
		if i == len(Columns)-1 {
			sep = ""
		}
		q.line("  %s AS %s%s", exprs[c.Name], c.Name, sep)
	}
	q.line("FROM counts CROSS JOIN ttft_p CROSS JOIN e2e_p CROSS JOIN itl_p CROSS JOIN qual")
	q.line("ORDER BY qual.i")
	return q.String(), nil
}

// nullable is ms as a literal, NULL when 0 (no such SLO).
func nullable(ms float64) string {
	if ms == 0 {
		return "CAST(NULL AS DOUBLE)"
	}
	return double(ms)
}

type builder struct {
	strings.Builder
	d Dialect
}

func (q *builder) line(format string, a ...any) {
	fmt.Fprintf(q, format, a...)
	q.WriteByte('\n')
}

func (q *builder) source(files []string) string {
	if q.d == DuckDB {
		quoted := make([]string, len(files))
		for i, f := range files {
			quoted[i] = str(f) // DuckDB strings have no backslash escapes
		}
		return "SELECT * FROM read_parquet([" + strings.Join(quoted, ", ") + "])"
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = "SELECT * FROM parquet.`" + strings.ReplaceAll(f, "`", "``") + "`"
	}
	return strings.Join(parts, " UNION ALL ")
}

// firstEventT is the first event's time: DuckDB lists count from 1, Spark arrays from 0.
func (q *builder) firstEventT() string {
	if q.d == DuckDB {
		return "events[1].t_ms"
	}
	return "events[0].t_ms"
}

// intervals is one row per gap between consecutive events (per event, not per token).
func (q *builder) intervals() string {
	if q.d == DuckDB {
		return "unnest(list_transform(range(1, len(events)), lambda i: events[i + 1].t_ms - events[i].t_ms))"
	}
	return "explode(zip_with(slice(events, 2, size(events) - 1), slice(events, 1, size(events) - 1), (b, a) -> b.t_ms - a.t_ms))"
}

// dist writes NAME (v ranked) and NAME_p (one column per level, null when empty).
func (q *builder) dist(name, values string, levels []float64) {
	q.line("%s_r AS (", name)
	q.line("  SELECT v, row_number() OVER (ORDER BY v) AS r, count(*) OVER () AS n FROM (%s) AS x", values)
	q.line("),")
	q.line("%s_p AS (", name)
	cols := make([]string, len(levels))
	for i, p := range levels {
		cols[i] = fmt.Sprintf("max(CASE WHEN r = %s THEN v END) AS p%d", q.rank(p), int(math.Round(p*100)))
	}
	q.line("  SELECT %s", strings.Join(cols, ", "))
	q.line("  FROM %s_r", name)
	q.line("),")
}

// rank is ⌈p·n⌉ in integers, clamped to [1, n]: metrics.NearestRankIndex + 1.
func (q *builder) rank(p float64) string {
	div := "DIV"
	if q.d == DuckDB {
		div = "//"
	}
	return fmt.Sprintf("least(greatest((%d * n + %d) %s %d, 1), n)", scaledLevel(p), rankScale-1, div, rankScale)
}

// scaledLevel is p in millionths, a whole number.
func scaledLevel(p float64) int64 { return int64(math.Round(p * rankScale)) }

// double is an exact DOUBLE literal: a bare 0.5 is DECIMAL in both engines,
// and decimal arithmetic would not give the Go card's float64 results.
func double(v float64) string {
	return "CAST('" + strconv.FormatFloat(v, 'g', -1, 64) + "' AS DOUBLE)"
}

// str is a string literal with its quotes doubled (the literals besides file
// names are outcome and quality names, plain ASCII words).
func str(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
