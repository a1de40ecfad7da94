package loadgen

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Generated prompts start from a per-run salt, so that a second run
// against the same server cannot be served from its prompt cache: a
// prefix cache reuses tokens only up to the first token that differs, and
// the prompt differs at its first word. By default (ReuseNone) that word
// is a key derived from the salt and the request id, so that the requests
// of one run share nothing either; PromptReuse shares a prefix on purpose,
// for prefix-cache experiments.

// Prompt reuse modes.
const (
	ReuseNone         = "none"          // a key from the salt and the request id, the id, filler: nothing shared
	ReuseSharedPrefix = "shared-prefix" // salt and N shared words, then the request id
	ReuseSame         = "same"          // every request sends the identical prompt
)

// PromptReuse is what the generated prompts of a run share. The zero
// value is ReuseNone.
type PromptReuse struct {
	Mode string
	// SharedWords (shared-prefix) is how many words after the salt every
	// request of the run shares before its request id.
	SharedWords int
}

// ParsePromptReuse reads none, shared-prefix:N (N ≥ 1) or same.
func ParsePromptReuse(s string) (PromptReuse, error) {
	switch {
	case s == ReuseNone || s == "":
		return PromptReuse{Mode: ReuseNone}, nil
	case s == ReuseSame:
		return PromptReuse{Mode: ReuseSame}, nil
	case strings.HasPrefix(s, ReuseSharedPrefix+":"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, ReuseSharedPrefix+":"))
		if err != nil || n < 1 {
			return PromptReuse{}, fmt.Errorf("%q: shared-prefix:N needs a whole number of words N ≥ 1", s)
		}
		return PromptReuse{Mode: ReuseSharedPrefix, SharedWords: n}, nil
	}
	return PromptReuse{}, fmt.Errorf("%q is not none, shared-prefix:N or same", s)
}

func (p PromptReuse) String() string {
	switch p.Mode {
	case ReuseSharedPrefix:
		return ReuseSharedPrefix + ":" + strconv.Itoa(p.SharedWords)
	case "":
		return ReuseNone
	}
	return p.Mode
}

// NewPromptSalt is a fresh random salt: 12 hex digits from crypto/rand.
func NewPromptSalt() string {
	b := make([]byte, 6)
	rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// maxSalt bounds a given salt: it is one word of every prompt.
const maxSalt = 64

// CheckPromptSalt accepts letters, digits, '-' and '_': one whitespace
// word that JSON takes as it is.
func CheckPromptSalt(s string) error {
	if len(s) > maxSalt {
		return fmt.Errorf("prompt salt %q is longer than %d characters", s, maxSalt)
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("prompt salt %q: use only letters, digits, '-' and '_'", s)
		}
	}
	return nil
}

// validatePrompts checks the salt and the reuse mode against the rest of
// the config (called by Validate).
func (c *Config) validatePrompts() error {
	if err := CheckPromptSalt(c.PromptSalt); err != nil {
		return err
	}
	switch c.PromptReuse.Mode {
	case "", ReuseNone, ReuseSame:
	case ReuseSharedPrefix:
		if c.PromptReuse.SharedWords < 1 {
			return errors.New("prompt reuse shared-prefix needs at least 1 shared word")
		}
		p := c.PromptTokens
		if p == 0 {
			p = 32 // Run's default
		}
		if p < c.PromptReuse.SharedWords+2 {
			return fmt.Errorf("prompt reuse %s needs prompts of at least %d words (the salt, %d shared words, the request id), got %d",
				c.PromptReuse, c.PromptReuse.SharedWords+2, c.PromptReuse.SharedWords, p)
		}
	default:
		return fmt.Errorf("unknown prompt reuse %q (want none, shared-prefix:N or same)", c.PromptReuse.Mode)
	}
	if c.Dataset != nil && (c.PromptSalt != "" || (c.PromptReuse.Mode != "" && c.PromptReuse.Mode != ReuseNone)) {
		return errors.New("a prompt salt and prompt reuse apply to generated prompts; a dataset's prompts are sent as written")
	}
	return nil
}

