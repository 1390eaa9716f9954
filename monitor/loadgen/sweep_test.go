package loadgen

import (
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/monitor"
	"github.com/augur-dev/augur/specs/spectrace"
)

// serve serves a monitor of Checks in-process, as augur monitor load
// --url would load, and returns its URL and a directory holding its token
// file, "token".
func serve(t *testing.T) (url, dir string) {
	t.Helper()
	dir = t.TempDir()
	for name, text := range map[string]string{"spec.yaml": Spec, "checks.yaml": Checks, "token": "tok"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, spec, err := checker.LoadWithSpec(filepath.Join(dir, "checks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(spec, f)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := spectrace.Schema(spec)
	if err != nil {
		t.Fatal(err)
	}
	m, err := monitor.New(monitor.Options{Checker: c, Schema: schema, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	t.Cleanup(func() {
		srv.Close()
		m.Close()
	})
	return srv.URL, dir
}

// TestSweepURL loads a monitor of Checks served in-process, as augur
// monitor load --url does, and reads the table's row.
func TestSweepURL(t *testing.T) {
	url, dir := serve(t)
	sw := Sweep{Nodes: []int{3, 99}, Rates: []int{300, 99}, TokenFile: filepath.Join(dir, "token"),
		Config: Config{URL: url, Duration: 300 * time.Millisecond, PlantEvery: 10, Flush: 20 * time.Millisecond, Seed: 1}}
	var out strings.Builder
	if err := sw.Run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "nodes") || !strings.HasPrefix(strings.TrimSpace(lines[1]), "3      300") {
		t.Errorf("want the header and one row, of 3 nodes at 300/s:\n%s", out.String())
	}
	sw.TokenFile = filepath.Join(dir, "none")
	if err := sw.Run(context.Background(), &out); err == nil {
		t.Error("a missing token file is no error")
	}
}

// TestRunEnds runs the nodes for their duration, however high the rate
// they are given: the largest int never left a node's loop, which
// exposed one state after another.
func TestRunEnds(t *testing.T) {
	tests := []struct {
		name string
		rate int
	}{
		{"largest int", math.MaxInt},
		{"beyond what the nodes expose", 1 << 30},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url, _ := serve(t)
			done := make(chan error, 1)
			go func() {
				_, err := Run(t.Context(), Config{URL: url, Token: "tok", Nodes: 2, Rate: tt.rate, Duration: 200 * time.Millisecond, Seed: 1})
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("a run of 200ms did not end in 30 s")
			}
		})
	}
}
