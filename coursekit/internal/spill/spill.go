// Package spill keeps what a card holds in memory under a budget: the
// stores that grow with a trace (latency samples, attempt ids, request
// records) charge their bytes here, and when the total passes the budget
// a store writes its contents to a temporary directory as one sorted run
// and starts again empty. The runs are merged at the end, so the card of
// a trace larger than memory is the same card.
package spill

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Budget is a memory limit shared by the stores of one card.
type Budget struct {
	limit int64 // bytes; 0: no limit
	used  atomic.Int64

	mu    sync.Mutex
	dir   string
	runs  int
	bytes int64
	err   error
}

// New makes a budget of limit bytes (0 or less: no limit, nothing spills).
func New(limit int64) *Budget {
	return &Budget{limit: max(limit, 0)}
}

// Limit is the budget in bytes (0: none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return 0
	}
	return b.limit
}

// Charge counts n more bytes held (n < 0 gives bytes back).
func (b *Budget) Charge(n int64) {
	if b != nil && b.limit > 0 {
		b.used.Add(n)
	}
}

// Over reports whether a store holding size bytes, one of about stores
// sharing the budget, should spill before it grows: the budget is passed
// and the store holds a fair share of it (smaller stores keep growing, so
// the total stays below about 1.5 times the budget without a flood of
// tiny runs).
func (b *Budget) Over(size int64, stores int) bool {
	if b == nil || b.limit == 0 {
		return false
	}
	return b.used.Load() > b.limit && size >= b.limit/int64(2*max(stores, 1))
}

// Create opens a new run file in the budget's temporary directory, which
// is made on the first spill.
func (b *Budget) Create() (*os.File, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir == "" {
		d, err := os.MkdirTemp("", "coursekit-card-")
		if err != nil {
			return nil, fmt.Errorf("spill: %w", err)
		}
		b.dir = d
	}
	b.runs++
	f, err := os.Create(b.dir + "/run-" + strconv.Itoa(b.runs))
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return f, nil
}

// Wrote records a finished run of n bytes.
func (b *Budget) Wrote(n int64) {
	b.mu.Lock()
	b.bytes += n
	b.mu.Unlock()
}

// Fail keeps the first spill error, for Err.
func (b *Budget) Fail(err error) {
	if b == nil {
		return
	}
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
}

// Err is the first error of a spill.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

// Stats are the runs written and their bytes.
func (b *Budget) Stats() (runs int, bytes int64) {
	if b == nil {
		return 0, 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.runs, b.bytes
}

// Close removes the temporary directory and everything in it.
func (b *Budget) Close() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dir == "" {
		return nil
	}
	err := os.RemoveAll(b.dir)
	b.dir = ""
	return err
}

// WriteRun writes n sorted 64-bit words from next to a new run file and
// returns its path.
func (b *Budget) WriteRun(words int, next func(i int) uint64) (string, error) {
	f, err := b.Create()
	if err != nil {
		return "", err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	var buf [8]byte
	for i := range words {
		binary.LittleEndian.PutUint64(buf[:], next(i))
		w.Write(buf[:])
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", fmt.Errorf("spill: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("spill: %w", err)
	}
	b.Wrote(int64(words) * 8)
	return f.Name(), nil
}

// Reader reads a run of 64-bit words.
type Reader struct {
	f   *os.File
	r   *bufio.Reader
	buf [8]byte
}

// Open opens a run written by WriteRun.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("spill: %w", err)
	}
	return &Reader{f: f, r: bufio.NewReaderSize(f, 1<<16)}, nil
}

// Next returns the next word; ok is false at the end.
func (r *Reader) Next() (w uint64, ok bool, err error) {
	if _, err := io.ReadFull(r.r, r.buf[:]); err != nil {
		if err == io.EOF {
			return 0, false, nil
		}
		return 0, false, fmt.Errorf("spill: %w", err)
	}
	return binary.LittleEndian.Uint64(r.buf[:]), true, nil
}

// Close closes the run.
func (r *Reader) Close() error { return r.f.Close() }

// ParseSize reads a memory size: a number of bytes with an optional unit
// (KiB, MiB, GiB, TiB, or KB, MB, GB, TB; B alone is bytes).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*mult > 1<<62 {
		return 0, fmt.Errorf("%q is not a memory size (write 512MiB or 4GiB)", s)
	}
	return int64(v * mult), nil
}

// DefaultLimit is half of the memory this process may use: the smaller of
// MemAvailable and what its cgroups' limits leave (cgroupRoom);
// 1 GiB when neither can be read.
func DefaultLimit() int64 {
	avail := int64(-1)
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					avail = kb << 10
				}
			}
		}
	}
	if self, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		if room, ok := cgroupRoom("/sys/fs/cgroup", string(self)); ok && (avail < 0 || room < avail) {
			avail = room
		}
	}
	if avail <= 0 {
		return 1 << 30
	}
	return avail / 2
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max" fails: no limit
}
