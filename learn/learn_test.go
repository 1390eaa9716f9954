package learn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/ingest"
	"github.com/augur-dev/augur/specs"
)

// The spec of the hand-built runs: a node holds x ≤ y (by the system,
// not the types), a list of items, and count, the list's length, which
// is always set by its definition.
const testSpec = `system: toy
types:
  Num: int64
variables:
  x: Num
  y: Num
  items: list<Num>
derived:
  count: {type: Num, expr: "len(items)"}
generate:
  max_nodes: 1
  max_literals: 2
  iterate: [items]
  constants: {max_distinct: 0}
filter: {hold_ratio: 0.95, every: 10}
report: {size: 10, min_support: 1}
`

// state is one node's state in a hand-built run.
type state struct {
	X     int64   `json:"x"`
	Y     int64   `json:"y"`
	Items []int64 `json:"items"`
}

// run describes a hand-built run of two nodes over n snapshots:
// at snapshot i, node a has x = i mod 3 and y = x + i mod 2 (so x ≤ y),
// node b the same shifted by one; items holds y at every itemsEvery-th
// snapshot and is empty otherwise; at the snapshots in broken, node a
// has y = x - 1.
type run struct {
	n, itemsEvery int
	broken        []int
}

// write writes r as a trace in dir and returns its path.
func (r run) write(t *testing.T, dir, name string) string {
	t.Helper()
	in := filepath.Join(dir, name+".jsonl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for i := range r.n {
		nodes := map[string]state{}
		for k, node := range []string{"a", "b"} {
			x := int64((i + k) % 3)
			st := state{X: x, Y: x + int64((i+k)%2), Items: []int64{}}
			if node == "a" && slices.Contains(r.broken, i) {
				st.Y = x - 1
			}
			if i%r.itemsEvery == 0 {
				st.Items = []int64{st.Y}
			}
			nodes[node] = st
		}
		if err := enc.Encode(map[string]any{"snapshot": i, "nodes": nodes}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, name+".trace")
	if _, err := ingest.CollectJSONL(t.Context(), out, []string{in}, ingest.Options{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// writeSpec writes testSpec in dir and returns its path.
func writeSpec(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "toy.yaml")
	if err := os.WriteFile(path, []byte(testSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	xy      = "forall n0 in nodes: n0.x <= n0.y"
	setX    = "forall n0 in nodes: set(n0.x)"
	setCnt  = "forall n0 in nodes: set(n0.count)"
	itemInY = "forall n0 in nodes: forall e0 in n0.items: e0 == n0.y"
)

// TestLearn checks the support, holding and minimization rules on runs
// whose properties are known by construction.
func TestLearn(t *testing.T) {
	dir := t.TempDir()
	spec := writeSpec(t, dir)
	good := run{n: 40, itemsEvery: 2}
	sparse := run{n: 40, itemsEvery: 8}                   // items in 5 of 40 snapshots: 12.5%
	rare := run{n: 40, itemsEvery: 20}                    // in 2 of 40: 5%
	broken := run{n: 40, itemsEvery: 2, broken: []int{7}} // x > y once, at 1 of 40
	for _, tt := range []struct {
		name   string
		runs   []run
		o      Options
		want   []string // learned, as an almost-invariant if almost
		almost []string
		absent []string
	}{{
		name:   "every run holds",
		runs:   []run{good, good},
		want:   []string{xy, setX, itemInY},
		absent: []string{setCnt},
	}, {
		name:   "violated in one run",
		runs:   []run{good, broken},
		want:   []string{setX, itemInY},
		absent: []string{xy},
	}, {
		name:   "violated in at most the almost share",
		runs:   []run{good, broken},
		o:      Options{Almost: 0.05},
		want:   []string{setX},
		almost: []string{xy},
	}, {
		name:   "violated beyond the almost share",
		runs:   []run{good, broken},
		o:      Options{Almost: 0.01},
		absent: []string{xy},
	}, {
		name: "non-vacuous in enough of each run",
		runs: []run{good, sparse},
		want: []string{itemInY},
	}, {
		name:   "vacuous in too much of one run",
		runs:   []run{good, rare},
		want:   []string{xy},
		absent: []string{itemInY},
	}, {
		name: "a lower least support",
		runs: []run{good, rare},
		o:    Options{MinSupport: 0.05},
		want: []string{itemInY},
	}} {
		t.Run(tt.name, func(t *testing.T) {
			var traces []string
			for i, r := range tt.runs {
				traces = append(traces, r.write(t, t.TempDir(), "run"+string(rune('0'+i))))
			}
			res, err := Learn(context.Background(), spec, traces, tt.o)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]*Check{}
			for _, c := range res.Checks {
				got[c.Text] = c
			}
			for _, text := range tt.want {
				if c := got[text]; c == nil || c.Almost {
					t.Errorf("%s: not learned as an invariant (got %v)", text, c)
				}
			}
			for _, text := range tt.almost {
				if c := got[text]; c == nil || !c.Almost || c.Violating <= 0 || c.Violating > tt.o.Almost {
					t.Errorf("%s: not learned as an almost-invariant (got %+v)", text, c)
				}
			}
			for _, text := range tt.absent {
				if got[text] != nil {
					t.Errorf("%s: learned", text)
				}
			}
			checkMinimal(t, res)
		})
	}
}

// checkMinimal checks that no learned disjunction has a literal that is
// itself a learned check of one literal under its quantifiers: it would
// be implied by it.
func checkMinimal(t *testing.T, res *Result) {
	t.Helper()
	kept := map[string]bool{}
	for _, c := range res.Checks {
		kept[c.Text] = true
	}
	for _, c := range res.Checks {
		p := c.Property
		if len(p.Matrix) < 2 {
			continue
		}
		for _, l := range p.Matrix {
			sub := grammar.Canonical(&grammar.Property{Quants: p.Quants, Matrix: []*grammar.Literal{l}})
			if kept[sub.Text()] {
				t.Errorf("%s is kept beside %s, which implies it", c.Text, sub.Text())
			}
		}
	}
}

// TestTrueBySpec checks which properties hold on every state the spec's
// types allow.
func TestTrueBySpec(t *testing.T) {
	spec, err := specs.Load(writeSpec(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		property string
		want     bool
	}{
		{setCnt, true}, // count is len(items), always defined
		{"forall n0 in nodes: set(n0.items)", true}, // a null container is empty
		{setX, false}, // x may be null
		{xy, false},   // a fact of the system, not of the types
		{itemInY, false},
		{"forall n0, n1 in nodes: n0.x == n1.x or n0.x != n1.x", true}, // == and != are null-safe
	} {
		p, err := grammar.Parse(tt.property)
		if err != nil {
			t.Fatal(err)
		}
		got, err := TrueBySpec(spec, nil, []*grammar.Property{p})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != tt.want {
			t.Errorf("TrueBySpec(%s) = %v, want %v", tt.property, got[0], tt.want)
		}
	}
}

// TestVet checks that a replayed good run refuses, with a check, only
// the changes that add failing bindings of it.
func TestVet(t *testing.T) {
	dir := t.TempDir()
	spec, err := specs.Load(writeSpec(t, dir))
	if err != nil {
		t.Fatal(err)
	}
	// Node a breaks x ≤ y at snapshot 7 and stays broken at 8: one
	// refused change, the one into the violation.
	tr := run{n: 20, itemsEvery: 2, broken: []int{7, 8}}.write(t, dir, "held")
	f := &checker.File{Checks: []checker.Check{{Name: "xy", Property: xy}, {Name: "set-x", Property: setX}}}
	v, err := Vet(context.Background(), spec, f, []string{tr})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Refused) != 1 || v.Refused[0].Check != "xy" || v.Refused[0].Refusals != 1 {
		t.Fatalf("refused %+v, want xy refusing 1 change", v.Refused)
	}
	if !strings.Contains(v.Refused[0].First, "snapshot 7") {
		t.Errorf("first refusal %q, want at snapshot 7", v.Refused[0].First)
	}
	// Both nodes change at every snapshot but the first.
	if v.Changes != 2*19 {
		t.Errorf("%d changes, want %d", v.Changes, 2*19)
	}
}

// TestLearnIterate checks that Options.Iterate adds iterators to the
// pool of a spec that names none, and that an unknown container is an
// error.
func TestLearnIterate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "toy.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(testSpec, "iterate: [items]", "iterate: []", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	good := run{n: 40, itemsEvery: 2}
	traces := []string{good.write(t, dir, "run0"), good.write(t, dir, "run1")}
	learned := func(o Options) map[string]bool {
		res, err := Learn(context.Background(), path, traces, o)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{}
		for _, c := range res.Checks {
			got[c.Text] = true
		}
		return got
	}
	if learned(Options{})[itemInY] {
		t.Errorf("%s learned without an iterator over items", itemInY)
	}
	if !learned(Options{Iterate: []string{"items"}})[itemInY] {
		t.Errorf("%s not learned with Iterate: [items]", itemInY)
	}
	if _, err := Learn(context.Background(), path, traces, Options{Iterate: []string{"x"}}); err == nil || !strings.Contains(err.Error(), "not a container") {
		t.Errorf("Iterate: [x]: got error %v, want one saying x is not a container", err)
	}
}
