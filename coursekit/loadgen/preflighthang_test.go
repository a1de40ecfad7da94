package loadgen_test

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

// A server that accepts the connection and never answers: the pre-flight
// said "nothing answers … (context deadline exceeded)", as if nothing
// listened. It says the connection was accepted and no answer came within
// the pre-flight's timeout; a port where nothing listens still says
// nothing answers.
func TestPreflightAcceptedButSilent(t *testing.T) {
	defer loadgen.SetPreflightTimeout(time.Second)()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accepted, never answered
		}
	}()
	err = loadgen.Preflight(context.Background(), nil, "http://"+l.Addr().String(), nil)
	if err == nil || !strings.Contains(err.Error(), "accepted the connection but did not answer GET http://"+l.Addr().String()+"/v1/models within 1 s") || strings.Contains(err.Error(), "nothing answers") {
		t.Errorf("got %v", err)
	}
	dead, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := dead.Addr().String()
	dead.Close()
	if err := loadgen.Preflight(context.Background(), nil, "http://"+addr, nil); err == nil || !strings.Contains(err.Error(), "nothing answers at") {
		t.Errorf("closed port: %v", err)
	}
}
