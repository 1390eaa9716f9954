package monitor

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/ir"
	"github.com/augur-dev/augur/specs/spectrace"
)

const token = "s3cret"

// newTest returns a monitor of the toy checks in testdata.
func newTest(t *testing.T, opts Options) *Monitor {
	t.Helper()
	return newChecking(t, "testdata/checks.yaml", opts)
}

// newChecking returns a monitor of the checks file at path.
func newChecking(t *testing.T, path string, opts Options) *Monitor {
	t.Helper()
	f, spec, err := checker.LoadWithSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(spec, f)
	if err != nil {
		t.Fatal(err)
	}
	opts.Checker = c
	if opts.Schema, err = spectrace.Schema(spec); err != nil {
		t.Fatal(err)
	}
	if opts.Token == "" {
		opts.Token = token
	}
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// syncBuffer is a bytes.Buffer safe for the hub's writer goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func do(t *testing.T, h http.Handler, method, path, tok, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

const twoLeaders = `{"node": "n1", "ts": 1, "state": {"term": 1, "role": "leader"}}
{"node": "n2", "ts": 2, "state": {"term": 1, "role": "follower"}}
{"node": "n2", "ts": 3, "state": {"term": 1, "role": "leader"}}
{"node": "n1", "ts": 4, "heartbeat": true}
`

func TestPushAndViolation(t *testing.T) {
	var out syncBuffer
	m := newTest(t, Options{Violations: &out})
	code, body := do(t, m, "POST", "/v1/records", token, twoLeaders)
	if code != 200 {
		t.Fatalf("push: %d %s", code, body)
	}
	var res PushResult
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	// Cuts at 1 and 2 are complete; the cut at 3 waits for a record of
	// n2 after 3... n2's last is 3 itself, and n1's heartbeat at 4 is
	// beyond: the cut at 3 is made and complete.
	if res.Records != 4 || res.Late != 0 {
		t.Errorf("push result %+v", res)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	want := `{"check":"one-leader-per-term","property":"forall n0, n1 in nodes: n0.term != n1.term or n0.role != \"leader\" or n1.role != \"leader\"","snapshot":2,"ts":3,"binding":{"n0":"n1","n1":"n2"},"values":{"n0.role":"leader","n0.term":1,"n1.role":"leader","n1.term":1}}` + "\n"
	if got := out.String(); got != want {
		t.Errorf("violations:\n%s\nwant\n%s", got, want)
	}
}

// TestViolationLineCut checks that a violation line carries what its
// witness keeps of a huge value and the witness's cut.
func TestViolationLineCut(t *testing.T) {
	log := make([]any, 2_000_000)
	for i := range log {
		log[i] = int64(i)
	}
	w := ir.NewWitness(2, 3)
	w.Bind("n0", "n1")
	w.SetValue("n0.log", log)
	line := violationLine(&checker.Violation{Check: &checker.Check{Name: "no-log", Property: "forall n0 in nodes: empty(n0.log)"}, Witness: w})
	if want := `,"cut":{"/values/n0.log":2000000}}` + "\n"; !strings.HasSuffix(string(line), want) || len(line) > 2*ir.MaxValueJSON {
		t.Errorf("line of %d bytes ends %q, want at most %d ending %q", len(line), line[max(0, len(line)-40):], 2*ir.MaxValueJSON, want)
	}
}

func TestAuth(t *testing.T) {
	m := newTest(t, Options{})
	defer m.Close()
	for _, tok := range []string{"", "wrong", token + "x"} {
		if code, body := do(t, m, "POST", "/v1/records", tok, twoLeaders); code != 401 || !strings.Contains(body, "bearer token") {
			t.Errorf("token %q: %d %s", tok, code, body)
		}
		if code, _ := do(t, m, "GET", "/metrics", tok, ""); code != 401 {
			t.Errorf("metrics with token %q: %d", tok, code)
		}
	}
	if code, body := do(t, m, "GET", "/healthz", "", ""); code != 200 || body != "ok\n" {
		t.Errorf("healthz: %d %s", code, body)
	}
	if code, body := do(t, m, "GET", "/v1/records", token, ""); code != 405 {
		t.Errorf("GET /v1/records: %d %s", code, body)
	}
	if code, body := do(t, m, "GET", "/nope", token, ""); code != 404 {
		t.Errorf("GET /nope: %d %s", code, body)
	}
}

func TestRefusals(t *testing.T) {
	m := newTest(t, Options{MaxBody: 300, MaxNodes: 2, MaxNodeName: 8, MaxRecord: 100})
	defer m.Close()
	ok := `{"node": "n1", "ts": 5, "state": {"term": 1, "role": "leader"}}` + "\n"
	if code, body := do(t, m, "POST", "/v1/records", token, ok); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	for _, tt := range []struct {
		name, body string
		code       int
		want       string
	}{
		{"malformed", `{"node": "n1", "ts": 6, "heartbeat": true}` + "\n" + `{"node": "n1", "ts": 7, "state": {"term": 1,}}`, 400, "line 2, column 45: malformed JSON"},
		{"shape", `{"node": "n1", "ts": 6}`, 400, `line 1: node n1: want exactly one of "state", "heartbeat": true and "leave": true`},
		{"type", `{"node": "n1", "ts": 6, "state": {"term": "one"}}`, 400, "line 1: node n1: state.term: string, but the schema's type is int64"},
		{"unknown variable", `{"node": "n1", "ts": 6, "state": {"vote": "n2"}}`, 400, "line 1: node n1: state.vote: no such state variable in the schema"},
		{"backwards", `{"node": "n1", "ts": 5, "heartbeat": true}`, 409, "line 1: node n1: ts 5 is not after the node's previous ts 5"},
		{"backwards within", `{"node": "n2", "ts": 9, "heartbeat": true}` + "\n" + `{"node": "n2", "ts": 8, "heartbeat": true}`, 409, "line 2: node n2: ts 8 is not after the node's previous ts 9"},
		{"nodes", `{"node": "n2", "ts": 9, "heartbeat": true}` + "\n" + `{"node": "n3", "ts": 9, "heartbeat": true}`, 422, "too many nodes: 1 known and 2 new, the limit is 2"},
		{"too large", strings.Repeat(" ", 301), 413, "over the limit of 300"},
		{"node name", `{"node": "n123456789", "ts": 9, "heartbeat": true}`, 422, "line 1: a node name of 10 bytes, longer than the limit of 8"},
		{"record size", `{"node": "n1", "ts": 6, "heartbeat": true}` + "\n" + `{"node": "n1", "ts": 7, "state": {"term": 1, "role": "leader"}}` + strings.Repeat(" ", 40), 422, "line 2: a record of 103 bytes, longer than the limit of 100"},
	} {
		code, body := do(t, m, "POST", "/v1/records", token, tt.body)
		if code != tt.code || !strings.Contains(body, tt.want) {
			t.Errorf("%s: got %d %q, want %d %q", tt.name, code, body, tt.code, tt.want)
		}
	}
	// Nothing of the refused pushes was applied: n1's next ts is 6.
	if code, body := do(t, m, "POST", "/v1/records", token, `{"node": "n1", "ts": 6, "heartbeat": true}`); code != 200 {
		t.Errorf("after refusals: %d %s", code, body)
	}
	_, metrics := do(t, m, "GET", "/metrics", token, "")
	for _, want := range []string{
		`augur_monitor_request_errors_total{reason="malformed"} 2`,
		`augur_monitor_request_errors_total{reason="type"} 2`,
		`augur_monitor_request_errors_total{reason="order"} 2`,
		`augur_monitor_request_errors_total{reason="nodes"} 1`,
		`augur_monitor_request_errors_total{reason="too_large"} 1`,
		`augur_monitor_request_errors_total{reason="node_name"} 1`,
		`augur_monitor_request_errors_total{reason="record_size"} 1`,
		`augur_monitor_records_received_total 2`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
}

func TestStream(t *testing.T) {
	m := newTest(t, Options{})
	srv := httptest.NewServer(m)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/v1/violations", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("%s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	if _, err := m.Push([]byte(twoLeaders)); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(resp.Body)
		got <- string(b)
	}()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if !strings.Contains(s, `"snapshot":2,"ts":3,"binding":{"n0":"n1","n1":"n2"}`) || strings.Count(s, "\n") != 1 {
			t.Errorf("stream: %s", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end at Close")
	}
}

func TestSlowSubscriber(t *testing.T) {
	m := newTest(t, Options{SubscriberBuffer: 1})
	s, _ := m.hub.subscribe()
	m.hub.publish([]byte("a\n"))
	m.hub.publish([]byte("b\n")) // over the buffer: s is let go
	if l := <-s.lines; string(l) != "a\n" {
		t.Errorf("got %q", l)
	}
	if _, ok := <-s.lines; ok || !s.slow {
		t.Error("slow subscriber not disconnected")
	}
	_, metrics := do(t, m, "GET", "/metrics", token, "")
	if !strings.Contains(metrics, `augur_monitor_violation_lines_dropped_total{reason="slow_subscriber"} 1`) {
		t.Errorf("metrics:\n%s", metrics)
	}
	m.Close()
}

// TestMethodNotAllowed checks that every endpoint answers a wrong method
// with 405 and the methods it takes in the Allow header (RFC 9110 §15.5.6).
func TestMethodNotAllowed(t *testing.T) {
	m := newTest(t, Options{})
	defer m.Close()
	for _, tt := range []struct{ method, path, allow string }{
		{"GET", "/v1/records", "POST"},
		{"POST", "/v1/violations", "GET"},
		{"DELETE", "/metrics", "GET"},
		{"POST", "/healthz", "GET, HEAD"},
	} {
		req := httptest.NewRequest(tt.method, tt.path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		m.ServeHTTP(rec, req)
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d, Allow %q; want 405, Allow %q", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"), tt.allow)
		}
	}
}

// TestLimitsAcrossRequests checks the bounds that span requests: pushes
// whose bodies would hold more than MaxInflight at once, and streams
// beyond MaxStreams, are refused with 503 and counted by reason; a push
// alone is taken whatever its size under MaxBody.
func TestLimitsAcrossRequests(t *testing.T) {
	m := newTest(t, Options{MaxBody: 1000, MaxInflight: 1000, MaxStreams: 2})
	defer m.Close()
	srv := httptest.NewServer(m)
	defer srv.Close()

	// A slow push holds 600 bytes of the budget while it is read.
	pr, pw := io.Pipe()
	slow, _ := http.NewRequest("POST", srv.URL+"/v1/records", pr)
	slow.Header.Set("Authorization", "Bearer "+token)
	slow.ContentLength = 600
	slowDone := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(slow)
		if err != nil {
			t.Error(err)
		}
		slowDone <- resp
	}()
	pw.Write([]byte(`{"node": "n1", "ts": 1, "heartbeat": true}`))
	for m.inflight.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	push := func(body string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL+"/v1/records", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After") + " " + string(b)
	}
	big := `{"node": "n2", "ts": 1, "heartbeat": true}` + strings.Repeat(" ", 500)
	if code, body := push(big); code != 503 || !strings.Contains(body, "1 busy: the bodies being read take the 1000 bytes allowed at once") {
		t.Errorf("a push over the budget in flight: %d %q", code, body)
	}
	if code, body := push(`{"node": "n2", "ts": 1, "heartbeat": true}`); code != 200 {
		t.Errorf("a push within the budget in flight: %d %q", code, body)
	}
	pw.Write([]byte(strings.Repeat(" ", 600-42)))
	pw.Close()
	if resp := <-slowDone; resp == nil || resp.StatusCode != 200 {
		t.Fatalf("the slow push: %v", resp)
	}
	if code, body := push(`{"node": "n2", "ts": 2, "heartbeat": true}` + strings.Repeat(" ", 900)); code != 200 || m.inflight.Load() != 0 {
		t.Errorf("a push alone: %d %q, %d bytes in flight after", code, body, m.inflight.Load())
	}

	var streams []*http.Response
	for range 2 {
		req, _ := http.NewRequest("GET", srv.URL+"/v1/violations", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("stream: %v %v", resp, err)
		}
		streams = append(streams, resp)
	}
	if code, body := do(t, m, "GET", "/v1/violations", token, ""); code != 503 || !strings.Contains(body, "too many violation streams: 2 open, the most allowed") {
		t.Errorf("a third stream: %d %q", code, body)
	}
	streams[0].Body.Close()
	for m.met.subs.Load() > 1 {
		time.Sleep(time.Millisecond)
	}
	req, _ := http.NewRequest("GET", srv.URL+"/v1/violations", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("a stream after one closed: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	streams[1].Body.Close()

	_, metrics := do(t, m, "GET", "/metrics", token, "")
	for _, want := range []string{
		`augur_monitor_request_errors_total{reason="busy"} 1`,
		`augur_monitor_request_errors_total{reason="streams"} 1`,
	} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
}
