package spill

import (
	"os"
	"path/filepath"
	"testing"
)

// writeFiles creates each file (relative to root) with its content.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCgroupRoom(t *testing.T) {
	cases := []struct {
		name  string
		self  string
		files map[string]string
		want  int64 // -1: no limit found
	}{
		{"v2: the own cgroup's limit less its usage", "0::/user/lab\n",
			map[string]string{"user/lab/memory.max": "1000", "user/lab/memory.current": "300", "memory.max": "max"}, 700},
		{"v2: a tighter parent wins", "0::/user/lab\n",
			map[string]string{"user/lab/memory.max": "1000", "user/lab/memory.current": "300", "user/memory.max": "500", "user/memory.current": "400"}, 100},
		{"v2: max everywhere is no limit", "0::/a\n",
			map[string]string{"a/memory.max": "max", "a/memory.current": "5"}, -1},
		{"v1: the memory hierarchy, unlimited root", "4:memory:/lab/k\n3:cpuset:/\n0::/\n",
			map[string]string{"memory/lab/k/memory.limit_in_bytes": "2048", "memory/lab/k/memory.usage_in_bytes": "48",
				"memory/memory.limit_in_bytes": "9223372036854771712", "memory/memory.usage_in_bytes": "10"}, 2000},
		{"v1: controllers listed together", "5:cpu,memory:/x\n",
			map[string]string{"memory/x/memory.limit_in_bytes": "64", "memory/x/memory.usage_in_bytes": "4"}, 60},
		{"no memory cgroup files", "0::/\n", map[string]string{}, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeFiles(t, root, c.files)
			got, ok := cgroupRoom(root, c.self)
			if !ok {
				got = -1
			}
			if got != c.want {
				t.Fatalf("cgroupRoom = %d, want %d", got, c.want)
			}
		})
	}
}
