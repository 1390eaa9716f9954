package collector

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// monitor is a test server that records the lines pushed to it and fails
// while failing is set.
type monitor struct {
	mu      sync.Mutex
	lines   []string
	failing bool
	auth    []string
}

func (m *monitor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.auth = append(m.auth, r.Header.Get("Authorization"))
	if m.failing {
		http.Error(w, "not now", http.StatusServiceUnavailable)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	sc := bufio.NewScanner(r.Body)
	for sc.Scan() {
		m.lines = append(m.lines, sc.Text())
	}
}

func (m *monitor) set(failing bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.failing = failing
}

func (m *monitor) received() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.lines...)
}

type pushState struct {
	Term int64 `augur:"term"`
}

func TestHTTPSink(t *testing.T) {
	m := &monitor{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := NewHTTPSink(srv.URL, PushOptions{Token: "secret", BatchRecords: 4, FlushInterval: time.Millisecond})
	node := NewNode("n1", sink)
	for i := range 10 {
		if err := node.Expose(&pushState{Term: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := node.Leave(); err != nil {
		t.Fatal(err)
	}
	if err := sink.Flush(); err != nil {
		t.Fatal(err)
	}
	got := m.received()
	if len(got) != 11 || !strings.Contains(got[10], `"leave":true`) {
		t.Fatalf("received %d lines: %q", len(got), got)
	}
	for i, line := range got[:10] {
		var rec struct {
			Node  string
			TS    uint64
			State struct{ Term int64 }
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil || rec.Node != "n1" || rec.State.Term != int64(i) {
			t.Errorf("line %d = %s (%v)", i, line, err)
		}
	}
	if m.auth[0] != "Bearer secret" {
		t.Errorf("Authorization = %q", m.auth[0])
	}
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestHTTPSinkRetry checks that records written while the monitor fails
// are delivered, in order, once it recovers.
func TestHTTPSinkRetry(t *testing.T) {
	m := &monitor{failing: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := NewHTTPSink(srv.URL, PushOptions{FlushInterval: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	node := NewNode("n1", sink)
	for i := range 5 {
		node.Expose(&pushState{Term: int64(i)})
	}
	if err := sink.Flush(); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("Flush while the monitor fails = %v, want its 503", err)
	}
	m.set(false)
	if err := node.Close(); err != nil {
		t.Fatal(err)
	}
	got := m.received()
	if len(got) != 5 || !strings.Contains(got[0], `"term":0`) || !strings.Contains(got[4], `"term":4`) {
		t.Errorf("received %q", got)
	}
	if sink.Dropped() != 0 {
		t.Errorf("dropped %d", sink.Dropped())
	}
}

// TestHTTPSinkBounded checks that an unreachable monitor costs bounded
// memory: the oldest records are dropped and counted.
func TestHTTPSinkBounded(t *testing.T) {
	m := &monitor{failing: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := NewHTTPSink(srv.URL, PushOptions{MaxBuffered: 10, FlushInterval: time.Millisecond, MaxBackoff: 5 * time.Millisecond, CloseTimeout: time.Second})
	node := NewNode("n1", sink)
	for i := range 25 {
		node.Expose(&pushState{Term: int64(i)})
	}
	if got := sink.Dropped(); got != 15 {
		t.Errorf("dropped %d, want 15", got)
	}
	m.set(false)
	if err := sink.Flush(); err != nil {
		// The request under way when the monitor recovered may have
		// failed; the next one must not.
		if err := sink.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	got := m.received()
	if len(got) != 10 || !strings.Contains(got[0], `"term":15`) {
		t.Errorf("received %d lines, first %q; want the newest 10", len(got), got)
	}
	m.set(true)
	node.Expose(&pushState{Term: 99})
	if err := node.Close(); err == nil || !strings.Contains(err.Error(), "1 records not sent") {
		t.Errorf("Close with the monitor down = %v", err)
	}
	if got := sink.Dropped(); got != 16 {
		t.Errorf("dropped %d after Close, want 16", got)
	}
}
