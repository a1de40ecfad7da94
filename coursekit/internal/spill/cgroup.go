package spill

import (
	"path"
	"path/filepath"
	"strings"
)

// cgroupRoom is the memory this process's cgroups still allow: the smallest
// limit minus usage over its memory cgroup and every ancestor visible under
// root (cgroup v2: memory.max and memory.current; v1: the memory hierarchy's
// memory.limit_in_bytes and memory.usage_in_bytes). self is the text of
// /proc/self/cgroup. A container, a systemd scope or a hub's spawner sets
// these limits, not MemAvailable, so a budget from MemAvailable alone would
// run a learner's card into the OOM killer.
func cgroupRoom(root, self string) (int64, bool) {
	best := int64(-1)
	for _, line := range strings.Split(self, "\n") {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		var base, limitFile, usageFile string
		switch {
		case f[0] == "0" && f[1] == "":
			base, limitFile, usageFile = root, "memory.max", "memory.current"
		case hasController(f[1], "memory"):
			base, limitFile, usageFile = filepath.Join(root, "memory"), "memory.limit_in_bytes", "memory.usage_in_bytes"
		default:
			continue
		}
		for p := path.Clean("/" + f[2]); ; p = path.Dir(p) {
			dir := filepath.Join(base, filepath.FromSlash(p))
			if limit, err := readInt(filepath.Join(dir, limitFile)); err == nil {
				usage, err := readInt(filepath.Join(dir, usageFile))
				if err != nil {
					usage = 0
				}
				if room := limit - usage; best < 0 || room < best {
					best = room
				}
			}
			if p == "/" {
				break
			}
		}
	}
	return best, best >= 0
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}
