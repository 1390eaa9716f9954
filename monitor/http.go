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
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, m.opts.MaxBody))
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

// streamWriteTimeout bounds one write to a violation stream: a client
// that does not read is let go.
const streamWriteTimeout = 10 * time.Second

func (m *Monitor) serveViolations(w http.ResponseWriter, r *http.Request) {
	s := m.hub.subscribe()
	if s == nil {
		m.refuse(w, http.StatusServiceUnavailable, "closed", "the monitor is shutting down")
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
