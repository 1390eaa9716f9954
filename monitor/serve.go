package monitor

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"time"
)

// ServeOptions configure [Serve].
type ServeOptions struct {
	// TLS, if not nil, serves HTTPS with it.
	TLS *tls.Config
	// ShutdownTimeout bounds how long a shutdown waits for the requests
	// in progress; 0 means 10s.
	ShutdownTimeout time.Duration
}

// Serve serves m on ln until ctx is done, then shuts down: it stops
// accepting connections, lets the pushes in progress finish, closes m
// (which makes and checks the last cuts, ends the violation streams and
// closes the recording) and returns the error of Close.
func Serve(ctx context.Context, ln net.Listener, m *Monitor, opts ServeOptions) error {
	if opts.ShutdownTimeout <= 0 {
		opts.ShutdownTimeout = 10 * time.Second
	}
	srv := &http.Server{
		Handler:           m,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute, // a push's body; streams clear it
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		TLSConfig:         opts.TLS,
		ErrorLog:          log.New(cmp.Or[io.Writer](m.opts.Log, io.Discard), "augur monitor: http: ", 0),
	}
	closed := make(chan error, 1)
	srv.RegisterOnShutdown(func() { closed <- m.Close() })
	if opts.TLS != nil {
		ln = tls.NewListener(ln, opts.TLS)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ticker := time.NewTicker(tickEvery(m.opts.FailAfter))
	defer ticker.Stop()
	for {
		select {
		case err := <-served:
			// The listener failed.
			m.Close()
			return err
		case <-ticker.C:
			m.Tick()
			continue
		case <-ctx.Done():
		}
		break
	}
	sctx, cancel := context.WithTimeout(context.Background(), opts.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	cerr := <-closed
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return cerr
}

// tickEvery is how often Serve looks for silent nodes.
func tickEvery(failAfter time.Duration) time.Duration {
	if failAfter <= 0 {
		return time.Second
	}
	return min(max(failAfter/4, 10*time.Millisecond), time.Second)
}
