package loadgen_test

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmperf-course/course/coursekit/loadgen"
)

const modelsJSON = `{"object":"list","data":[{"id":"m"}]}`

// An https:// --url at a plain-HTTP server that answers the ClientHello
// (Go's, the simulator): the pre-flight said "nothing answers … (http:
// server gave HTTP response to HTTPS client)". It says the server speaks
// plain HTTP and gives the http:// URL.
func TestPreflightHTTPSAtPlainServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(modelsJSON)) }))
	defer srv.Close()
	u := "https://" + srv.Listener.Addr().String() + "/v1"
	err := loadgen.Preflight(context.Background(), nil, u, nil)
	if err == nil || !strings.Contains(err.Error(), "speaks plain HTTP, not HTTPS") || !strings.Contains(err.Error(), "use http://"+srv.Listener.Addr().String()+"/v1") || strings.Contains(err.Error(), "nothing answers") {
		t.Errorf("got %v", err)
	}
	if _, err := loadgen.ResolveModel(context.Background(), nil, u, nil); err == nil || !strings.Contains(err.Error(), "speaks plain HTTP") {
		t.Errorf("ResolveModel: %v", err)
	}
}

// heldTLS serves plain HTTP with handler, and holds a connection whose
// first byte starts a TLS record (0x16) open without answering, as
// llama.cpp's server does while it waits for the end of a request line.
func heldTLS(t *testing.T, handler http.Handler) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ch := &chanListener{Listener: l, conns: make(chan net.Conn)}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(ch.conns)
				return
			}
			go func() {
				br := bufio.NewReader(c)
				b, err := br.Peek(1)
				if err == nil && b[0] == 0x16 {
					mu.Lock()
					held = append(held, c)
					mu.Unlock()
					return
				}
				ch.conns <- &peekedConn{Conn: c, r: br}
			}()
		}
	}()
	srv := &http.Server{Handler: handler}
	go func() { _ = srv.Serve(ch) }()
	t.Cleanup(func() {
		srv.Close()
		l.Close()
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	})
	return l.Addr().String()
}

type chanListener struct {
	net.Listener
	conns chan net.Conn
}

func (l *chanListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(b []byte) (int, error) { return c.r.Read(b) }

// An https:// --url at a plain-HTTP server that never answers the
// ClientHello (the real engine): the pre-flight waited its whole timeout
// and said "nothing answers … (context deadline exceeded)". Once the
// handshake has gone unanswered it asks plain HTTP, without the API key,
// and says the server speaks plain HTTP.
func TestPreflightHTTPSAtSilentPlainServer(t *testing.T) {
	defer loadgen.SetPlainProbeAfter(50 * time.Millisecond)()
	var mu sync.Mutex
	var auth []string
	addr := heldTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = w.Write([]byte(modelsJSON))
	}))
	h := http.Header{"Authorization": {"Bearer sk-secret"}}
	err := loadgen.Preflight(context.Background(), nil, "https://"+addr, h)
	if err == nil || !strings.Contains(err.Error(), "speaks plain HTTP, not HTTPS (the TLS handshake got no answer") || !strings.Contains(err.Error(), "use http://"+addr) {
		t.Errorf("got %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) != 1 || auth[0] != "" {
		t.Errorf("plain probes' Authorization headers: %q (want one probe, without the key)", auth)
	}
}

// An https:// --url at a server that accepts and never answers, in TLS or
// in plain HTTP: not "nothing answers", but the handshake got no answer.
func TestPreflightHTTPSHandshakeUnanswered(t *testing.T) {
	defer loadgen.SetPreflightTimeout(time.Second)()
	defer loadgen.SetPlainProbeAfter(50 * time.Millisecond)()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var held []net.Conn
	defer func() {
		mu.Lock()
		for _, c := range held {
			c.Close()
		}
		mu.Unlock()
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	err = loadgen.Preflight(context.Background(), nil, "https://"+l.Addr().String(), nil)
	if err == nil || !strings.Contains(err.Error(), "accepted the connection but did not answer the TLS handshake within 1 s") || strings.Contains(err.Error(), "nothing answers") {
		t.Errorf("got %v", err)
	}
	// A plain-HTTP answer of 400 is what a TLS server (Go's, nginx) gives
	// plain HTTP: no proof the port speaks plain HTTP.
	addr := heldTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Client sent an HTTP request to an HTTPS server.", http.StatusBadRequest)
	}))
	err = loadgen.Preflight(context.Background(), nil, "https://"+addr, nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer the TLS handshake within 1 s") || strings.Contains(err.Error(), "speaks plain HTTP") {
		t.Errorf("400 to plain HTTP: %v", err)
	}
}

// A server that answers the ClientHello with neither TLS nor HTTP.
func TestPreflightHTTPSAtNonTLSServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("SSH-2.0-OpenSSH_9.6\r\n"))
			c.Close()
		}
	}()
	err = loadgen.Preflight(context.Background(), nil, "https://"+l.Addr().String(), nil)
	if err == nil || !strings.Contains(err.Error(), "does not speak TLS") || strings.Contains(err.Error(), "nothing answers") {
		t.Errorf("got %v", err)
	}
}

// A TLS server still passes.
func TestPreflightHTTPSAtTLSServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(modelsJSON)) }))
	defer srv.Close()
	if err := loadgen.Preflight(context.Background(), srv.Client(), srv.URL, nil); err != nil {
		t.Errorf("TLS server: %v", err)
	}
}
