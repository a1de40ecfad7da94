package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sync"

	"github.com/llmperf-course/course/coursekit/internal/jsonkeys"
	"github.com/llmperf-course/course/coursekit/internal/keyrec"
	"github.com/llmperf-course/course/coursekit/internal/regfile"
	"github.com/llmperf-course/course/coursekit/internal/spill"
)

// Trace is a whole trace held in memory: fine for course-sized files. For
// large files use Scan, which streams.
type Trace struct {
	Header   Header
	Attempts []Attempt
}

// OpenFile opens a trace file a person named (regfile.OpenNamed): a
// symlink is followed, but a FIFO, a device or a folder is refused at
// once, naming it, instead of blocking or reading forever. Every reader of
// a trace, or of a file made from one, opens it so.
func OpenFile(path string) (*os.File, error) {
	f, _, err := regfile.OpenNamed(path)
	return f, err
}

// ReadFile reads and validates a whole trace file.
func ReadFile(path string) (*Trace, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read reads and validates a whole trace; name is used in error positions.
func Read(r io.Reader, name string) (*Trace, error) {
	t := &Trace{}
	err := Scan(r, name, func(h *Header) error {
		t.Header = *h
		return nil
	}, func(a *Attempt) error {
		c := *a
		c.Events = append([]Event(nil), a.Events...)
		c.reqKey = Key{} // keys are per process; recompute on demand
		t.Attempts = append(t.Attempts, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ScanFile is Scan over a file.
func ScanFile(path string, onHeader func(*Header) error, onAttempt func(*Attempt) error) error {
	f, err := OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return Scan(f, path, onHeader, onAttempt)
}

// Scan reads a trace line by line, validating every line, and calls
// onHeader once, then onAttempt for every attempt in file order. It stops at
// the first bad line and returns an *Error naming name:line; attempts
// before that line have been delivered. Nothing is skipped.
//
// Lines are parsed on all cores in blocks while delivery stays in order.
// The *Attempt passed to onAttempt, and its Events, are reused after it
// returns: copy what you keep.
func Scan(r io.Reader, name string, onHeader func(*Header) error, onAttempt func(*Attempt) error) error {
	return scan(r, name, onHeader, onAttempt, nil, sortedIDs{})
}

// ScanUnordered is Scan for aggregations that do not care about order: each
// parsing goroutine hands its attempts to a sink of its own, made by
// newSink after onHeader has run, so aggregation runs on every core too.
//
// Validation is the same as Scan's and the error is still the first bad
// line, but sinks may by then have seen attempts from later lines: on an
// error, discard what they computed.
//
// The strings of the *Attempt a sink gets (ID, Request, Error) alias the
// block being parsed: they are valid only during the call.
//
// When r is an io.Seeker (a file), duplicate attempt ids are looked for
// after the scan, by sorting 64-bit hashes of the ids instead of keeping a
// set of millions of them; only a trace with a repeated hash is read a
// second time, in order, which gives the ordered reader's error (or none,
// for two different ids whose hashes collide).
//
// newSink gets an estimate of how many attempts its sink will see (0 when
// unknown: the size of a file over the bytes per line of its first block,
// shared among the goroutines, with room to spare), to size what it keeps
// up front.
//
// The sorted ids are kept under budget (nil: no limit), spilled to its
// temporary directory when they outgrow it.
func ScanUnordered(r io.Reader, name string, budget *spill.Budget, onHeader func(*Header) error, newSink func(estimate int) func(*Attempt) error) error {
	rs, seekable := r.(io.ReadSeeker)
	if !seekable {
		return scan(r, name, onHeader, nil, newSink, sortedIDs{})
	}
	err := scan(r, name, onHeader, nil, newSink, sortedIDs{true, budget})
	if _, dup := err.(errDuplicate); !dup {
		return err
	}
	if _, err := rs.Seek(0, io.SeekStart); err != nil {
		return err
	}
	// nil: two different ids shared 64 bits of hash, and the sinks have
	// seen every attempt already.
	return Scan(rs, name, func(*Header) error { return nil }, func(*Attempt) error { return nil })
}

// errDuplicate says that two attempts share the first 64 bits of their
// id's key: a duplicate id, or (rarely) two ids whose hashes collide.
type errDuplicate struct{}

func (errDuplicate) Error() string { return "duplicate attempt id" }

// sortedIDs asks scan to find duplicate ids by sorting them after the
// scan, under budget, instead of with a set.
type sortedIDs struct {
	on     bool
	budget *spill.Budget
}

func scan(r io.Reader, name string, onHeader func(*Header) error, onAttempt func(*Attempt) error, newSink func(int) func(*Attempt) error, sorted sortedIDs) error {
	sortIDs := sorted.on
	workers := runtime.GOMAXPROCS(0)
	var size int64
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	estimate := 0 // attempts per worker, set before headerDone closes
	quit := make(chan struct{})
	headerDone := make(chan struct{})
	work := make(chan *block, workers)
	order := make(chan *block, workers+1)
	pool := sync.Pool{New: func() any { return &block{} }}
	var ids *idSet
	if !sortIDs {
		ids = newIDSet()
	}
	idRecs := make([]*keyrec.Words, workers)

	go produce(r, name, &pool, work, order, quit)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newLineParser(name)
			p.alias = newSink != nil
			var sink func(*Attempt) error
			for b := range work {
				select {
				case <-quit:
				default:
					p.parseBlock(b)
					if b.header != nil {
						// The first block: call onHeader here, before any sink runs.
						b.headerErr = onHeader(b.header)
						if size > 0 && len(b.data) > 0 {
							lines := float64(b.nextLine - b.firstLine)
							estimate = int(float64(size)*lines/float64(len(b.data))*1.2/float64(workers)) + 1024
						}
						close(headerDone)
					}
					if ids != nil {
						for i := range b.atts {
							ids.add(b.atts[i].idKey, b.atts[i].Line)
						}
					}
					if newSink != nil && len(b.atts) > 0 {
						select {
						case <-headerDone:
							if sink == nil {
								sink = newSink(estimate)
								if sortIDs {
									idRecs[w] = keyrec.NewWords(estimate, sorted.budget)
								}
							}
							if sortIDs {
								for i := range b.atts {
									idRecs[w].Add(b.atts[i].idKey[0])
								}
							}
							b.sinkErr = sinkAll(sink, b.atts)
						case <-quit:
						}
					}
				}
				close(b.done)
			}
		}()
	}

	err := consume(name, order, &pool, ids, onAttempt)
	close(quit)
	for b := range order { // let the producer finish
		<-b.done
	}
	wg.Wait()
	if sortIDs {
		if _, bad := err.(*Error); err != nil && !bad {
			return err
		}
		// Equal ids have equal hashes: without a repeated hash there is no
		// duplicate. A repeated one is settled by reading again in order.
		rep, ferr := keyrec.AnyRepeated(idRecs)
		if ferr != nil {
			return ferr
		}
		if rep {
			return errDuplicate{}
		}
	}
	return err
}

func sinkAll(sink func(*Attempt) error, atts []Attempt) error {
	for i := range atts {
		if err := sink(&atts[i]); err != nil {
			return err
		}
	}
	return nil
}

// block is a run of whole lines parsed by one worker.
type block struct {
	firstLine int
	data      []byte
	atts      []Attempt
	events    []Event
	header    *Header
	nextLine  int   // the line after the block
	err       error // the first bad line in the block; atts holds the lines before it
	sinkErr   error // what an unordered sink returned
	headerErr error // what onHeader returned
	done      chan struct{}
}

const blockSize = 1 << 20

func produce(r io.Reader, name string, pool *sync.Pool, work, order chan<- *block, quit <-chan struct{}) {
	defer close(work)
	defer close(order)
	send := func(b *block) bool {
		select {
		case order <- b:
		case <-quit:
			return false
		}
		select {
		case work <- b:
			return true
		case <-quit:
			close(b.done)
			return false
		}
	}
	// fail delivers an error block in order; nothing after it is read.
	fail := func(b *block, line int) {
		b.data, b.atts, b.header, b.sinkErr, b.headerErr = nil, b.atts[:0], nil, nil, nil
		b.firstLine, b.nextLine = line, line
		close(b.done)
		select {
		case order <- b:
		case <-quit:
		}
	}
	line := 1
	var carry []byte
	eof := false
	for !eof {
		b := pool.Get().(*block)
		b.done = make(chan struct{})
		b.err, b.header, b.sinkErr, b.headerErr = nil, nil, nil, nil
		buf := append(b.data[:0], carry...)
		// Fill to at least blockSize, and until the block holds a whole line.
		for !eof && (len(buf) < blockSize || bytes.IndexByte(buf, '\n') < 0) {
			if len(buf) > MaxLineBytes+1 && bytes.IndexByte(buf, '\n') < 0 {
				b.err = &Error{File: name, Line: line, Msg: fmt.Sprintf("line is longer than %d bytes (1 MiB); a trace line holds one attempt", MaxLineBytes)}
				fail(b, line)
				return
			}
			if cap(buf)-len(buf) < 64<<10 {
				buf = append(buf, make([]byte, blockSize)...)[:len(buf)]
			}
			n, err := r.Read(buf[len(buf):cap(buf)])
			buf = buf[:len(buf)+n]
			if err == io.EOF {
				eof = true
			} else if err != nil {
				b.err = &Error{File: name, Line: line, Msg: "read error: " + err.Error()}
				fail(b, line)
				return
			}
		}
		cut := len(buf)
		if !eof {
			cut = bytes.LastIndexByte(buf, '\n') + 1
		}
		carry = append(carry[:0], buf[cut:]...)
		b.data = buf[:cut]
		b.firstLine = line
		line += bytes.Count(b.data, []byte{'\n'})
		if eof && len(b.data) > 0 && b.data[len(b.data)-1] != '\n' {
			line++ // a last line without a newline
		}
		b.nextLine = line
		if len(b.data) == 0 {
			pool.Put(b)
			continue
		}
		if !send(b) {
			return
		}
	}
}

func consume(name string, order <-chan *block, pool *sync.Pool, ids *idSet, onAttempt func(*Attempt) error) error {
	sawHeader := false
	for b := range order {
		<-b.done
		if b.header != nil {
			sawHeader = true
			if b.headerErr != nil {
				return b.headerErr
			}
		}
		var dupLine, dupFirst int
		var dup bool
		if ids != nil {
			dupLine, dupFirst, dup = ids.firstIn(b.firstLine, b.nextLine-1)
		}
		if b.err != nil && dup && b.err.(*Error).Line < dupLine {
			dup = false
		}
		for i := range b.atts {
			a := &b.atts[i]
			if dup && a.Line == dupLine {
				return &Error{File: name, Line: a.Line, Attempt: a.ID, Field: "attempt",
					Msg: fmt.Sprintf("duplicate attempt id (first used on line %d); a retry is a new attempt with its own id and the same \"request\"", dupFirst)}
			}
			if onAttempt != nil {
				if err := onAttempt(a); err != nil {
					return err
				}
			}
		}
		if b.err != nil {
			return b.err
		}
		if b.sinkErr != nil {
			return b.sinkErr
		}
		pool.Put(b)
	}
	if !sawHeader {
		return &Error{File: name, Msg: "empty file: a trace starts with a header line {\"trace\":\"" + Version + "\",...}"}
	}
	return nil
}

// headerSyntax is where the header line l stops being valid JSON, worded
// as an attempt line's is (a cut header reads "truncated: the line ends
// inside a value ... after column N", issue 35), or nil when l is valid
// JSON and encoding/json refused it for another reason.
func headerSyntax(l []byte) error {
	s := scanner{}
	s.B = l
	err := s.skip()
	if err == nil && !s.AtEOF() {
		err = s.syntaxError("want the end of the line after the object")
	}
	if _, ok := err.(*Error); ok {
		return err
	}
	return nil
}

// ErrNoHeader marks a first line that is not a header.
var ErrNoHeader = errors.New("missing header")

func parseHeader(l []byte) (*Header, error) {
	// gzip's magic number: a compressed trace, not a broken one.
	if bytes.HasPrefix(l, []byte{0x1f, 0x8b}) {
		return nil, &Error{Msg: "gzip-compressed: decompress it first (gunzip -k FILE)"}
	}
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(l, &probe); err != nil {
		if serr := headerSyntax(l); serr != nil {
			return nil, serr
		}
		return nil, &Error{Msg: "not valid JSON: " + shorten(err.Error())}
	}
	if _, ok := probe["trace"]; !ok {
		if isScrapeLine(probe) {
			return nil, &Error{Msg: SidecarMsg}
		}
		if _, isAttempt := probe["attempt"]; isAttempt {
			return nil, &Error{Msg: "missing header: the first line is an attempt; a trace starts with {\"trace\":\"" + Version + "\",\"clock\":...,\"window\":{...}}"}
		}
	}
	if key := repeatedKey(l); key != "" {
		// encoding/json keeps the last of two equal keys; attempt lines
		// refuse them, and so does the header.
		return nil, fieldErr(key, "given twice in the header")
	}
	if at, key, field, ok := jsonkeys.Folded(l, reflect.TypeFor[Header](), ""); ok {
		// encoding/json would read "Window" or "END_MS" as window or end_ms; Python, pandas
		// and DuckDB would not: the trace would mean one thing here and another there.
		path := key
		if at != "" {
			path = at + "." + key
		}
		return nil, fieldErr(path, fmt.Sprintf("differs from the header field %q only in case: other readers see only %q, so the header is refused", field, field))
	}
	d := json.NewDecoder(bytes.NewReader(l))
	d.DisallowUnknownFields()
	var h Header
	if err := d.Decode(&h); err != nil {
		return nil, &Error{Msg: "bad header: " + shorten(err.Error())}
	}
	for _, k := range []string{"clock", "window"} {
		if _, ok := probe[k]; !ok && h.Trace == Version {
			return nil, fieldErr(k, "missing required header field")
		}
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return &h, nil
}

// repeatedKey is the path ("window.end_ms", "conditions.slo[0].x") of the
// first key that an object of the JSON value l gives twice (the same key,
// byte for byte), or "" when none does. l is valid JSON.
func repeatedKey(l []byte) string {
	d := json.NewDecoder(bytes.NewReader(l))
	d.UseNumber()
	var walk func(path string) string
	walk = func(path string) string {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		switch tok {
		case json.Delim('{'):
			var seen []string
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return ""
				}
				k, _ := kt.(string)
				p := k
				if path != "" {
					p = path + "." + k
				}
				// Only the very same key counts as twice. Keys that differ only in case are
				// different keys to every reader; where one of them differs from a key coursekit
				// reads (a header field, a known condition key) only in case, jsonkeys.Folded
				// refuses it, here for the header and in ReadConditions for the conditions.
				// Free-form keys ("x" and "X") are both kept, as written.
				if slices.Contains(seen, k) {
					return p
				}
				seen = append(seen, k)
				if r := walk(p); r != "" {
					return r
				}
			}
			d.Token() // '}'
		case json.Delim('['):
			for i := 0; d.More(); i++ {
				if r := walk(fmt.Sprintf("%s[%d]", path, i)); r != "" {
					return r
				}
			}
			d.Token() // ']'
		}
		return ""
	}
	return walk("")
}

func shorten(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
