package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
)

// Trace is a whole trace held in memory: fine for course-sized files. For
// large files use Scan, which streams.
type Trace struct {
	Header   Header
	Attempts []Attempt
}

// ReadFile reads and validates a whole trace file.
func ReadFile(path string) (*Trace, error) {
	f, err := os.Open(path)
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
	f, err := os.Open(path)
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
	workers := runtime.GOMAXPROCS(0)
	quit := make(chan struct{})
	work := make(chan *block, workers*2)
	order := make(chan *block, workers*2)
	pool := sync.Pool{New: func() any { return &block{} }}

	go produce(r, name, &pool, work, order, quit)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newLineParser(name)
			for b := range work {
				select {
				case <-quit:
				default:
					p.parseBlock(b)
				}
				close(b.done)
			}
		}()
	}

	err := consume(name, order, &pool, onHeader, onAttempt)
	close(quit)
	for b := range order { // let the producer finish
		<-b.done
	}
	wg.Wait()
	return err
}

// block is a run of whole lines parsed by one worker.
type block struct {
	firstLine int
	data      []byte
	atts      []Attempt
	events    []Event
	header    *Header
	err       error // the first bad line in the block; atts holds the lines before it
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
	fail := func(b *block) {
		b.data = nil
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
		b.err, b.header = nil, nil
		buf := append(b.data[:0], carry...)
		// Fill to at least blockSize, and until the block holds a whole line.
		for !eof && (len(buf) < blockSize || bytes.IndexByte(buf, '\n') < 0) {
			if len(buf) > MaxLineBytes+1 && bytes.IndexByte(buf, '\n') < 0 {
				b.err = &Error{File: name, Line: line, Msg: fmt.Sprintf("line is longer than %d bytes (1 MiB); a trace line holds one attempt", MaxLineBytes)}
				fail(b)
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
				fail(b)
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
		if len(b.data) == 0 {
			pool.Put(b)
			continue
		}
		if !send(b) {
			return
		}
	}
}

func consume(name string, order <-chan *block, pool *sync.Pool, onHeader func(*Header) error, onAttempt func(*Attempt) error) error {
	sawHeader := false
	seen := make(map[Key]int) // attempt id key → the line it was first seen on
	for b := range order {
		<-b.done
		if b.header != nil {
			sawHeader = true
			if err := onHeader(b.header); err != nil {
				return err
			}
		}
		for i := range b.atts {
			a := &b.atts[i]
			if first, dup := seen[a.idKey]; dup {
				return &Error{File: name, Line: a.Line, Attempt: a.ID, Field: "attempt",
					Msg: fmt.Sprintf("duplicate attempt id (first used on line %d); a retry is a new attempt with its own id and the same \"request\"", first)}
			}
			seen[a.idKey] = a.Line
			if err := onAttempt(a); err != nil {
				return err
			}
		}
		if b.err != nil {
			return b.err
		}
		pool.Put(b)
	}
	if !sawHeader {
		return &Error{File: name, Msg: "empty file: a trace starts with a header line {\"trace\":\"" + Version + "\",...}"}
	}
	return nil
}

// ErrNoHeader marks a first line that is not a header.
var ErrNoHeader = errors.New("missing header")

func parseHeader(l []byte) (*Header, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(l, &probe); err != nil {
		return nil, &Error{Msg: "not valid JSON: " + shorten(err.Error())}
	}
	if _, ok := probe["trace"]; !ok {
		if _, isAttempt := probe["attempt"]; isAttempt {
			return nil, &Error{Msg: "missing header: the first line is an attempt; a trace starts with {\"trace\":\"" + Version + "\",\"clock\":...,\"window\":{...}}"}
		}
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

func shorten(s string) string {
	const max = 200
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}
