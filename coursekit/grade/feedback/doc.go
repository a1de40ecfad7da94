// Package feedback writes each learner's feedback, in Chinese, as Markdown
// and HTML: every string from a submission escaped, no expected value, no
// instructor-only detail.
package feedback
