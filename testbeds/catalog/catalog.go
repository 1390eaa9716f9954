// Package catalog lists the testbeds augur can run (augur testbed list),
// runs one into a trace (augur testbed run), and records a run of one
// together with the spec that describes it.
package catalog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/testbeds"
	"github.com/augur-dev/augur/testbeds/chord"
	"github.com/augur-dev/augur/testbeds/etcdraft"
	"github.com/augur-dev/augur/testbeds/paxos"
	"github.com/augur-dev/augur/testbeds/randtree"
)

// All holds the testbeds, in the order augur testbed list shows them.
var All = []testbeds.Testbed{etcdraft.Testbed, chord.Testbed, paxos.Testbed, randtree.Testbed}

// Lookup returns the testbed called name.
func Lookup(name string) (testbeds.Testbed, error) {
	i := slices.IndexFunc(All, func(tb testbeds.Testbed) bool { return tb.Name == name })
	if i < 0 {
		names := make([]string, len(All))
		for i, tb := range All {
			names[i] = tb.Name
		}
		return testbeds.Testbed{}, fmt.Errorf("unknown testbed %q (want one of %s)", name, strings.Join(names, ", "))
	}
	return All[i], nil
}

// Record runs tb with cfg into dir/NAME.trace, replacing it, and writes
// the testbed's spec beside it as dir/NAME.yaml. What cfg leaves zero
// takes its default, as tb.Run has it (see testbeds.Config). Once ctx is
// done the run stops, as testbeds.Record does.
func Record(ctx context.Context, dir, name string, tb testbeds.Testbed, cfg testbeds.Config) (specPath, tracePath string, st testbeds.Stats, err error) {
	spec, err := specs.Testbed(tb.Name)
	if err != nil {
		return "", "", st, err
	}
	specPath, tracePath = filepath.Join(dir, name+".yaml"), filepath.Join(dir, name+".trace")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		return "", "", st, err
	}
	cfg.Overwrite = true
	st, err = tb.Run(ctx, cfg, tracePath)
	return specPath, tracePath, st, err
}
