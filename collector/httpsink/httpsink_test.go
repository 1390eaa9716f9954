package httpsink

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/augur-dev/augur/collector"
)

// monitor is a test server that records the lines pushed to it. While
// failing is set it answers 503; the next refuse requests get status
// instead (0 aborts the connection).
type monitor struct {
	mu       sync.Mutex
	lines    []string
	failing  bool
	refuse   int
	status   int
	auth     []string
	requests int
}

func (m *monitor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	m.auth = append(m.auth, r.Header.Get("Authorization"))
	if m.refuse > 0 {
		m.refuse--
		if m.status == 0 {
			panic(http.ErrAbortHandler) // a network error for the client
		}
		http.Error(w, "refused", m.status)
		return
	}
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

func TestSink(t *testing.T) {
	m := &monitor{}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := New(srv.URL, Options{Token: "secret", BatchRecords: 4, FlushInterval: time.Millisecond})
	node := collector.NewNode("n1", sink)
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

// TestSinkRetry checks that records written while the monitor fails
// are delivered, in order, once it recovers.
func TestSinkRetry(t *testing.T) {
	m := &monitor{failing: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := New(srv.URL, Options{FlushInterval: time.Millisecond, MaxBackoff: 5 * time.Millisecond})
	node := collector.NewNode("n1", sink)
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

// TestSinkBounded checks that an unreachable monitor costs bounded
// memory: the oldest records are dropped and counted.
func TestSinkBounded(t *testing.T) {
	m := &monitor{failing: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := New(srv.URL, Options{MaxBuffered: 10, FlushInterval: time.Millisecond, MaxBackoff: 5 * time.Millisecond, CloseTimeout: time.Second})
	node := collector.NewNode("n1", sink)
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

// TestSinkStatus checks what the sink does with each kind of failed
// request: a batch refused with a 4xx other than 408 and 429 is dropped,
// counted and reported once, and the next batch goes through; network
// errors, 5xx, 408 and 429 are retried, after a delay bounded by
// MaxBackoff, until the batch is delivered.
func TestSinkStatus(t *testing.T) {
	for _, tt := range []struct {
		status, refuse int
		rejected       bool
	}{
		{http.StatusBadRequest, 1, true},
		{http.StatusUnauthorized, 1, true},
		{http.StatusRequestEntityTooLarge, 1, true},
		{http.StatusConflict, 1, true},
		{http.StatusRequestTimeout, 3, false},
		{http.StatusTooManyRequests, 3, false},
		{http.StatusInternalServerError, 3, false},
		{http.StatusServiceUnavailable, 20, false},
		{0, 3, false}, // the connection is cut
	} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			m := &monitor{status: tt.status, refuse: tt.refuse}
			srv := httptest.NewServer(m)
			defer srv.Close()
			sink := New(srv.URL, Options{BatchRecords: 3, FlushInterval: time.Millisecond,
				MaxBackoff: 2 * time.Millisecond, CloseTimeout: 2 * time.Second})
			node := collector.NewNode("n1", sink)
			for i := range 3 {
				node.Expose(&pushState{Term: int64(i)})
			}
			err := sink.Flush()
			var re *RejectedError
			if tt.rejected {
				if !errors.As(err, &re) || re.Records != 3 || !strings.Contains(re.Status, strconv.Itoa(tt.status)) || re.Reason != "refused" {
					t.Fatalf("Flush = %v, want the refusal of 3 records", err)
				}
				if err := sink.Flush(); err != nil {
					t.Errorf("second Flush = %v, want the refusal reported once", err)
				}
			} else if err == nil || errors.As(err, &re) {
				t.Fatalf("Flush = %v, want the failed request's error", err)
			}
			for i := 3; i < 6; i++ {
				node.Expose(&pushState{Term: int64(i)})
			}
			start := time.Now()
			if err := node.Close(); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > time.Second {
				t.Errorf("Close took %v: retries are not bounded by MaxBackoff", d)
			}
			first, want := 0, int64(0)
			if tt.rejected {
				first, want = 3, 3
			}
			got := m.received()
			if len(got) != 6-first || !strings.Contains(got[0], fmt.Sprintf(`"term":%d`, first)) {
				t.Errorf("received %q, want terms %d to 5", got, first)
			}
			if sink.Rejected() != want || sink.Dropped() != want {
				t.Errorf("rejected %d, dropped %d; want %d", sink.Rejected(), sink.Dropped(), want)
			}
			if !tt.rejected && m.requests <= tt.refuse {
				t.Errorf("%d requests, want retries past %d failures", m.requests, tt.refuse)
			}
		})
	}
}

// TestSinkCloseReportsRefusal checks that a refusal Flush has not
// reported is Close's error.
func TestSinkCloseReportsRefusal(t *testing.T) {
	m := &monitor{status: http.StatusBadRequest, refuse: 1}
	srv := httptest.NewServer(m)
	defer srv.Close()
	sink := New(srv.URL, Options{FlushInterval: time.Millisecond})
	node := collector.NewNode("n1", sink)
	node.Expose(&pushState{Term: 1})
	var re *RejectedError
	if err := node.Close(); !errors.As(err, &re) || re.Records != 1 {
		t.Errorf("Close = %v, want the refusal of 1 record", err)
	}
}
