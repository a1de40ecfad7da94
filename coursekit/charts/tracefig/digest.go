package tracefig

import (
	"cmp"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/llmperf-course/course/coursekit/cardfmt"
	"github.com/llmperf-course/course/coursekit/charts/internal/draw"
	"github.com/llmperf-course/course/coursekit/internal/spill"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
	"github.com/llmperf-course/course/coursekit/trace"
)

// MaxChartPoints is the most points a per-attempt chart embeds: the rows
// of Attempts, the samples of TTFTDistribution. A longer trace is drawn
// from a sample of that size, and the chart says so in its title; every
// count and percentile in its title and subtitle is still the whole
// trace's. It keeps a report page of a million attempts at a few MB.
const MaxChartPoints = 5000

// chartPoints is MaxChartPoints, lowered by tests (export_test.go) so that a trace a few times
// the limit stays small under the race detector.
var chartPoints = MaxChartPoints

// Digest is what the per-attempt charts draw of a trace, gathered one
// attempt at a time in memory bounded by MaxChartPoints, whatever the
// trace's length: the counts of every row, a deterministic sample of rows
// and of success TTFTs, the capture edge, and the first complete
// successes (for the timeline).
//
// The sample: each attempt's id is hashed (FNV-1a, mixed); the rows with
// the smallest hashes are drawn, so the same trace always gives the same
// sample, in whatever order it is read, and every attempt is as likely to
// be drawn as any other of its kind. Failures and in-flight attempts are
// drawn apart from complete successes: all of them when they fit in half
// of the rows (or in what the successes leave), else a uniform sample of
// that many. Success TTFTs are a uniform sample of MaxChartPoints.
type Digest struct {
	Header trace.Header
	limit  int

	// rows counts every attempt of the trace and ok, failed and inFlight
	// split them by outcome: the sizes the sample is drawn from. The
	// counts a chart prints are its summary's (metrics.Summary), never
	// these.
	rows, ok, failed, inFlight int64
	edge                       float64 // latest time seen

	oks, others pick[row]           // rows: complete successes; the rest
	kinds       map[int64][2]string // error kinds (zh, en) of the kept rows that have an error, by seq

	// successes counts the complete successes that started in the window
	// (the TTFT sample of the card); succ samples their TTFTs.
	successes int64
	succ      pick[sample]
	maxTTFT   float64

	first, firstMulti  *trace.Attempt // first complete successes in the window, by send time (sentFirst)
	firstSeq, multiSeq int64

	inflight *metrics.InFlightCounter
}

// NewDigest starts the digest of a trace with header h.
func NewDigest(h *trace.Header) *Digest {
	return newDigest(h, chartPoints)
}

func newDigest(h *trace.Header, limit int) *Digest {
	return &Digest{Header: *h, limit: limit, oks: pick[row]{limit: limit}, others: pick[row]{limit: limit},
		succ: pick[sample]{limit: limit}, kinds: map[int64][2]string{}, firstSeq: -1, multiSeq: -1}
}

// CountInFlightAt makes the digest count, at each time of atMS, the
// attempts in flight (metrics.InFlightAt); call it before the first Add.
func (d *Digest) CountInFlightAt(atMS []float64) {
	d.inflight = metrics.NewInFlightCounter(atMS)
}

// InFlightCounts are the counts asked for by CountInFlightAt (nil if not).
func (d *Digest) InFlightCounts() []int {
	if d.inflight == nil {
		return nil
	}
	return d.inflight.Counts()
}

// DigestOf digests an in-memory trace.
func DigestOf(t *trace.Trace) *Digest {
	d := NewDigest(&t.Header)
	for i := range t.Attempts {
		d.Add(&t.Attempts[i], int64(i))
	}
	return d
}

// DigestFile digests a trace file in one pass over it on every core,
// validating it as the reader does (errors name FILE:LINE). The attempt
// ids the reader checks for repeats are kept under budget (nil: no
// limit). onHeader, if not nil, is called with the digest before any
// attempt is added (e.g. to call CountInFlightAt).
func DigestFile(path string, budget *spill.Budget, onHeader func(*Digest) error) (*Digest, error) {
	f, err := trace.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return digestReader(f, path, budget, onHeader)
}

