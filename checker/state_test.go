package checker

import (
	"reflect"
	"testing"
	"time"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/specs"
)

type richEntry struct {
	Index int      `augur:"index"`
	Term  uint16   `augur:"term"`
	Tags  []string `augur:"tags"`
}

// richState has a field of every kind the collector exposes.
type richState struct {
	Term  uint8            `augur:"term"`
	Big   uint64           `augur:"big"`
	Load  float32          `augur:"load"`
	Up    bool             `augur:"up"`
	Peers []string         `augur:"peers"`
	Match map[int]int64    `augur:"match"`
	Lead  *string          `augur:"lead"`
	Since time.Time        `augur:"since"`
	Log   []richEntry      `augur:"log"`
	Hash  []byte           `augur:"hash"`
	Other chan int         `augur:"-"`
	Extra map[string]int64 `augur:"extra"` // in no check
}

const richSpec = `
types: {Name: string}
variables:
  term: int
  big: uint
  load: float
  up: bool
  peers: set<Name>
  match: map<string, int>
  lead: Name
  since: int
  log: "list<{index: int, term: int, tags: set<Name>}>"
  hash: string
  node: Name
derived:
  first: {type: Name, expr: "len(peers) == 0 ? '' : peers[0]"}
  fail: {type: int, expr: "log[9].index"}
`

// captureSink keeps the values of the last state written to it, as a
// trace would hold them.
type captureSink struct{ state map[string]any }

func (s *captureSink) Write(r *collector.Record) error {
	if r.Event == collector.EventState {
		s.state = map[string]any{}
		vals := r.State.Values()
		for i, col := range r.State.Schema() {
			s.state[col.Name] = vals[i]
		}
	}
	return nil
}

func (s *captureSink) Close() error { return nil }

// TestPrepareStruct checks that a struct and its values as a trace holds
// them are prepared into the same state, derived variables included.
func TestPrepareStruct(t *testing.T) {
	spec, err := specs.Parse("rich.yaml", []byte(richSpec))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compile(spec, &File{Checks: []Check{{Name: "d", Property: `forall n0 in nodes: n0.first != "zz"`}}})
	if err != nil {
		t.Fatal(err)
	}
	lead := "n2"
	st := &richState{
		Term: 200, Big: 1<<63 + 1, Load: 0.1, Up: true,
		Peers: []string{"b", "a", "b"},
		Match: map[int]int64{10: 1, 2: 2},
		Lead:  &lead,
		Since: time.Unix(3, 4),
		Log:   []richEntry{{Index: 1, Term: 1, Tags: []string{"y", "x"}}, {Index: 2, Term: 1}},
		Hash:  []byte{0xbe, 0xef},
	}
	sink := &captureSink{}
	n := collector.NewNode("n1", sink)
	if err := n.Expose(st); err != nil {
		t.Fatal(err)
	}
	fromStruct, err := c.Prepare("n1", st)
	if err != nil {
		t.Fatal(err)
	}
	fromTrace, err := c.Prepare("n1", sink.state)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"term": int64(200), "big": uint64(1<<63 + 1), "load": float64(float32(0.1)), "up": true,
		"peers": []any{"a", "b"},
		"match": map[string]any{"10": int64(1), "2": int64(2)},
		"lead":  "n2", "since": int64(3_000_000_004),
		"log": []any{
			map[string]any{"index": int64(1), "term": int64(1), "tags": []any{"x", "y"}},
			map[string]any{"index": int64(2), "term": int64(1), "tags": []any{}},
		},
		"hash": "beef", "node": "n1",
		"first": "b", // from the set as given, as the evaluator computes it
		"fail":  nil,
	}
	for _, prepared := range []*State{fromStruct, fromTrace} {
		got := map[string]any{}
		for i := range prepared.vals {
			got[c.varName(i)] = toAny(&prepared.vals[i])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("prepared\n%v\nwant\n%v", got, want)
		}
	}
}

func (c *Checker) varName(i int) string {
	if i < len(c.spec.Vars) {
		return c.spec.Vars[i].Name
	}
	return c.spec.Derived[i-len(c.spec.Vars)].Name
}
