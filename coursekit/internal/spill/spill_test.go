package spill

import "testing"

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "4GiB": 4 << 30, "1.5 GiB": 3 << 29, "100MB": 100e6, "4096": 4096, "64KiB": 64 << 10, "10B": 10} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "-1MiB", "0", "lots", "5XB", "1e30GiB"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
}

// The default is half of what can be had, and never nothing.
func TestDefaultLimit(t *testing.T) {
	if d := DefaultLimit(); d < 64<<20 {
		t.Fatalf("default budget %d bytes", d)
	}
}
