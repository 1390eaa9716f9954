package catalog

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/augur-dev/augur/internal/clobber"
	"github.com/augur-dev/augur/testbeds"
)

// Run runs the testbed called name with cfg into the trace out,
// replacing it, until the run ends or ctx is done: augur testbed run.
// What cfg leaves zero takes its default (see testbeds.Config); faults,
// in the form of testbeds.ParseFaults, change the testbed's default
// faults (none under cfg.NoFaults), and "none" runs without. A run that ctx stopped wrote nothing,
// and its error wraps ctx.Err().
func Run(ctx context.Context, name, out string, cfg testbeds.Config, faults string) (testbeds.Stats, error) {
	tb, err := Lookup(name)
	if err != nil {
		return testbeds.Stats{}, fmt.Errorf("testbed run: %w", err)
	}
	if out == "" {
		return testbeds.Stats{}, fmt.Errorf("testbed run: -o OUT.trace is required")
	}
	if cfg.Bug != "" && !slices.Contains(tb.Bugs, cfg.Bug) {
		return testbeds.Stats{}, fmt.Errorf("testbed run: %s has no bug %q (want one of %s)", tb.Name, cfg.Bug, strings.Join(tb.Bugs, ", "))
	}
	base := tb.Faults
	if cfg.NoFaults {
		base = testbeds.Faults{}
	}
	if cfg.Faults, err = testbeds.ParseFaults(faults, base); err != nil {
		return testbeds.Stats{}, err
	}
	cfg.NoFaults = cfg.Faults == (testbeds.Faults{})
	if err := clobber.Check(out, cfg.Guard); err != nil {
		return testbeds.Stats{}, err
	}
	cfg.Overwrite = true
	return tb.Run(ctx, cfg, out)
}

// WriteStats writes what a run of cfg into the trace out did: its
// snapshots, messages and faults, the snapshots of each tag, and what
// steering and the guard did.
func WriteStats(w io.Writer, out string, cfg testbeds.Config, st testbeds.Stats) {
	fmt.Fprintf(w, "%s: %d snapshots in %d episodes, %d messages (%d dropped, %d duplicated), %d crashes, %d partitions in %.1fs\n",
		out, st.Snapshots, st.Episodes, st.Sent, st.Dropped, st.Duplicated, st.Crashes, st.Partitions, st.Elapsed.Seconds())
	for _, t := range slices.Sorted(maps.Keys(st.Tagged)) {
		fmt.Fprintf(w, "  %s: %d snapshots\n", t, st.Tagged[t])
	}
	if cfg.Steer != "" {
		fmt.Fprintf(w, "  steer %s: %d predictions (%d error paths replayed), %d filters installed (%d refused as leading to a violation), %d events filtered\n",
			cfg.Steer, st.Predictions, st.Replayed, st.Filters, st.Rejected, st.Filtered)
		if cfg.Guard == "" && !cfg.SteerAlone {
			fmt.Fprintf(w, "  guard blocks (the fallback, with the checks of --steer): %d changes blocked of %d checked\n", st.Blocked, st.Checked)
		}
	}
	if cfg.Guard != "" {
		fmt.Fprintf(w, "  guard %s: %d changes blocked of %d checked\n", cfg.Guard, st.Blocked, st.Checked)
		for _, c := range slices.Sorted(maps.Keys(st.BlockedBy)) {
			fmt.Fprintf(w, "    %s: %d\n", c, st.BlockedBy[c])
		}
	}
}

// WriteList writes the testbeds, their default nodes and faults and
// their bugs: augur testbed list.
func WriteList(w io.Writer) {
	for _, tb := range All {
		fmt.Fprintf(w, "%s\t%s\n\tnodes: %d\n\tbugs: %s\n\tfaults: %s\n", tb.Name, tb.Doc, tb.Nodes, strings.Join(tb.Bugs, ", "), tb.Faults)
	}
}
