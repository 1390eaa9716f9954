package planted

import (
	"fmt"
	"slices"
	"time"

	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/reporter"
)

// Result is how a report of a system did against the properties planted
// in it.
type Result struct {
	Seed      int64           `json:"seed"`
	Family    Family          `json:"family"`
	Nodes     int             `json:"nodes"`
	Snapshots int             `json:"snapshots"`
	Control   bool            `json:"control"`
	K         int             `json:"k"` // planted + 2: the ranks that count for recall
	Planted   []PlantedResult `json:"planted"`
	// Reported is the number of almost-invariants in the report, and
	// Steady how many of them fail at some snapshot in steady state.
	Reported int `json:"reported"`
	Steady   int `json:"steady"`
	// Noise counts the entries that are not planted properties and rank
	// above the last planted one (all of them when a planted property is
	// not reported).
	Noise   int           `json:"noise"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// PlantedResult is where a planted property stands in the report.
type PlantedResult struct {
	Planted
	// Rank is the rank of the entry whose property is the planted one
	// (its text or one of its Alts) up to the naming of variables and the
	// order of literals, 0 when there is none.
	Rank int `json:"rank"`
	// Under is the rank of an entry that lists the planted property among
	// its equivalents or the other properties of its anomaly, 0 when none
	// does: a simpler or luckier property represents it.
	Under int `json:"under,omitempty"`
	// Broken is its rank among the baseline's invariants the run breaks,
	// the report's section of its own under a baseline (DESIGN §7), 0
	// when it is not listed there.
	Broken int `json:"broken,omitempty"`
	// Apart, with good runs, is how often it fails here and there.
	Apart *Apart `json:"apart,omitempty"`
}

// Found reports whether the property is represented within the top k of
// the almost-invariants or of the broken invariants: a user reads both,
// as augur bench testbeds counts a run visible by either.
func (r *PlantedResult) Found(k int) bool {
	return r.Rank > 0 && r.Rank <= k || r.Broken > 0 && r.Broken <= k
}

// Recalled reports whether every planted property is within the top K.
func (sc *Result) Recalled() bool {
	for i := range sc.Planted {
		if !sc.Planted[i].Found(sc.K) {
			return false
		}
	}
	return true
}

// Score scores rep, a report of sys's trace under its spec.
func Score(rep *reporter.Report, sys *System) (*Result, error) {
	sc := &Result{
		Seed: sys.Seed, Family: sys.Family, Nodes: sys.Nodes, Snapshots: sys.Snapshots, Control: sys.Control,
		K: len(sys.Planted) + 2, Reported: len(rep.AlmostInvariants),
	}
	// want maps the identity of each text of a planted property to its
	// index.
	want := map[string]int{}
	for i, p := range sys.Planted {
		for _, text := range slices.Concat([]string{p.Text}, p.Alts) {
			id, err := identity(text)
			if err != nil {
				return nil, fmt.Errorf("planted property %s: %w", p.Name, err)
			}
			want[id] = i
		}
		sc.Planted = append(sc.Planted, PlantedResult{Planted: p})
	}
	last := 0 // rank of the last planted property found
	for _, e := range rep.AlmostInvariants {
		if e.ViolatingTags[SteadyTag] > 0 {
			sc.Steady++
		}
		id, err := identity(e.Text)
		if err != nil {
			return nil, fmt.Errorf("report entry %d: %w", e.Rank, err)
		}
		if i, ok := want[id]; ok && sc.Planted[i].Rank == 0 {
			sc.Planted[i].Rank = e.Rank
			last = max(last, e.Rank)
			continue
		}
		for _, other := range slices.Concat(e.Equivalents, e.AlsoFailsHere) {
			oid, err := identity(other)
			if err != nil {
				return nil, fmt.Errorf("report entry %d: %w", e.Rank, err)
			}
			if i, ok := want[oid]; ok && sc.Planted[i].Under == 0 {
				sc.Planted[i].Under = e.Rank
			}
		}
	}
	for i := range sc.Planted {
		if sc.Planted[i].Rank > 0 {
			sc.Planted[i].Under = 0
		}
	}
	for _, e := range rep.BrokenInvariants {
		id, err := identity(e.Text)
		if err != nil {
			return nil, fmt.Errorf("broken invariant %d: %w", e.Rank, err)
		}
		if i, ok := want[id]; ok && sc.Planted[i].Broken == 0 {
			sc.Planted[i].Broken = e.Rank
		}
	}
	missing := slices.ContainsFunc(sc.Planted, func(r PlantedResult) bool { return r.Rank == 0 })
	for _, e := range rep.AlmostInvariants {
		if (missing || e.Rank < last) && !slices.ContainsFunc(sc.Planted, func(r PlantedResult) bool { return r.Rank == e.Rank }) {
			sc.Noise++
		}
	}
	if sys.Control {
		sc.Noise = sc.Reported
	}
	return sc, nil
}

// identity returns the text of the property src up to the naming of its
// variables and the order of its literals (grammar's SymmetricText).
func identity(src string) (string, error) {
	p, err := grammar.Parse(src)
	if err != nil {
		return "", err
	}
	return p.SymmetricText(), nil
}
