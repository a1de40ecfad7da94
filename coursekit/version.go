package coursekit

import "runtime/debug"

// ClientVersion names this build of coursekit for a trace header's
// meta.client: "coursekit <Version>", with the VCS revision Go embedded at
// build time when there is one (a "-dirty" suffix for uncommitted changes),
// so that two traces made by different builds can be told apart.
func ClientVersion() string {
	s := "coursekit " + Version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return s
	}
	var rev string
	dirty := false
	for _, kv := range info.Settings {
		switch kv.Key {
		case "vcs.revision":
			rev = kv.Value
		case "vcs.modified":
			dirty = kv.Value == "true"
		}
	}
	if rev == "" {
		return s
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return s + " (" + rev + ")"
}
