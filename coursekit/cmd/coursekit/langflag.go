package main

import (
	"flag"

	"github.com/llmperf-course/course/coursekit/lang"
)

// langFlag registers --lang on a command that prints text for people.
func langFlag(fs *flag.FlagSet) *string { return fs.String("lang", "", lang.FlagHelp) }

// resolveLang is the command's language: --lang, else $COURSEKIT_LANG,
// else zh; a bad value is a usage error (exit 2) naming where it came from.
func resolveLang(cmd, v string) (lang.Lang, error) {
	l, err := lang.Resolve(v)
	if err != nil {
		return "", usagef("%s: %v", cmd, err)
	}
	return l, nil
}