// filler is the word generated prompts are padded with.
const filler = " hello"

// promptParts are a generated prompt around the request id: head, then
// (keyed) the request's key and a space, then the id (withID), then tail.
// The prompt has max(PromptTokens, 2) whitespace words, or SharedWords+2
// at least.
func (c *Config) promptParts() (head, tail string, withID, keyed bool) {
	salt, words := c.PromptSalt, max(c.PromptTokens, 2)
	switch c.PromptReuse.Mode {
	case ReuseSame:
		return salt + strings.Repeat(filler, words-1), "", false, false
	case ReuseSharedPrefix:
		n := c.PromptReuse.SharedWords
		return salt + strings.Repeat(filler, n) + " ", strings.Repeat(filler, max(words-n-2, 0)), true, false
	}
	return "", strings.Repeat(filler, max(words-2, 0)), true, true
}

// promptKeyLen is the length of a request's key in hex digits.
const promptKeyLen = 8

// PromptKey is the first word of a generated prompt with prompt reuse
// none: the first 8 hex digits of SHA-256(salt "/" request id). It differs
// from request to request and from run to run, so that neither the other
// requests of the run nor an earlier run with another salt share a prompt
// token with it (beyond a chat template's own prefix); a shared salt word
// would be a shared prefix of every request of the run.
func PromptKey(salt, request string) string {
	return string(appendPromptKey(nil, salt, request))
}

func appendPromptKey(b []byte, salt, request string) []byte {
	h := sha256.New()
	h.Write([]byte(salt))
	h.Write([]byte{'/'})
	h.Write([]byte(request))
	var sum [sha256.Size]byte
	return hex.AppendEncode(b, h.Sum(sum[:0])[:promptKeyLen/2])
}

// promptRule is what every salted prompt description ends with.
const promptRule = "a prefix cache reuses tokens only up to the first token that differs; the salt is header meta.prompt_salt, random per run unless --prompt-salt is given, so runs with different salts share no prompt tokens (beyond a chat template's own prefix); a retry resends its request's prompt"

// promptWords is the length of a generated prompt in words.
func (c *Config) promptWords() int {
	w := max(c.PromptTokens, 2)
	if c.PromptReuse.Mode == ReuseSharedPrefix {
		w = max(w, c.PromptReuse.SharedWords+2)
	}
	return w
}

// promptText is the header's conditions.prompt: how a prompt is made.
func (c *Config) promptText() string {
	switch c.PromptReuse.Mode {
	case ReuseSame:
		return fmt.Sprintf("%d whitespace words: the salt, then filler; no request id; %s", c.promptWords(), promptRule)
	case ReuseSharedPrefix:
		return fmt.Sprintf("%d whitespace words: the salt, %d shared filler words, the request id, then filler; %s", c.promptWords(), c.PromptReuse.SharedWords, promptRule)
	}
	return fmt.Sprintf("%d whitespace words: the request's key (the first 8 hex digits of SHA-256 of salt/request id), the request id, then filler; the key differs between requests, so they share no prompt prefix; %s", c.promptWords(), promptRule)
}

// prefixReuse is the header's conditions.prefix_reuse: what the requests
// of the run actually share. "none" means what it means in grade's traces
// (and "无" in tracegen's Chinese ones): no prompt prefix shared on purpose.
func (c *Config) prefixReuse() any {
	switch c.PromptReuse.Mode {
	case ReuseSame:
		return map[string]any{"mode": ReuseSame, "shared": "the whole prompt: every request of the run sends the identical prompt (the salt, then filler words)"}
	case ReuseSharedPrefix:
		n := c.PromptReuse.SharedWords
		return map[string]any{"mode": ReuseSharedPrefix, "shared_words": n,
			"shared": fmt.Sprintf("the salt and the %d words after it, the same for every request of the run; each request's id follows", n)}
	}
	return ReuseNone
}
