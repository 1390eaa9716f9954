package monitor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func push(t *testing.T, m *Monitor, format string, args ...any) PushResult {
	t.Helper()
	res, err := m.Push([]byte(fmt.Sprintf(format, args...)))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestFailAfter: a node that stops pushing holds the cuts back until it
// has been silent for FailAfter; then it leaves the cuts, which go on
// without it, and its records from before are late.
func TestFailAfter(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	m := newTest(t, Options{FailAfter: 5 * time.Second, Now: clock.Now})
	defer m.Close()
	push(t, m, `{"node": "n1", "ts": 1, "state": {"term": 1, "role": "leader"}}`+"\n"+`{"node": "n2", "ts": 2, "state": {"term": 1, "role": "follower"}}`)
	for ts := 3; ts < 43; ts++ {
		clock.Add(100 * time.Millisecond)
		push(t, m, `{"node": "n1", "ts": %d, "heartbeat": true}`, ts)
		m.Tick()
	}
	if m.buffered == 0 || m.met.cuts.Load() != 2 {
		t.Fatalf("n2 silent: %d records held, %d cuts; want the cuts to wait", m.buffered, m.met.cuts.Load())
	}
	clock.Add(time.Second) // n2 has been silent for 5s, n1 for 1s
	m.Tick()
	if m.buffered != 0 {
		t.Errorf("%d records held after n2 failed", m.buffered)
	}
	if !m.nodes["n2"].failed || m.nodes["n1"].failed {
		t.Error("the wrong node failed")
	}
	res := push(t, m, `{"node": "n2", "ts": 20, "heartbeat": true}`+"\n"+`{"node": "n2", "ts": 120, "state": {"term": 2, "role": "leader"}}`)
	if res.Late != 1 || res.Records != 2 {
		t.Errorf("n2 back: %+v, want 1 of 2 records late", res)
	}
	if !m.nodes["n2"].waited {
		t.Error("n2 does not rejoin")
	}
	_, metrics := do(t, m, "GET", "/metrics", token, "")
	for _, want := range []string{`augur_monitor_nodes_failed_total{reason="silent"} 1`, "augur_monitor_records_late_total 1"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestMaxBuffered: without FailAfter, a silent node holds the cuts back
// until MaxBuffered records are held; then it is declared failed, so
// memory stays bounded.
func TestMaxBuffered(t *testing.T) {
	m := newTest(t, Options{MaxBuffered: 50})
	defer m.Close()
	push(t, m, `{"node": "n1", "ts": 1, "state": {"term": 1, "role": "leader"}}`+"\n"+`{"node": "n2", "ts": 2, "state": {"term": 1, "role": "follower"}}`)
	most := 0
	for ts := 3; ts < 10000; ts += 10 {
		var b strings.Builder
		for i := range 10 {
			fmt.Fprintf(&b, `{"node": "n1", "ts": %d, "state": {"term": %d, "role": "leader"}}`+"\n", ts+i, ts+i)
		}
		push(t, m, "%s", b.String())
		most = max(most, m.buffered)
	}
	if most > 50 {
		t.Errorf("%d records held, more than MaxBuffered", most)
	}
	if !m.nodes["n2"].failed || m.met.cuts.Load() < 9000 {
		t.Errorf("n2 failed: %v; %d cuts", m.nodes["n2"].failed, m.met.cuts.Load())
	}
	_, metrics := do(t, m, "GET", "/metrics", token, "")
	if !strings.Contains(metrics, `augur_monitor_nodes_failed_total{reason="buffer"} 1`+"\n") {
		t.Errorf("metrics:\n%s", metrics)
	}
}

// TestMaxHeld: records of 1 KB from one node while another is silent
// are held back until their lines come to MaxHeld bytes; then the silent
// node is declared failed (reason held), well before MaxBuffered
// records, so that what is held is bounded across requests in bytes, not
// only as MaxBuffered records of MaxRecord bytes each. A push whose
// records alone come to more is refused (held_size).
func TestMaxHeld(t *testing.T) {
	const maxHeld = 64 << 10
	m := newTest(t, Options{MaxHeld: maxHeld})
	defer m.Close()
	push(t, m, `{"node": "n1", "ts": 1, "state": {"term": 1, "role": "leader"}}`+"\n"+`{"node": "n2", "ts": 2, "state": {"term": 1, "role": "follower"}}`)
	pad := strings.Repeat(" ", 1000)
	var most int64
	for ts := 3; ts < 1000; ts += 10 {
		var b strings.Builder
		for i := range 10 {
			fmt.Fprintf(&b, `{"node": "n1", "ts": %d, "state": {"term": %d, "role": "leader"}}%s`+"\n", ts+i, ts+i, pad)
		}
		push(t, m, "%s", b.String())
		most = max(most, m.held)
	}
	if most > maxHeld {
		t.Errorf("%d bytes of records held, more than MaxHeld", most)
	}
	if !m.nodes["n2"].failed {
		t.Errorf("n2 not failed with %d bytes held", most)
	}
	big := strings.Repeat(`{"node": "n1", "ts": 5000, "heartbeat": true}`+pad+"\n", maxHeld/1000)
	if code, body := do(t, m, "POST", "/v1/records", token, big); code != 422 || !strings.Contains(body, "more than the 65536 bytes of records the monitor holds back at most") {
		t.Errorf("a push over MaxHeld: %d %q", code, body)
	}
	_, metrics := do(t, m, "GET", "/metrics", token, "")
	for _, want := range []string{
		`augur_monitor_nodes_failed_total{reason="held"} 1`,
		`augur_monitor_request_errors_total{reason="held_size"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
}

// TestNodesWait: with Nodes, the first node's records wait for the
// others, which are then not late.
func TestNodesWait(t *testing.T) {
	m := newTest(t, Options{Nodes: 2})
	defer m.Close()
	res := push(t, m, `{"node": "n1", "ts": 1, "state": {"term": 1, "role": "leader"}}`+"\n"+`{"node": "n1", "ts": 5, "heartbeat": true}`)
	if res.Cuts != 0 {
		t.Errorf("cuts before n2: %+v", res)
	}
	res = push(t, m, `{"node": "n2", "ts": 2, "state": {"term": 1, "role": "leader"}}`+"\n"+`{"node": "n2", "ts": 6, "heartbeat": true}`)
	if res.Late != 0 || res.Cuts != 2 {
		t.Errorf("after n2: %+v, want 2 cuts and nothing late", res)
	}
}

// TestRecord: the recording's journal is readable by augur collect while
// the monitor runs (after a kill -9, say); a monitor refuses to start on
// an earlier recording or its journal; Close puts the trace in place and
// removes the journal.
func TestRecord(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "live.trace")
	m := newTest(t, Options{Record: rec})
	push(t, m, "%s", twoLeaders)
	j := rec + ".journal.jsonl"
	spec, err := specs.Load("testdata/spec.yaml")
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := spectrace.Schema(spec)
	res, err := ingest.Collect(t.Context(), filepath.Join(dir, "recovered.trace"), []string{j}, ingest.Options{Schema: schema, Window: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if made := m.met.cuts.Load(); made != 3 || res.Snapshots != 3 {
		t.Errorf("recovered %d snapshots from the journal, want the %d the monitor checked", res.Snapshots, made)
	}
	if _, err := New(m.opts); err == nil || !strings.Contains(err.Error(), "journal") {
		t.Errorf("second monitor on a live recording: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(j); !os.IsNotExist(err) {
		t.Errorf("journal left after Close: %v", err)
	}
	if _, err := os.Stat(filepath.Join(rec, "manifest.json")); err != nil {
		t.Error(err)
	}
	if _, err := New(m.opts); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("monitor on an earlier recording: %v", err)
	}
}
