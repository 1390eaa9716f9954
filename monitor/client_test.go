package monitor

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClient pushes, follows the stream and reads the metrics through a
// Client, as augur monitor push and watch and the load generator do.
func TestClient(t *testing.T) {
	m := newTest(t, Options{})
	srv := httptest.NewServer(m)
	defer srv.Close()
	ctx := context.Background()

	if _, err := (&Client{URL: srv.URL, Token: "wrong"}).Push(ctx, []byte(twoLeaders)); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("push with a wrong token: %v, want a 401 with its reason", err)
	}
	c := &Client{URL: srv.URL + "/", Token: token}
	stream, err := c.Violations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	res, err := c.Push(ctx, []byte(twoLeaders))
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 4 || res.Late != 0 {
		t.Errorf("push result %+v", res)
	}
	if _, err := c.Push(ctx, []byte("{\n")); err == nil || !strings.Contains(err.Error(), "400") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("malformed push: %v, want a 400 naming the line", err)
	}
	metrics, err := c.Metrics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := metrics["augur_monitor_records_received_total"]; got != 4 {
		t.Errorf("records received = %v, want 4", got)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(stream)
		got <- string(b)
	}()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if !strings.Contains(s, `"snapshot":2,"ts":3,"binding":{"n0":"n1","n1":"n2"}`) {
			t.Errorf("stream: %s", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("stream did not end at Close")
	}
}

func TestReadLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a := write("a.jsonl", `{"node":"n1","ts":1,"state":{}}`+"\n"+`{"node":"n1","ts":5,"heartbeat":true}`+"\n\n")
	b := write("b.jsonl", `{"node":"n2","ts":3,"state":{}}`+"\n"+`{"node":"n2","ts":5,"leave":true}`+"\n")
	lines, err := ReadLines(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		got = append(got, string(l))
	}
	want := []string{`{"node":"n1","ts":1,"state":{}}`, `{"node":"n2","ts":3,"state":{}}`, `{"node":"n1","ts":5,"heartbeat":true}`, `{"node":"n2","ts":5,"leave":true}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant (by ts, ties in file order):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	bad := write("bad.jsonl", `{"node":"n1","ts":1,"state":{}}`+"\n"+`{"node":"n1"}`+"\n")
	if _, err := ReadLines(bad); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2") {
		t.Errorf("a line without ts: %v, want an error naming bad.jsonl:2", err)
	}
}

// TestPushBatches pushes four records in requests of three, then a
// malformed one, whose error names it.
func TestPushBatches(t *testing.T) {
	srv := httptest.NewServer(newTest(t, Options{}))
	defer srv.Close()
	c := &Client{URL: srv.URL, Token: token}
	var lines [][]byte
	for _, l := range strings.Split(strings.TrimSpace(twoLeaders), "\n") {
		lines = append(lines, []byte(l))
	}
	late, requests, err := c.PushBatches(context.Background(), lines, 3)
	if err != nil || late != 0 || requests != 2 {
		t.Errorf("PushBatches = %d late, %d requests, %v; want 0, 2, nil", late, requests, err)
	}
	if _, _, err := c.PushBatches(context.Background(), [][]byte{[]byte("{")}, 3); err == nil || !strings.Contains(err.Error(), "records 1-1") {
		t.Errorf("malformed push: %v, want an error naming records 1-1", err)
	}
}

// TestPushFiles pushes the node-local files of testdata, merged in
// timestamp order, as augur monitor push does.
func TestPushFiles(t *testing.T) {
	srv := httptest.NewServer(newTest(t, Options{}))
	defer srv.Close()
	c := &Client{URL: srv.URL, Token: token}
	files := []string{"testdata/n1.jsonl", "testdata/n2.jsonl", "testdata/n3.jsonl"}
	lines, err := ReadLines(files...)
	if err != nil {
		t.Fatal(err)
	}
	records, late, requests, err := c.PushFiles(context.Background(), 4, files...)
	if err != nil || records != len(lines) || late != 0 || requests != (len(lines)+3)/4 {
		t.Errorf("PushFiles = %d records, %d late, %d requests, %v; want %d, 0, %d, nil", records, late, requests, err, len(lines), (len(lines)+3)/4)
	}
	if _, _, _, err := (&Client{URL: srv.URL, Token: "wrong"}).PushFiles(context.Background(), 4, files...); err == nil || !strings.HasPrefix(err.Error(), "push: records 1-4: ") {
		t.Errorf("push with a wrong token: %v", err)
	}
}
