package secret

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmperf-course/course/coursekit/internal/regfile"
)

// MinKeyBytes is the shortest instructor key accepted: the key is what
// keeps learners from computing each other's variants and signatures.
const MinKeyBytes = 16

// LoadKey reads the instructor's key file. Surrounding whitespace is
// ignored, so a key written with `openssl rand -base64 32 > KEY` works.
// A missing, empty or short key is an error before any grading starts.
// MaxKeyFileBytes caps a key file (coursekit key new writes 45 bytes):
// a longer file, a FIFO or a device is refused unread.
const MaxKeyFileBytes = 64 << 10

func LoadKey(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("no key file given (--key-file)")
	}
	b, err := regfile.ReadNamed(path, "a key file", MaxKeyFileBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("key file %s does not exist: the key used at assign time is needed to regenerate variants and check signatures", path)
		}
		return nil, fmt.Errorf("key file: %w", err)
	}
	k := bytes.TrimSpace(b)
	if len(k) < MinKeyBytes {
		return nil, fmt.Errorf("key file %s holds %d bytes; want at least %d (e.g. 32 random bytes, base64)", path, len(k), MinKeyBytes)
	}
	return k, nil
}

// MAC is HMAC-SHA256 under key over length-prefixed parts, so that no two
// different part lists give the same message. The first part names the use
// (domain separation), e.g. "coursekit.variant/v1".
func MAC(key []byte, parts ...string) []byte {
	h := hmac.New(sha256.New, key)
	var n [8]byte
	for _, p := range parts {
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		io.WriteString(h, p)
	}
	return h.Sum(nil)
}

// KeyFingerprint names a key without revealing it.
func KeyFingerprint(key []byte) string {
	return hex.EncodeToString(MAC(key, "coursekit.key-fingerprint/v1")[:8])
}

// NewKeyFile writes a new random key (32 bytes, base64) to path, and
// refuses if path exists: overwriting a course key makes every released
// notebook ungradable.
func NewKeyFile(path string) error {
	var k [32]byte
	if _, err := rand.Read(k[:]); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s already exists: not overwriting a key (every notebook released with it would become ungradable); choose another file name", path)
	}
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(f, base64.StdEncoding.EncodeToString(k[:])); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
