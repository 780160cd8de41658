//go:build !harnlite

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/harnlang/harn/adapter/mcp"
	"github.com/harnlang/harn/internal/tlsconf"
	"github.com/harnlang/harn/mcp/protocol"
)

// serveHTTP runs the session-free Streamable HTTP transport
// (docs/spec/mcp-projection.md §12) until the listener fails or the
// process is asked to stop.
func serveHTTP(srv *mcp.Server, f *serveFlags, cert *tlsconf.Cert, stop <-chan os.Signal, stderr io.Writer) int {
	if f.apiKeyEnv != "" {
		keys, err := protocol.ParseAPIKeys("HARN_SERVE_API_KEY", f.apiKeyEnv)
		if err != nil {
			fmt.Fprintf(stderr, "error: %v\n", err)
			return 1
		}
		f.apiKeys = keys
	}
	ln, err := net.Listen("tcp", f.bind)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	scheme := "http"
	if cert != nil {
		ln, scheme = cert.Listener(ln), "https"
	}
	announceServeTLS(f, cert, stderr)
	fmt.Fprintf(stderr, "[harn] serve mcp: listening on %s://%s%s\n", scheme, ln.Addr(), f.path)
	h := srv.HTTPHandler(mcp.HTTPOptions{Path: f.path, APIKeys: f.apiKeys, HMACSecret: f.hmac, HSTS: f.tls == "edge" || f.tls == "pem"})
	// The listener outlasts the drain by shutdownSettle, for the calls it
	// cut short to return and their answers to be sent.
	drain := func() { drainServe(srv, stderr) }
	if err := serveUntilSignal(protocol.NewHTTPServer(h, protocol.HTTPServerOptions{}), ln, stop, shutdownGrace+shutdownSettle, drain); err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	return 0
}

// shutdownGrace bounds how long a stopping `harn serve mcp` waits for
// the calls it is answering.
const shutdownGrace = 5 * time.Second

// shutdownSettle is how long a stopping server (serve mcp, mcp serve)
// gives the calls its drain cut short to return and send their answer.
const shutdownSettle = 2 * time.Second

// stopSignals asks for the signals that stop a server (SIGINT, SIGTERM);
// call it before announcing the server, so that a signal sent as soon as
// the announcement is seen is not lost to the default action. The
// caller calls signal.Stop when done.
//
// Asking also matters when the process was started with SIGINT ignored
// (a shell's background job): Notify enables it again.
func stopSignals() chan os.Signal {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	return signals
}

// surviveBrokenPipes keeps a long-running server (serve mcp, mcp serve,
// lsp) alive when the reader of its standard error or output goes away
// (a client that stops reading stderr, a log pipe whose reader
// restarts): by default the Go runtime ends a program with SIGPIPE on a
// write to a broken pipe on fd 1 or 2. Asking for the signal turns such
// writes into EPIPE errors: log lines are dropped, a stdio transport's
// replies too, and the server stops, as always, when its input ends. A
// handler is reset on exec, so the processes the server starts still get
// the default.
func surviveBrokenPipes() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// serveStdioUntilSignal runs serve, a stdio server, until it returns (the
// client closed stdin: the calls it received have run to their answer)
// or a signal arrives on stop; then drain answers the calls in progress
// and the command returns without waiting for the client to close stdin.
func serveStdioUntilSignal(serve func() error, stop <-chan os.Signal, drain func()) error {
	done := make(chan error, 1)
	go func() { done <- serve() }()
	select {
	case err := <-done:
		return err
	case <-stop:
		drain()
		return nil
	}
}

// serveUntilSignal serves hs on ln until the listener fails or a signal
// arrives on stop; a signal stops accepting, lets in-flight requests
// finish (at most grace) and returns nil, so the command returns
// normally and main flushes what it must (HARN_CPUPROFILE). drain, when
// not nil, runs meanwhile: it returns once every call in progress is
// answered, cutting short (and answering with an error) those still
// running near the end of grace, so that their connections get an
// answer rather than being dropped.
func serveUntilSignal(hs *http.Server, ln net.Listener, stop <-chan os.Signal, grace time.Duration, drain func()) error {
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-stop:
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		shut := make(chan error, 1)
		go func() { shut <- hs.Shutdown(ctx) }()
		if drain != nil {
			drain()
		}
		if <-shut != nil {
			hs.Close() // the grace ran out: drop what is still open
		}
		<-served
		return nil
	}
}
