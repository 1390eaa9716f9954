package planted

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/augur-dev/augur/trace"
)

// Family is a kind of generated system. Held-out seeds of one generator
// test the seed, not the generalisation: the benchmark draws systems of
// several families, whose state shapes differ.
type Family uint8

// The families of generated systems.
const (
	FamilyInvalid Family = iota
	// ReplicatedLog is a leader-based replicated log (the simulator of
	// sim.go): terms, indices, a log of entries, membership, learners.
	ReplicatedLog
	// PrimaryBackup is a primary/backup store with leases, epochs and a
	// two-valued role: implication-shaped properties whose guard
	// literal is usually true (n0.role != "primary" or …).
	PrimaryBackup
	// Mesh is set propagation over a mesh or gossip membership:
	// containers and iterators, subset and membership literals.
	Mesh
	// Overlay is a ring or tree overlay: ids, parents, successors.
	Overlay
	numFamilies
)

var familyText = [numFamilies]string{"invalid", "log", "pb", "mesh", "overlay"}

// String returns the family's short label: "log", "pb", "mesh" or
// "overlay".
func (f Family) String() string {
	if f >= numFamilies {
		return fmt.Sprintf("Family(%d)", f)
	}
	return familyText[f]
}

// MarshalText returns the family's label, as String does.
func (f Family) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// Families lists the valid families, in the order in which seeds take
// them: seed s is of family Families()[s mod 4], so any four
// consecutive seeds cover every family.
func Families() []Family { return []Family{ReplicatedLog, PrimaryBackup, Mesh, Overlay} }

// ParseFamily returns the family labelled s.
func ParseFamily(s string) (Family, error) {
	for _, f := range Families() {
		if f.String() == s {
			return f, nil
		}
	}
	var labels []string
	for _, f := range Families() {
		labels = append(labels, f.String())
	}
	return FamilyInvalid, fmt.Errorf("planted: unknown family %q (want one of %s)", s, strings.Join(labels, ", "))
}

// familyOf returns the family of seed.
func familyOf(seed int64) Family {
	fs := Families()
	return fs[int((seed%int64(len(fs))+int64(len(fs)))%int64(len(fs)))]
}

// A familyGen generates a system of one family from rng, with the given
// seed and options (defaults applied), or returns nil when this attempt
// cannot make one: Generate tries again with another stream. The system
// it returns is complete: Family, Name, Nodes, Snapshots, Steady, Spec,
// Control, Planted and Variables set, and run holding the trace.
type familyGen func(seed int64, rng *rand.Rand, o Options) (*System, error)

// A run is the trace of a generated system of a family other than the
// replicated log, ready to write: node states, each stored once and
// reused by the snapshots until the node changes, and the snapshots.
type run struct {
	schema trace.Schema // the state variables, in spec order
	states []runState
	snaps  []runSnap // one per snapshot, in order; snapshot i has ID i+1
}

// A runState is one node's state: its values in schema order, in the
// trace representation (int64, string, bool, []any, map[string]any).
type runState struct {
	node string
	ts   uint64 // the step at which the node took this state, from 1
	vals []any
}

// A runSnap is one snapshot: the states of its live nodes (indices into
// run.states, any order) and its tags (SteadyTag, BugTag(name)).
type runSnap struct {
	members []uint32
	tags    []string
}

// writeRun writes r to dir, which must not exist.
func writeRun(dir, system string, r *run) error {
	w, err := trace.Create(dir, r.schema, trace.Options{System: system, CreatedBy: "augur bench quality"})
	if err != nil {
		return err
	}
	rows := make([]uint32, len(r.states))
	for i, st := range r.states {
		if rows[i], err = w.AddState(st.node, st.ts, st.vals); err != nil {
			w.Abort()
			return err
		}
	}
	members := []uint32{}
	for s, sn := range r.snaps {
		members = members[:0]
		for _, m := range sn.members {
			members = append(members, rows[m])
		}
		if err := w.AddSnapshot(trace.Snapshot{ID: snapshotID(s), TS: snapshotID(s), Members: members, Tags: sn.tags}); err != nil {
			w.Abort()
			return err
		}
	}
	return w.Close()
}

// How planted bugs strike: 1 to MaxStrikes separate episodes, each of 1
// to MaxEpisode consecutive snapshots, all of them together at most
// MaxBrokenShare of the run, and at least minGap snapshots apart.
const (
	MaxStrikes     = 20
	MaxEpisode     = 50
	MaxBrokenShare = 0.03
	minGap         = 10
)

// A strike is one episode of a planted bug: the steps from through to-1.
type strike struct{ from, to int }

// drawStrikes draws how a planted bug strikes a run of steps: how many
// times (one time in three once, otherwise 2 to MaxStrikes), how long
// each episode lasts (half the bugs 1 to 5 steps, the others up to
// MaxEpisode), and where, on steps where ok holds for every step of the
// episode. It returns the strikes in order, fewer than drawn when there
// is no room for all; nil when not one fits.
func drawStrikes(rng *rand.Rand, steps int, ok func(step int) bool) []strike {
	n := 1
	if rng.IntN(3) > 0 {
		n = 2 + rng.IntN(MaxStrikes-1)
	}
	longest := 5
	if rng.IntN(2) == 0 {
		longest = MaxEpisode
	}
	budget := max(1, int(MaxBrokenShare*float64(steps)))
	var out []strike
	taken := func(from, to int) bool {
		for _, s := range out {
			if from < s.to+minGap && s.from < to+minGap {
				return true
			}
		}
		return false
	}
	for range n {
		length := 1 + rng.IntN(longest)
		if length > budget {
			length = budget
		}
		if length == 0 {
			break
		}
		for range maxPlacementAttempts {
			from := rng.IntN(steps)
			to := from + length
			if to > steps || taken(from, to) {
				continue
			}
			fits := true
			for s := from; s < to && fits; s++ {
				fits = ok(s)
			}
			if fits {
				out = append(out, strike{from, to})
				budget -= length
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b strike) int { return a.from - b.from })
	return out
}
