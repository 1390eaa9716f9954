package monitor

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/chord"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/testbeds/paxos"
	"github.com/augur-dev/augur/testbeds/randtree"
)

// TestOnlineEqualsOfflineTestbed runs testbeds with a bug whose nodes
// write their node-local records (testbeds.Config.Local) both to JSONL
// files and through an httpsink.Sink to a monitor of the testbed's
// ground-truth checks, and checks that the monitor streams exactly the
// violations that augur collect and augur check find in the files.
func TestOnlineEqualsOfflineTestbed(t *testing.T) {
	for _, tt := range []struct {
		tb           testbeds.Testbed
		bug          string
		seed         uint64
		nodes, steps int
	}{
		{randtree.Testbed, randtree.BugStaleChild, 1, randtree.Testbed.Nodes, 3000},
		{paxos.Testbed, paxos.BugLostPromise, 1, paxos.Testbed.Nodes, 4000},
		{chord.Testbed, chord.BugPredSelf, 1, chord.Testbed.Nodes, 3000},
		{etcdraft.Testbed, etcdraft.BugLostVote, 2, etcdraft.Testbed.Nodes, 3000},
	} {
		t.Run(fmt.Sprintf("%s/%s/seed=%d", tt.tb.Name, tt.bug, tt.seed), func(t *testing.T) {
			dir := t.TempDir()
			checks := filepath.Join("..", "specs", tt.tb.Name+".checks.yaml")
			var out syncBuffer
			m := newChecking(t, checks, Options{Violations: &out, Nodes: tt.nodes})
			srv := httptest.NewServer(m)
			defer srv.Close()
			var files []string
			cfg := testbeds.Config{Nodes: tt.nodes, Steps: tt.steps, Seed: tt.seed, Faults: tt.tb.Faults, Bug: tt.bug,
				ResetAfter: testbeds.DefaultResetAfter, Local: tee(dir, srv.URL, &files)}
			st, err := tt.tb.Run(t.Context(), cfg, filepath.Join(dir, "run.trace"))
			if err != nil {
				t.Fatal(err)
			}
			if st.Tagged["bug:"+tt.bug] == 0 {
				t.Fatalf("the bug did not manifest: %v", st.Tagged)
			}
			want := compare(t, m, &out, checks, files, ingest.Options{})
			t.Logf("%d violations in %d cuts of %d records, %d snapshots tagged bug:%s", len(want), m.met.cuts.Load(), m.met.records.Load(), st.Tagged["bug:"+tt.bug], tt.bug)
		})
	}
}
