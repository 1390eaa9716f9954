package monitor_test

import (
	"log"
	"net/http/httptest"
	"os"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/httpsink"
	"github.com/augur-dev/augur/monitor"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

// state is what a node of the toy system exposes.
type state struct {
	Term int64  `augur:"term"`
	Role string `augur:"role"`
}

// Three nodes push their states through httpsink.Sink to a
// monitor of one check, one leader per term. n2 and n3 both stand in
// term 2 and both win: the monitor prints the cut where they are both
// leaders.
func Example() {
	f, err := checker.Load("testdata/checks.yaml")
	if err != nil {
		log.Fatal(err)
	}
	spec, err := specs.Load(f.Spec)
	if err != nil {
		log.Fatal(err)
	}
	schema, err := spectrace.Schema(spec)
	if err != nil {
		log.Fatal(err)
	}
	c, err := checker.Compile(spec, f)
	if err != nil {
		log.Fatal(err)
	}
	m, err := monitor.New(monitor.Options{Checker: c, Schema: schema, Token: "s3cret", Nodes: 3, Violations: os.Stdout})
	if err != nil {
		log.Fatal(err)
	}
	srv := httptest.NewServer(m) // or monitor.Serve, as augur monitor does
	defer srv.Close()

	// The nodes, in the processes of the system.
	nodes := map[string]*collector.Node{}
	states := map[string]*state{}
	for _, name := range []string{"n1", "n2", "n3"} {
		sink := httpsink.New(srv.URL+"/v1/records", httpsink.Options{Token: "s3cret"})
		nodes[name] = collector.NewNode(name, sink)
		states[name] = &state{Term: 1, Role: "follower"}
		nodes[name].Expose(states[name])
	}
	set := func(name string, term int64, role string) {
		*states[name] = state{term, role}
		nodes[name].Expose(states[name])
	}
	set("n1", 1, "leader")
	// n2 and n3 time out, stand in term 2 and win, each without hearing
	// of the other.
	set("n2", 2, "candidate")
	set("n3", 2, "candidate")
	set("n2", 2, "leader")
	set("n3", 2, "leader")
	// n2 tells n1 of its term.
	ts := nodes["n2"].Stamp()
	nodes["n1"].Receive(ts)
	set("n1", 2, "follower")
	for _, name := range []string{"n1", "n2", "n3"} {
		nodes[name].Leave()
		nodes[name].Close() // sends what is left
	}
	if err := m.Close(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// {"check":"one-leader-per-term","property":"forall n0, n1 in nodes: n0.term != n1.term or n0.role != \"leader\" or n1.role != \"leader\"","snapshot":2,"ts":3,"binding":{"n0":"n2","n1":"n3"},"values":{"n0.role":"leader","n0.term":2,"n1.role":"leader","n1.term":2}}
}
