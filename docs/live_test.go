package docs_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/monitor"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

const livePage = "live.md"

// get returns the status and body of an authorized GET of path.
func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestMonitorReference checks that live.md names every endpoint of the
// monitor, as its answer to an unknown path lists them, and every metric
// GET /metrics serves.
func TestMonitorReference(t *testing.T) {
	spec, err := specs.Parse("spec.yaml", []byte("variables: {term: int64}\n"))
	if err != nil {
		t.Fatal(err)
	}
	schema, err := spectrace.Schema(spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := checker.Compile(spec, &checker.File{Checks: []checker.Check{{Name: "c", Property: "forall n0 in nodes: n0.term >= 0"}}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := monitor.New(monitor.Options{Checker: c, Schema: schema, Token: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(m)
	defer srv.Close()
	defer m.Close()
	page := readPage(t, livePage)

	status, body := get(t, srv, "/no/such/endpoint")
	if status != http.StatusNotFound {
		t.Fatalf("GET of an unknown path: %d %s", status, body)
	}
	routes := regexp.MustCompile(`(GET|POST) (/[a-z0-9/]+)`).FindAllStringSubmatch(body, -1)
	if len(routes) < 4 {
		t.Fatalf("the monitor's list of endpoints is not what the test reads: %s", body)
	}
	for _, r := range routes {
		if !strings.Contains(page, "`"+r[1]+" "+r[2]) {
			t.Errorf("%s does not describe the endpoint %s %s", livePage, r[1], r[2])
		}
	}

	status, body = get(t, srv, "/metrics")
	if status != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", status, body)
	}
	metrics := regexp.MustCompile(`(?m)^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) `).FindAllStringSubmatch(body, -1)
	if len(metrics) < 10 {
		t.Fatalf("GET /metrics serves %d metrics:\n%s", len(metrics), body)
	}
	for _, mt := range metrics {
		if !strings.Contains(page, "`"+mt[1]+"`") {
			t.Errorf("%s does not describe the metric %s", livePage, mt[1])
		}
	}
}
