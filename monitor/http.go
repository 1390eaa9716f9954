package monitor

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ServeHTTP serves the monitor's HTTP API:
//
//	POST /v1/records   node-local JSON lines (application/x-ndjson)
//	GET  /v1/violations a stream of violation lines
//	GET  /metrics      counters in the Prometheus text format
//	GET  /healthz      "ok", or 503 and the reason
//
// Every request but GET /healthz needs the header "Authorization: Bearer
// TOKEN". Every error is a status and a one-line plain-text reason.
func (m *Monitor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/v1/records":
		if m.allow(w, r, http.MethodPost) {
			m.servePush(w, r)
		}
	case "/v1/violations":
		if m.allow(w, r, http.MethodGet) {
			m.serveViolations(w, r)
		}
	case "/metrics":
		if m.allow(w, r, http.MethodGet) {
			w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
			m.met.write(w)
		}
	case "/healthz":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			m.refuse(w, http.StatusMethodNotAllowed, "method", "use GET")
			return
		}
		if err := m.Health(); err != nil {
			m.refuse(w, http.StatusServiceUnavailable, "", err.Error())
			return
		}
		io.WriteString(w, "ok\n")
	default:
		m.refuse(w, http.StatusNotFound, "path", "no such endpoint: "+r.URL.Path+" (POST /v1/records, GET /v1/violations, GET /metrics, GET /healthz)")
	}
}

// allow checks the method and the token, and refuses the request if
// either is wrong.
func (m *Monitor) allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method != method {
		w.Header().Set("Allow", method)
		m.refuse(w, http.StatusMethodNotAllowed, "method", "use "+method)
		return false
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	// Hashing both makes the comparison take the same time whatever the
	// length of the token offered.
	want := sha256.Sum256([]byte(m.opts.Token))
	have := sha256.Sum256([]byte(got))
	if !ok || subtle.ConstantTimeCompare(want[:], have[:]) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="augur monitor"`)
		m.refuse(w, http.StatusUnauthorized, "auth", "missing or wrong bearer token")
		return false
	}
	return true
}

// refuse writes an error status and its reason, and counts it.
func (m *Monitor) refuse(w http.ResponseWriter, status int, reason, msg string) {
	if reason != "" {
		m.met.requestError(reason)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	io.WriteString(w, msg+"\n")
}

func (m *Monitor) servePush(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > m.opts.MaxBody {
		m.refuse(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body of %d bytes is over the limit of %d", r.ContentLength, m.opts.MaxBody))
		return
	}
	// The body, what reading it grows and what decoding it makes are
	// held until the push is answered: take its size from the budget of
	// the bodies in flight, or refuse it while others hold the budget
	// (one push alone is bounded by MaxBody).
	size := r.ContentLength
	if size < 0 {
		size = m.opts.MaxBody
	}
	if n := m.inflight.Add(size); n > m.opts.MaxInflight && n > size {
		m.inflight.Add(-size)
		w.Header().Set("Retry-After", "1")
		m.refuse(w, http.StatusServiceUnavailable, "busy", fmt.Sprintf("busy: the bodies being read take the %d bytes allowed at once; retry later", m.opts.MaxInflight))
		return
	}
	defer m.inflight.Add(-size)
	body, err := readBody(w, r, m.opts.MaxBody)
	if err != nil {
		if errors.As(err, new(*http.MaxBytesError)) {
			m.refuse(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("body over the limit of %d bytes", m.opts.MaxBody))
			return
		}
		m.refuse(w, http.StatusBadRequest, "read", "reading the body: "+err.Error())
		return
	}
	res, err := m.Push(body)
	if err != nil {
		var pe *PushError
		if errors.As(err, &pe) {
			// Push counted it.
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(pe.Status)
			io.WriteString(w, pe.Msg+"\n")
			return
		}
		m.refuse(w, http.StatusInternalServerError, "internal", err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(res)
}

// readBody reads the body of r, of at most limit bytes. A body of known
// length is read into a buffer of that length: io.ReadAll would grow one
// to up to twice the body's size.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, limit)
	if r.ContentLength < 0 {
		return io.ReadAll(body)
	}
	b := make([]byte, r.ContentLength)
	if _, err := io.ReadFull(body, b); err != nil {
		return nil, err
	}
	return b, nil
}

// streamWriteTimeout bounds one write to a violation stream: a client
// that does not read is let go.
const streamWriteTimeout = 10 * time.Second

func (m *Monitor) serveViolations(w http.ResponseWriter, r *http.Request) {
	s, err := m.hub.subscribe()
	switch {
	case errors.Is(err, errStreams):
		w.Header().Set("Retry-After", "10")
		m.refuse(w, http.StatusServiceUnavailable, "streams", fmt.Sprintf("%s: %d open, the most allowed", err, m.opts.MaxStreams))
		return
	case err != nil:
		m.refuse(w, http.StatusServiceUnavailable, "closed", err.Error())
		return
	}
	defer m.hub.unsubscribe(s)
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	rc.Flush()
	// end ends the stream when the hub closed it: at shutdown, or
	// because the client fell behind, which it is told.
	end := func() {
		if s.slow {
			rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			io.WriteString(w, `{"error":"this stream fell behind and was disconnected; violations were lost"}`+"\n")
		}
		rc.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case line, ok := <-s.lines:
			if !ok {
				end()
				return
			}
			rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := w.Write(line); err != nil {
				return
			}
			// Write what else is queued before flushing.
		drain:
			for {
				select {
				case l, ok := <-s.lines:
					if !ok {
						end()
						return
					}
					if _, err := w.Write(l); err != nil {
						return
					}
				default:
					break drain
				}
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}
