// Package capture captures what a function prints to standard output, for
// tests of code that speaks to a notebook cell through fmt.Print.
package capture

import (
	"io"
	"os"
)

// Stdout returns what f printed to os.Stdout. The output is read while f
// runs, so a long report does not fill the pipe and block f.
func Stdout(f func()) (string, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", err
	}
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	old := os.Stdout
	os.Stdout = w
	defer func() { os.Stdout = old }()
	f()
	os.Stdout = old
	w.Close()
	return string(<-done), nil
}
