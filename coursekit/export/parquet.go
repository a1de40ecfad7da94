// Package export writes a trace as a table for other tools: Parquet for
// warehouses (DuckDB, Spark, BigQuery) and CSV for spreadsheets and gota.
//
// A Parquet export has one row per attempt, in file order, with the trace's
// own field names and values: events stay a list of structs, a missing value
// (no end, not rated, not recorded) is null, never 0, and the header line is
// kept whole in the file's key-value metadata, so no fact of the trace is lost.
package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/llmperf-course/course/coursekit/internal/outfile"
	"io"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/llmperf-course/course/coursekit/trace"
)

// HeaderKey is the key-value metadata entry that holds the trace's header
// line as JSON.
const HeaderKey = "llm-serving/header"

// batchRows is how many attempts are buffered before a batch is written, and
// rowGroupBytes how many bytes of them (strings, meta and events) a row group
// holds before it is written out and a new one started: the writer buffers a
// whole row group, so rows alone would not bound it (400 attempts with 1 MB
// request ids took 2.4 GB of RSS; 365 MB with this bound, 725 MB with 64 MiB).
// Memory stays bounded whatever the trace's size and however long its strings.
const (
	batchRows     = 1 << 16
	rowGroupBytes = 16 << 20
)

// rowGroupRows bounds a row group, so engines can read a big export in parallel.
const rowGroupRows = 1 << 20

