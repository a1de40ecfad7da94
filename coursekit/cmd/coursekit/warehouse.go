package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/llmperf-course/course/coursekit/cardopts"
	"github.com/llmperf-course/course/coursekit/export"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/sqlcard"
	"github.com/llmperf-course/course/coursekit/trace"
)

// cmdExport writes a trace as a table: Parquet for warehouses, CSV for
// spreadsheets. `coursekit csv` is `export --format csv`.
func cmdExport(name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	format := "csv"
	if name == "export" {
		fs.StringVar(&format, "format", "parquet", "output: parquet (one row per attempt, events as a list, header in the metadata) or csv")
	}
	out := fs.String("o", "", "write the table to FILE (default: stdout, CSV only)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	// export prints no text for people but its errors, which are English.
	if pos, err = traceArgs(name, lang.EN, pos, stderr); err != nil {
		return err
	}
	path, err := oneTrace(name, pos)
	if err != nil {
		return err
	}
	if format != "parquet" && format != "csv" {
		return usagef("%s: unknown format %q (want parquet or csv)", name, format)
	}
	if format == "parquet" && *out == "" {
		return usagef("%s: Parquet is binary: name the file with -o FILE", name)
	}
	if path == "-" && *out == "" { // CSV to stdout streams standard input through
		return trace.WriteCSV(stdin, stdinName, stdout)
	}
	if path == "-" {
		spooled, done, err := spoolStdin()
		if err != nil {
			return err
		}
		defer done()
		return stdinErr(writeTable(format, spooled, *out, stdout), spooled)
	}
	return writeTable(format, path, *out, stdout)
}

// writeTable writes the trace at path as a format table to out (CSV:
// stdout when out is "").
func writeTable(format, path, out string, stdout io.Writer) error {
	switch {
	case format == "parquet":
		return export.WriteParquetFile(path, out)
	case out == "":
		return trace.WriteCSVFile(path, stdout)
	}
	return export.WriteCSVFile(path, out)
}

// cmdSQL prints the card's core as one SQL query over Parquet exports.
func cmdSQL(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sql", flag.ContinueOnError)
	dialect := fs.String("dialect", string(sqlcard.DuckDB), "SQL engine: duckdb or spark")
	var opts cardopts.Flags
	opts.RegisterSLOsDefault(fs, "TTFT SLO of a condition, one output row each (repeat; default: the trace's recorded conditions.slo, as card, else 1s)", cardopts.RecordedSLODefault)
	opts.RegisterWindowCost(fs)
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	d, err := sqlcard.ParseDialect(*dialect)
	if err != nil {
		return usagef("sql: %v", err)
	}
	if len(pos) == 0 {
		return usagef("sql: want one or more PARQUET files (made by coursekit export)")
	}
	var first *trace.Header
	for _, p := range pos {
		h, err := export.ReadHeader(p)
		if err != nil {
			return err
		}
		if first == nil {
			first = h
			continue
		}
		if h.Window != first.Window || !sameCost(h.WindowCost, first.WindowCost) {
			return &trace.Error{File: p, Msg: fmt.Sprintf("its window or window_cost differs from %s's: one query computes the card of one window", pos[0])}
		}
	}
	// The SLOs and the quality rule are card's: the flags, else the trace's recorded ones.
	o, err := opts.Options(first)
	if err != nil {
		return &trace.Error{File: pos[0], Msg: err.Error()}
	}
	q, err := sqlcard.Query(d, pos, first, sqlcard.Options{SLOsMS: o.SLOsMS, WindowCost: opts.WindowCost, Latency: o.Latency, Judged: o.Judged})
	if errors.Is(err, sqlcard.ErrLatencySLO) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(stdout, q)
	return err
}

func sameCost(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}
