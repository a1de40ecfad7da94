package coursekit

import (
	"os"
	"path/filepath"
	"runtime"
)

// DataEnv names a directory that overrides where Data looks first.
const DataEnv = "COURSEKIT_DATA"

// Data returns the path of a file under the course's data/ directory, e.g.
// Data("unit01/trace.jsonl"), so notebooks work wherever they were copied
// (a learner's home, a mounted volume) as long as the course is installed.
//
// It looks in $COURSEKIT_DATA, then in data/ of this module's source tree,
// then in data/ of the working directory and its parents. When none has
// the file it returns the source-tree path, so the error names a real place.
func Data(name string) string {
	var dirs []string
	if d := os.Getenv(DataEnv); d != "" {
		dirs = append(dirs, d)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		dirs = append(dirs, filepath.Join(filepath.Dir(file), "..", "data"))
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, filepath.Join(d, "data"))
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return filepath.Clean(p)
		}
	}
	return filepath.Clean(filepath.Join(dirs[min(1, len(dirs)-1)], name))
}