// Schema is the Arrow schema of a Parquet export, one row per attempt.
var Schema = arrow.NewSchema([]arrow.Field{
	{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "attempt", Type: arrow.BinaryTypes.String},
	{Name: "request", Type: arrow.BinaryTypes.String},
	{Name: "start_ms", Type: arrow.PrimitiveTypes.Float64},
	{Name: "outcome", Type: arrow.BinaryTypes.String},
	{Name: "http_status", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "events", Type: arrow.ListOfNonNullable(arrow.StructOf(
		arrow.Field{Name: "t_ms", Type: arrow.PrimitiveTypes.Float64},
		arrow.Field{Name: "tokens", Type: arrow.PrimitiveTypes.Int64},
	))},
	{Name: "end_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "finish_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "quality", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "input_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "output_tokens", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "error", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "meta", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// Column indexes into Schema.
const (
	colLine = iota
	colAttempt
	colRequest
	colStart
	colOutcome
	colHTTP
	colEvents
	colEnd
	colFinish
	colQuality
	colIn
	colOut
	colError
	colMeta
)

// WriteParquet reads a trace (name locates errors) and writes it to w as
// Parquet. Attempts are validated as `coursekit card` validates them; on a
// bad line it returns the reader's error and w holds an unfinished file.
func WriteParquet(r io.Reader, name string, w io.Writer) error {
	var (
		pw  *parquetWriter
		err error
	)
	scanErr := trace.Scan(r, name, func(h *trace.Header) error {
		pw, err = newParquetWriter(w, h)
		return err
	}, func(a *trace.Attempt) error {
		return pw.add(a)
	})
	if scanErr != nil {
		if pw != nil {
			pw.abort()
		}
		return scanErr
	}
	return pw.close()
}

// WriteParquetFile exports the trace at path to the Parquet file out.
func WriteParquetFile(path, out string) error {
	return writeFile(path, out, WriteParquet)
}

// WriteCSVFile exports the trace at path to the CSV file out (stdout when
// out is empty is the caller's business: see trace.WriteCSV).
func WriteCSVFile(path, out string) error {
	return writeFile(path, out, trace.WriteCSV)
}

func writeFile(path, out string, write func(io.Reader, string, io.Writer) error) error {
	in, err := trace.OpenFile(path)
	if err != nil {
		return err
	}
	defer in.Close()
	// Refuses the trace as out; a half-written export never takes out's
	// place (an earlier one survives a failure).
	f, err := outfile.Create(out, path)
	if err != nil {
		return err
	}
	if err := write(in, path, f); err != nil {
		f.Discard()
		return err
	}
	return f.Commit()
}

type parquetWriter struct {
	fw *pqarrow.FileWriter
	b  *array.RecordBuilder
	n  int
	// groupBytes are the bytes added since the current row group began (see rowGroupBytes).
	groupBytes int
	newGroup   bool // the next batch starts a new row group

	line, in, out    *array.Int64Builder
	attempt, request *array.StringBuilder
	outcome, quality *array.StringBuilder
	errs, meta       *array.StringBuilder
	start, end, fin  *array.Float64Builder
	http             *array.Int32Builder
	events           *array.ListBuilder
	event            *array.StructBuilder
	eventT           *array.Float64Builder
	eventTokens      *array.Int64Builder
}

func newParquetWriter(w io.Writer, h *trace.Header) (*parquetWriter, error) {
	hj, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(rowGroupRows),
	)
	// The writer closes a w that is an io.Closer: hide it, the caller owns w.
	fw, err := pqarrow.NewFileWriter(Schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		return nil, err
	}
	if err := fw.AppendKeyValueMetadata(HeaderKey, string(hj)); err != nil {
		return nil, err
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), Schema)
	events := b.Field(colEvents).(*array.ListBuilder)
	event := events.ValueBuilder().(*array.StructBuilder)
	return &parquetWriter{
		fw: fw, b: b,
		line:        b.Field(colLine).(*array.Int64Builder),
		attempt:     b.Field(colAttempt).(*array.StringBuilder),
		request:     b.Field(colRequest).(*array.StringBuilder),
		start:       b.Field(colStart).(*array.Float64Builder),
		outcome:     b.Field(colOutcome).(*array.StringBuilder),
		http:        b.Field(colHTTP).(*array.Int32Builder),
		events:      events,
		event:       event,
		eventT:      event.FieldBuilder(0).(*array.Float64Builder),
		eventTokens: event.FieldBuilder(1).(*array.Int64Builder),
		end:         b.Field(colEnd).(*array.Float64Builder),
		fin:         b.Field(colFinish).(*array.Float64Builder),
		quality:     b.Field(colQuality).(*array.StringBuilder),
		in:          b.Field(colIn).(*array.Int64Builder),
		out:         b.Field(colOut).(*array.Int64Builder),
		errs:        b.Field(colError).(*array.StringBuilder),
		meta:        b.Field(colMeta).(*array.StringBuilder),
	}, nil
}

// optInt appends v, or null when the trace did not record it (0).
func optInt[T int32 | int64](b interface {
	Append(T)
	AppendNull()
}, v int) {
	if v == 0 {
		b.AppendNull()
		return
	}
	b.Append(T(v))
}

func (pw *parquetWriter) add(a *trace.Attempt) error {
	pw.line.Append(int64(a.Line))
	pw.attempt.Append(a.ID)
	pw.request.Append(a.Request)
	pw.start.Append(a.StartMS)
	pw.outcome.Append(a.Outcome.String())
	optInt[int32](pw.http, a.HTTPStatus)
	pw.events.Append(true)
	for _, e := range a.Events {
		pw.event.Append(true)
		pw.eventT.Append(e.TMS)
		pw.eventTokens.Append(int64(e.Tokens))
	}
	if a.HasEnd {
		pw.end.Append(a.EndMS)
	} else {
		pw.end.AppendNull()
	}
	if a.HasFinish {
		pw.fin.Append(a.FinishMS)
	} else {
		pw.fin.AppendNull()
	}
	if a.Quality == trace.Unrated {
		pw.quality.AppendNull()
	} else {
		pw.quality.Append(a.Quality.String())
	}
	optInt[int64](pw.in, a.InputTokens)
	optInt[int64](pw.out, a.OutputTokens)
	if a.Error == "" {
		pw.errs.AppendNull()
	} else {
		pw.errs.Append(a.Error)
	}
	if len(a.Meta) == 0 {
		pw.meta.AppendNull()
	} else {
		pw.meta.BinaryBuilder.Append(a.Meta)
	}
	pw.n++
	pw.groupBytes += 64 + len(a.ID) + len(a.Request) + len(a.Error) + len(a.Meta) + 16*len(a.Events)
	if pw.groupBytes >= rowGroupBytes {
		// The next batch starts a new row group, which writes this one out: what is buffered
		// stays under about twice the bound (no empty row group at the end of the file).
		err := pw.flush()
		pw.groupBytes, pw.newGroup = 0, true
		return err
	}
	if pw.n == batchRows {
		return pw.flush()
	}
	return nil
}

func (pw *parquetWriter) flush() error {
	if pw.n == 0 {
		return nil
	}
	if pw.newGroup {
		pw.newGroup = false
		if err := pw.fw.NewBufferedRowGroupChecked(); err != nil {
			return err
		}
	}
	rec := pw.b.NewRecordBatch()
	defer rec.Release()
	pw.n = 0
	return pw.fw.WriteBuffered(rec)
}

func (pw *parquetWriter) close() error {
	err := pw.flush()
	pw.b.Release()
	return errors.Join(err, pw.fw.Close())
}

func (pw *parquetWriter) abort() {
	pw.b.Release()
	pw.fw.Close()
}

// ReadHeader reads the trace header kept in a Parquet export's metadata.
// Its errors are *trace.Error values naming path: bad input, not a crash.
func ReadHeader(path string) (*trace.Header, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return &trace.Error{File: path, Msg: fmt.Sprintf(format, a...)}
	}
	f, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	r, err := file.NewParquetReader(f)
	if err != nil {
		f.Close()
		return nil, bad("not a Parquet file (%v)", err)
	}
	defer r.Close()
	v := r.MetaData().KeyValueMetadata().FindValue(HeaderKey)
	if v == nil {
		return nil, bad("no %q key-value metadata: not a trace exported by coursekit export", HeaderKey)
	}
	var h trace.Header
	if err := json.Unmarshal([]byte(*v), &h); err != nil {
		return nil, bad("bad %q metadata: %v", HeaderKey, err)
	}
	if err := h.Validate(); err != nil {
		return nil, bad("bad header in the %q metadata: %v", HeaderKey, err)
	}
	return &h, nil
}
