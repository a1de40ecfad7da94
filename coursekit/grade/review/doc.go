// Package review is the manual-review file: free-text answers written out
// with a score column, the scores a person typed read back strictly (a typo
// never becomes a grade), and applied only to the answer they were given
// for.
package review
