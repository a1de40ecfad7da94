// Package secret holds the instructor's key: loading it, making one, and
// the HMAC every variant seed and release signature derives from, so that
// only the key's holder can compute a learner's trace or sign a notebook.
package secret