func digestReader(r io.Reader, name string, budget *spill.Budget, onHeader func(*Digest) error) (*Digest, error) {
	var (
		h     *trace.Header
		proto *Digest
		mu    sync.Mutex
		parts []*Digest
	)
	err := trace.ScanUnordered(r, name, budget, func(hd *trace.Header) error {
		h = hd
		proto = NewDigest(h)
		if onHeader != nil {
			return onHeader(proto)
		}
		return nil
	}, func(int) func(*trace.Attempt) error {
		d := NewDigest(h)
		if proto.inflight != nil {
			d.inflight = metrics.NewInFlightCounter(proto.inflight.Times())
		}
		mu.Lock()
		parts = append(parts, d)
		mu.Unlock()
		return func(a *trace.Attempt) error {
			d.Add(a, int64(a.Line)) // lines are file order
			return nil
		}
	})
	if err != nil {
		return nil, err
	}
	for _, p := range parts {
		proto.merge(p)
	}
	return proto, nil
}

// Add digests one attempt; seq is its place in the file (its line, or its
// index), which orders ties and picks the first successes. Add keeps no
// reference to a or its strings.
func (d *Digest) Add(a *trace.Attempt, seq int64) {
	d.rows++
	in := d.Header.Window.Contains(a.StartMS)
	d.edge = max(d.edge, a.StartMS)
	if n := len(a.Events); n > 0 {
		d.edge = max(d.edge, a.Events[n-1].TMS)
	}
	if a.HasEnd {
		d.edge = max(d.edge, a.EndMS)
	}
	if d.inflight != nil {
		d.inflight.Add(a)
	}
	key := idHash(a.ID)
	row := func() row { return rowCopy(a) }
	switch a.Outcome {
	case trace.OK:
		d.ok++
		d.oks.add(key, seq, row)
	case trace.InFlight:
		d.inFlight++
		d.others.add(key, seq, row)
	default:
		d.failed++
		if d.others.add(key, seq, row) && a.Error != "" {
			d.kinds[seq] = [2]string{cardfmt.ErrorKindIn(lang.ZH, a), cardfmt.ErrorKindIn(lang.EN, a)}
		}
	}
	if a.Outcome != trace.OK || !in {
		return
	}
	d.successes++
	ttft, _ := a.TTFT()
	d.maxTTFT = max(d.maxTTFT, ttft)
	d.succ.add(key, seq, func() sample { return sample{clipID(a.ID), ttft} })
	if d.firstSeq < 0 || sentFirst(a, seq, d.first, d.firstSeq) {
		d.first, d.firstSeq = fullCopy(a), seq
	}
	if d.multiSeq < 0 || sentFirst(a, seq, d.firstMulti, d.multiSeq) {
		for _, e := range a.Events {
			if e.Tokens > 1 {
				d.firstMulti, d.multiSeq = fullCopy(a), seq
				break
			}
		}
	}
}

// merge adds the attempts digested by o (same header, same limit).
func (d *Digest) merge(o *Digest) {
	d.rows += o.rows
	d.ok += o.ok
	d.failed += o.failed
	d.inFlight += o.inFlight
	d.edge = max(d.edge, o.edge)
	d.oks.merge(&o.oks)
	d.others.merge(&o.others)
	for k, v := range o.kinds {
		d.kinds[k] = v
	}
	d.successes += o.successes
	d.succ.merge(&o.succ)
	d.maxTTFT = max(d.maxTTFT, o.maxTTFT)
	if o.first != nil && (d.first == nil || sentFirst(o.first, o.firstSeq, d.first, d.firstSeq)) {
		d.first, d.firstSeq = o.first, o.firstSeq
	}
	if o.firstMulti != nil && (d.firstMulti == nil || sentFirst(o.firstMulti, o.multiSeq, d.firstMulti, d.multiSeq)) {
		d.firstMulti, d.multiSeq = o.firstMulti, o.multiSeq
	}
	if d.inflight != nil && o.inflight != nil {
		d.inflight.Merge(o.inflight)
	}
}

