package avoid

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/internal/shutdown"
	"github.com/augur-dev/augur/testbeds"
)

// Dropped is a check that refused changes of a bug-free run.
type Dropped struct {
	Check    string // its name
	Property string
	Refused  int // changes it refused, over the seeds, in the round it was dropped
	Round    int // from 1
}

// Vet guards the bug-free runs of testbed tb at seeds, steps snapshots
// each, with the checks of f and drops the checks that refuse a change,
// round after round until no check refuses one; it returns the checks
// dropped. It is the live counterpart of learn.Vet, which replays
// recorded runs: it also sees the states a refusal leads to, which no
// recorded good run holds (etcd raft rebuilds a refused node from its
// disk, as a follower that lost its volatile state). A refusal is
// charged to the first check the refused state breaks
// (testbeds.Stats.BlockedBy), so a check is dropped only once the checks
// before it let the change through. Runs of a round are bug-free seeds
// believed good: choose them among the development seeds. f keeps the
// checks that passed.
func Vet(ctx context.Context, tb testbeds.Testbed, f *checker.File, seeds []uint64, steps int) ([]Dropped, error) {
	dir, remove, err := shutdown.TempDir("augur-vet-")
	if err != nil {
		return nil, err
	}
	defer remove()
	vetted := &checker.File{Spec: f.Spec, Checks: slices.Clone(f.Checks)}
	if vetted.Spec, err = filepath.Abs(f.Spec); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "checks.yaml")
	var dropped []Dropped
	for round := 1; len(vetted.Checks) > 0; round++ {
		if err := vetted.Write(path); err != nil {
			return nil, err
		}
		refused := map[string]int{}
		for _, seed := range seeds {
			cfg := testbeds.Config{Nodes: tb.Nodes, Steps: steps, Seed: seed, Faults: tb.Faults,
				ResetAfter: testbeds.ResetAtViolation, Guard: path, Overwrite: true}
			st, err := tb.Run(ctx, cfg, filepath.Join(dir, "run.trace"))
			if err != nil {
				return nil, fmt.Errorf("%s seed %d: %w", tb.Name, seed, err)
			}
			for name, n := range st.BlockedBy {
				refused[name] += n
			}
		}
		if len(refused) == 0 {
			break
		}
		n := len(dropped)
		vetted.Checks = slices.DeleteFunc(vetted.Checks, func(c checker.Check) bool {
			if k, ok := refused[c.Name]; ok {
				dropped = append(dropped, Dropped{Check: c.Name, Property: c.Property, Refused: k, Round: round})
				return true
			}
			return false
		})
		if len(dropped)-n != len(refused) {
			return nil, fmt.Errorf("%s: checks %v refuse changes, and share a name with others (names must be distinct)", tb.Name, slices.Sorted(maps.Keys(refused)))
		}
	}
	f.Checks = vetted.Checks
	return dropped, nil
}
