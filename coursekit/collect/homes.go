package collect

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// Template names one learner's volume or directory with one {username},
// as DockerSpawner's volumes do ("llmperf-course-{username}") or a hub's
// user directories ("{username}/work", "claim-{username}").
type Template struct {
	prefix, suffix string // around {username} in the first path element
	rest           string // path under the matched element ("" for none)
}

// ParseTemplate checks that t holds exactly one {username}, in its first
// path element.
func ParseTemplate(t string) (Template, error) {
	if strings.Count(t, "{username}") != 1 {
		return Template{}, fmt.Errorf("template %q: want exactly one {username}", t)
	}
	first, rest, _ := strings.Cut(filepath.ToSlash(t), "/")
	before, after, ok := strings.Cut(first, "{username}")
	if !ok {
		return Template{}, fmt.Errorf("template %q: {username} must be in its first path element", t)
	}
	return Template{prefix: before, suffix: after, rest: filepath.FromSlash(rest)}, nil
}

// match returns the part of name that {username} stands for.
func (t Template) match(name string) (string, bool) {
	if len(name) <= len(t.prefix)+len(t.suffix) || !strings.HasPrefix(name, t.prefix) || !strings.HasSuffix(name, t.suffix) {
		return "", false
	}
	return name[len(t.prefix) : len(name)-len(t.suffix)], true
}

// Dirs lists the learners' directories under root that match template,
// e.g. a hub's /home with "{username}/work". The learner id is the
// matched name as it is.
func Dirs(root, template string) ([]Home, error) {
	t, err := ParseTemplate(template)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var homes []Home
	for _, e := range entries {
		id, ok := t.match(e.Name())
		if !ok || !(e.IsDir() || e.Type()&fs.ModeSymlink != 0) {
			continue
		}
		dir := filepath.Join(root, e.Name(), t.rest)
		skip, ok := linkOnPath(root, filepath.Join(e.Name(), t.rest))
		if !ok {
			continue // this user has no work folder (yet)
		}
		homes = append(homes, Home{Learner: id, Dir: dir, From: "dir " + dir, Skip: skip})
	}
	return homes, nil
}

// linkOnPath checks each element of rel under root without following
// links. ok is false when one is missing (no work folder yet); skip says
// why the folder is not searched when one is a symlink or not a folder, so
// that the learner is reported rather than dropped.
func linkOnPath(root, rel string) (skip string, ok bool) {
	p := root
	for _, elem := range strings.Split(rel, string(filepath.Separator)) {
		if elem == "" {
			continue
		}
		p = filepath.Join(p, elem)
		st, err := os.Lstat(p)
		if err != nil {
			return "", false
		}
		if reason := notFolder(p, st.Mode()); reason != "" {
			return reason, true
		}
	}
	return "", true
}

// notFolder says why a learner's home at path is not searched ("" for a
// real folder). A link's target is named, for the instructor, but never
// opened.
func notFolder(path string, mode fs.FileMode) string {
	switch {
	case mode&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return fmt.Sprintf("%s is a symlink to %s: not followed, nothing collected for this learner", path, to)
	case !mode.IsDir():
		return fmt.Sprintf("%s is %s, not a folder: nothing collected for this learner", path, regfile.Kind(mode))
	}
	return ""
}

// Volumes lists the engine's volumes (podman or docker) whose names match
// template, with their mount points on this host. DockerSpawner escapes
// user names in volume names ("-" plus two hex digits for each byte that
// is not a lower-case letter or digit); the learner id is unescaped.
func Volumes(ctx context.Context, engine, template string) ([]Home, error) {
	t, err := ParseTemplate(template)
	if err != nil {
		return nil, err
	}
	if t.rest != "" {
		return nil, fmt.Errorf("template %q: a volume template is one name, with no /", template)
	}
	out, err := run(ctx, engine, "volume", "ls", "--format", "{{.Name}}")
	if err != nil {
		return nil, err
	}
	var names []string
	ids := map[string]string{}
	for _, name := range strings.Fields(out) {
		raw, ok := t.match(name)
		if !ok {
			continue
		}
		id, err := unescapeDockerSpawner(raw)
		if err != nil {
			id = raw // not DockerSpawner's escaping: the id as it is
		}
		names = append(names, name)
		ids[name] = id
	}
	if len(names) == 0 {
		return nil, nil
	}
	sort.Strings(names)
	out, err = run(ctx, engine, append([]string{"volume", "inspect", "--format", "{{.Name}}\t{{.Mountpoint}}"}, names...)...)
	if err != nil {
		return nil, err
	}
	var homes []Home
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		name, mp, ok := strings.Cut(line, "\t")
		if !ok || ids[name] == "" || mp == "" {
			return nil, fmt.Errorf("%s volume inspect: unexpected line %q", engine, line)
		}
		homes = append(homes, Home{Learner: ids[name], Dir: mp, From: "volume " + name})
	}
	return homes, nil
}

func run(ctx context.Context, engine string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, engine, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s %s: %s", engine, strings.Join(args[:2], " "), msg)
	}
	return stdout.String(), nil
}

// unescapeDockerSpawner reverses DockerSpawner's default escaping of user
// names: "-" followed by two hex digits is that byte.
func unescapeDockerSpawner(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '-' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", errors.New("bad escape")
		}
		v, err := hex.DecodeString(s[i+1 : i+3])
		if err != nil {
			return "", err
		}
		b.Write(v)
		i += 2
	}
	return b.String(), nil
}