// sentFirst says whether attempt a (at file index seq) was sent before b
// (at bseq): by start_ms, ties by attempt ID, then by file order. A trace
// lists attempts as they end, so file order is not send order.
func sentFirst(a *trace.Attempt, seq int64, b *trace.Attempt, bseq int64) bool {
	if a.StartMS != b.StartMS {
		return a.StartMS < b.StartMS
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return seq < bseq
}

// FirstSuccess is the complete success in the window sent first (by
// start_ms, ties by ID), and FirstMultiTokenSuccess the first so sent
// whose events carry several tokens (nil when there is none).
func (d *Digest) FirstSuccess() *trace.Attempt           { return d.first }
func (d *Digest) FirstMultiTokenSuccess() *trace.Attempt { return d.firstMulti }

// CaptureEdgeMS is CaptureEdgeMS of the digested trace.
func (d *Digest) CaptureEdgeMS() float64 {
	if c, err := d.Header.ReadConditions(); err == nil && c.CaptureMS != nil {
		return *c.CaptureMS
	}
	return d.edge
}

// drawnRows are the rows Attempts draws, in send order (ties in file
// order), with their seqs and the measures of each whole attempt;
// sampled says whether some rows were left out, and keptOther how many
// failures and in-flight attempts are drawn.
func (d *Digest) drawnRows() (rows []*trace.Attempt, seqs []int64, measures []metrics.Measures, sampled bool, keptOther int) {
	nOther, nOK := int(d.failed+d.inFlight), int(d.ok)
	other, ok := nOther, nOK
	if nOther+nOK > d.limit {
		sampled = true
		other = min(nOther, max(d.limit/2, d.limit-nOK))
		ok = min(nOK, d.limit-other)
	}
	kept := append(d.others.smallest(other), d.oks.smallest(ok)...)
	slices.SortFunc(kept, func(a, b *entry[row]) int {
		return cmp.Or(cmp.Compare(a.v.a.StartMS, b.v.a.StartMS), cmp.Compare(a.seq, b.seq))
	})
	for _, e := range kept {
		rows = append(rows, &e.v.a)
		seqs = append(seqs, e.seq)
		measures = append(measures, e.v.m)
	}
	return rows, seqs, measures, sampled, other
}

// successSample is the success TTFTs drawn, ascending (ties in file
// order); sampled says whether some were left out.
func (d *Digest) successSample() (xs []sample, sampled bool) {
	kept := d.succ.smallest(d.limit)
	slices.SortFunc(kept, func(a, b *entry[sample]) int {
		return cmp.Or(cmp.Compare(a.v.ttft, b.v.ttft), cmp.Compare(a.seq, b.seq))
	})
	for _, e := range kept {
		xs = append(xs, e.v)
	}
	return xs, int64(len(xs)) < d.successes
}

// errorKind is cardfmt.ErrorKindIn of a drawn row, computed from the
// whole error text when it was digested.
func (d *Digest) errorKind(l lang.Lang, seq int64) string {
	k := d.kinds[seq]
	if l == lang.EN {
		return k[1]
	}
	return k[0]
}

// row is what a row of Attempts keeps of an attempt: a part of it (a) and
// the measures of the whole attempt that its verdict reads (m).
type row struct {
	a trace.Attempt
	m metrics.Measures
}

// rowCopy is what a row of Attempts draws of a: its scalars, its first
// event (the TTFT), its id cut to what TipID shows and its error to what
// Label shows, and the measures the latency SLOs judge, taken from the
// whole attempt (the later events are not kept).
func rowCopy(a *trace.Attempt) row {
	r := trace.Attempt{ID: clipID(a.ID), StartMS: a.StartMS, Outcome: a.Outcome, HTTPStatus: a.HTTPStatus,
		EndMS: a.EndMS, HasEnd: a.HasEnd, Quality: a.Quality, Error: clip(a.Error), Line: a.Line}
	if len(a.Events) > 0 {
		r.Events = []trace.Event{a.Events[0]}
	}
	return row{a: r, m: metrics.Measure(a)}
}

// fullCopy copies a with its events and strings, which the reader reuses.
func fullCopy(a *trace.Attempt) *trace.Attempt {
	c := *a
	c.ID, c.Request, c.Error = strings.Clone(a.ID), strings.Clone(a.Request), strings.Clone(a.Error)
	c.Events = slices.Clone(a.Events)
	c.Meta = slices.Clone(a.Meta)
	return &c
}

// clip copies the first MaxLabelRunes+1 runes of s: Label of the copy is
// Label of s.
func clip(s string) string { return clipRunes(s, draw.MaxLabelRunes+1) }

// clipID copies the first MaxTipIDRunes+1 runes of an attempt id: TipID
// (and Label) of the copy is that of the id. At most 5,000 samples keep
// one, so a kept id costs at most about 1 KiB.
func clipID(s string) string { return clipRunes(s, draw.MaxTipIDRunes+1) }

// clipRunes copies the first most runes of s.
func clipRunes(s string, most int) string {
	n := 0
	for i := range s {
		if n == most {
			return strings.Clone(s[:i])
		}
		n++
	}
	return strings.Clone(s)
}

// idHash is the sampling key of an attempt id: FNV-1a, then a 64-bit
// mixer (splitmix64's) so that ids differing in their last characters
// spread over the whole range.
func idHash(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// entry is one kept item of a pick.
type entry[T any] struct {
	key, seq int64
	v        T
}

// pick keeps the limit items with the smallest (hash, seq), in a max-heap.
type pick[T any] struct {
	limit int
	heap  []*entry[T]
}

func less[T any](a, b *entry[T]) bool {
	return a.key < b.key || a.key == b.key && a.seq < b.seq
}

// add offers an item; v is called only when it is kept. It reports
// whether it was kept.
func (p *pick[T]) add(hash uint64, seq int64, v func() T) bool {
	key := int64(hash >> 1) // a non-negative int64 keeps the order
	e := entry[T]{key: key, seq: seq}
	if len(p.heap) == p.limit {
		if p.limit == 0 || !less(&e, p.heap[0]) {
			return false
		}
		e.v = v()
		*p.heap[0] = e
		p.down(0)
		return true
	}
	e.v = v()
	p.heap = append(p.heap, &e)
	for i := len(p.heap) - 1; i > 0; {
		up := (i - 1) / 2
		if !less(p.heap[up], p.heap[i]) {
			break
		}
		p.heap[up], p.heap[i] = p.heap[i], p.heap[up]
		i = up
	}
	return true
}

func (p *pick[T]) down(i int) {
	for {
		l, big := 2*i+1, i
		if l < len(p.heap) && less(p.heap[big], p.heap[l]) {
			big = l
		}
		if r := l + 1; r < len(p.heap) && less(p.heap[big], p.heap[r]) {
			big = r
		}
		if big == i {
			return
		}
		p.heap[i], p.heap[big] = p.heap[big], p.heap[i]
		i = big
	}
}

func (p *pick[T]) merge(o *pick[T]) {
	for _, e := range o.heap {
		p.add(uint64(e.key)<<1, e.seq, func() T { return e.v })
	}
}

// smallest are the k kept items with the smallest (hash, seq).
func (p *pick[T]) smallest(k int) []*entry[T] {
	s := slices.Clone(p.heap)
	slices.SortFunc(s, func(a, b *entry[T]) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.seq, b.seq)) })
	return s[:min(k, len(s))]
}

// Sampled reports whether the per-attempt charts of the digest draw a
// sample of its rows rather than all of them.
func (d *Digest) Sampled() bool { return d.rows > int64(d.limit) }
