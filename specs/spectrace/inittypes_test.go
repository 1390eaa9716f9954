package spectrace

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// span returns the integers lo to hi, every step-th.
func span(lo, hi, step int64) []int64 {
	var xs []int64
	for x := lo; x <= hi; x += step {
		xs = append(xs, x)
	}
	return xs
}

// leafOf returns an integer position at path holding xs.
func leafOf(path string, kind arrow.Type, xs []int64) *intLeaf {
	name := path[strings.LastIndexAny(path, ".]")+1:]
	if name == "" { // an element: the name of what holds it
		name = strings.TrimSuffix(path, "[]")
	}
	l := &intLeaf{path: path, name: name, kind: kind, vals: map[uint64]struct{}{}}
	for _, x := range xs {
		l.add(uint64(x), float64(x))
	}
	return l
}

func TestIntTypes(t *testing.T) {
	i64, u64 := arrow.INT64, arrow.UINT64
	tests := []struct {
		name    string
		leaves  []*intLeaf
		names   map[string]bool     // the trace's nodes
		structs map[string][]string // the fields of each struct position
		want    []string            // "Type: member, member", in order of first member
	}{{
		name: "indices share a type, a term stays apart",
		leaves: []*intLeaf{
			leafOf("term", i64, span(1, 23, 1)),
			leafOf("commit", i64, span(1, 188, 1)),
			leafOf("applied", i64, span(1, 188, 1)),
			leafOf("log[].index", i64, span(6, 189, 1)),
		},
		want: []string{"Term: term", "Index: commit, applied, log[].index"},
	}, {
		name: "a subset of a term's values is a term",
		leaves: []*intLeaf{
			leafOf("term", i64, span(0, 22, 1)),
			leafOf("log[].term", i64, span(1, 21, 2)),
		},
		want: []string{"Term: term, log[].term"},
	}, {
		name: "the rule is scale-free",
		leaves: []*intLeaf{
			leafOf("epoch", i64, span(8000, 13000, 1000)),
			leafOf("commit_index", i64, span(0, 43000, 1000)),
			leafOf("executed", i64, span(0, 43000, 1000)),
		},
		want: []string{"Epoch: epoch", "Executed: commit_index, executed"},
	}, {
		name: "ranges that overlap without a common value",
		leaves: []*intLeaf{
			leafOf("even", i64, span(0, 100, 2)),
			leafOf("odd", i64, span(1, 101, 2)),
		},
		want: []string{"Even: even", "Odd: odd"},
	}, {
		name: "zero, for none, does not stretch a range",
		leaves: []*intLeaf{
			leafOf("epoch", i64, span(8, 15, 1)),
			leafOf("granted", i64, append([]int64{0}, span(8, 16, 1)...)),
			leafOf("commit", i64, span(0, 80, 1)),
		},
		want: []string{"Epoch: epoch, granted", "Commit: commit"},
	}, {
		name: "one value compares with nothing",
		leaves: []*intLeaf{
			leafOf("first_index", i64, []int64{2}),
			leafOf("base", i64, []int64{2}),
		},
		want: []string{"FirstIndex: first_index", "Base: base"},
	}, {
		name: "physical types apart",
		leaves: []*intLeaf{
			leafOf("a", i64, span(0, 9, 1)),
			leafOf("b", u64, span(0, 9, 1)),
		},
		want: []string{"A: a", "B: b"},
	}, {
		name: "joined whatever the order of their ranges",
		leaves: []*intLeaf{
			leafOf("late", i64, span(50, 150, 1)),
			leafOf("other", u64, span(40, 140, 1)),
			leafOf("early", i64, span(40, 140, 1)),
		},
		want: []string{"Late: late, early", "Other: other"},
	}, {
		name: "names are made unique",
		leaves: []*intLeaf{
			leafOf("node_id", i64, span(0, 9, 1)),
			leafOf("nodeID", i64, span(100, 900, 1)),
		},
		want: []string{"NodeId: node_id", "NodeID2: nodeID"},
	}, {
		// The shortest name of a group of per-object fields was an
		// object's (x), and the next group's X2 (a blind user).
		name: "named after a name most share, else their column",
		leaves: []*intLeaf{
			leafOf("cache.x.ver", i64, span(1, 90, 1)),
			leafOf("cache.y.ver", i64, span(1, 90, 1)),
			leafOf("home.x", i64, span(1, 90, 1)),
			leafOf("queued.x", i64, span(1000, 1009, 1)),
			leafOf("queued.y", i64, span(1000, 1009, 1)),
		},
		want: []string{"Ver: cache.x.ver, cache.y.ver, home.x", "Queued: queued.x, queued.y"},
	}, {
		// The shortest name was log_start (a blind user's LogStart).
		name: "named after the word most names share",
		leaves: []*intLeaf{
			leafOf("commit_index", i64, span(1, 90, 1)),
			leafOf("last_applied", i64, span(1, 90, 1)),
			leafOf("snapshot_index", i64, span(1, 90, 1)),
			leafOf("log_start", i64, span(1, 90, 1)),
			leafOf("last_index", i64, span(1, 90, 1)),
			leafOf("lastTerm", i64, span(1000, 1009, 1)),
			leafOf("currentTerm", i64, span(1000, 1009, 1)),
		},
		want: []string{"Index: commit_index, last_applied, snapshot_index, log_start, last_index", "Term: lastTerm, currentTerm"},
	}, {
		name: "the shortest of the words most share",
		leaves: []*intLeaf{
			leafOf("commit", i64, span(1, 90, 1)),
			leafOf("applied", i64, span(1, 90, 1)),
			leafOf("last_index", i64, span(1, 90, 1)),
			leafOf("log[].index", i64, span(1, 90, 1)),
			leafOf("kv_applied", i64, span(1, 90, 1)),
		},
		want: []string{"Index: commit, applied, last_index, log[].index, kv_applied"},
	}, {
		// The fields of a struct named after the trace's nodes (a version
		// vector) each get a type of their own, where the range rule would
		// join them with each other and with any integer over the same
		// values; a struct with another field, or a single one, is typed
		// by the rule.
		name:  "a node's entry of a node-keyed struct",
		names: map[string]bool{"r1": true, "r2": true, "r3": true},
		structs: map[string][]string{
			"vv":       {"r1", "r2", "r3"},
			"state.vv": {"r1", "r2"},
			"mix":      {"r1", "r2", "total"},
			"only":     {"r1"},
		},
		leaves: []*intLeaf{
			leafOf("vv.r1", i64, span(0, 50, 1)),
			leafOf("vv.r2", i64, span(0, 48, 1)),
			leafOf("vv.r3", i64, span(1, 50, 1)),
			leafOf("state.vv.r1", i64, span(1, 50, 1)),
			leafOf("counter", i64, span(1, 50, 1)),
			leafOf("mix.r1", i64, span(1, 49, 1)),
			leafOf("mix.total", i64, span(1, 1000, 10)),
			leafOf("only.r1", i64, span(2, 50, 1)),
		},
		want: []string{"VvR1: vv.r1", "VvR2: vv.r2", "VvR3: vv.r3", "StateVvR1: state.vv.r1", "R1: counter, mix.r1, only.r1", "Total: mix.total"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &leafScan{leaves: tt.leaves, names: tt.names, structs: tt.structs}
			types, names := s.types(map[string]bool{"NodeID": true})
			var got []string
			for _, ty := range types {
				got = append(got, ty.name+": "+strings.Join(ty.leaves, ", "))
				for _, p := range ty.leaves {
					if names[p] != ty.name {
						t.Errorf("names[%s] = %s, want %s", p, names[p], ty.name)
					}
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("types =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// strLeafOf returns a string position at path holding vs, and names the
// nodes in names (the trace's).
func strLeafOf(path string, names map[string]bool, vs ...string) *strLeaf {
	name := path[strings.LastIndexAny(path, ".]")+1:]
	if name == "" {
		name = strings.TrimSuffix(path, "[]")
	}
	l := &strLeaf{path: path, name: name, vals: map[uint64]struct{}{}, other: map[string]struct{}{}}
	for _, v := range vs {
		l.add(v, names)
	}
	return l
}

// keysOf marks l as the keys of a map.
func keysOf(l *strLeaf) *strLeaf {
	l.key = true
	return l
}

func TestStrTypes(t *testing.T) {
	tests := []struct {
		name   string
		leaves []*strLeaf
		plain  func(path string) bool // nil: every position
		taken  []string               // type names taken, besides NodeID
		want   []string               // "Type: member, member", in order of first member
	}{{
		// A blind user's ZooKeeper-like service: clients' sessions and
		// lock nodes, servers' lists of both (typed by hand before).
		name: "values in common join, others stay apart",
		leaves: []*strLeaf{
			strLeafOf("locks[]", nil, "lock-3", "lock-4", "lock-6"),
			strLeafOf("myLock", nil, "lock-4", "lock-7"),
			strLeafOf("session", nil, "c1#1", "c3#2"),
			strLeafOf("sessions[]", nil, "c3#2", "c5#1"),
		},
		want: []string{"Locks: locks[], myLock", "Session: session, sessions[]"},
	}, {
		name: "joined through a third",
		leaves: []*strLeaf{
			strLeafOf("a", nil, "x"),
			strLeafOf("b", nil, "y"),
			strLeafOf("c", nil, "x", "y"),
			strLeafOf("d", nil, "z"),
		},
		want: []string{"A: a, b, c", "D: d"},
	}, {
		name: "the empty string is no value in common",
		leaves: []*strLeaf{
			strLeafOf("key", nil, "", "k1"),
			strLeafOf("owner_tx", nil, "", "t9"),
		},
		want: []string{"Key: key", "OwnerTx: owner_tx"},
	}, {
		name: "one group separates nothing: no type",
		leaves: []*strLeaf{
			strLeafOf("announced[]", nil, "i1", "i2"),
			strLeafOf("rib[]", nil, "i2", "i3"),
			strLeafOf("never", nil),
		},
	}, {
		name: "node names and enums are typed apart already",
		leaves: []*strLeaf{
			strLeafOf("leader", nil, "n1"),
			strLeafOf("role", nil, "leader"),
			strLeafOf("tx", nil, "n1"),
			strLeafOf("key", nil, "k"),
		},
		plain: func(path string) bool { return path != "leader" && path != "role" },
		want:  []string{"Tx: tx", "Key: key"},
	}, {
		// A spec types a map's keys string: what shares their values
		// stays string, or x in m over the map would not be generated.
		name: "a map's keys keep their group string",
		leaves: []*strLeaf{
			strLeafOf("myLock", nil, "lock-1", "lock-2"),
			keysOf(strLeafOf("holders{}", nil, "lock-2", "lock-3")),
			strLeafOf("session", nil, "c1#1"),
			strLeafOf("note", nil, "x"),
		},
		want: []string{"Session: session", "Note: note"},
	}, {
		// Keys that name nodes are no plain strings, and still keep what
		// shares their values string.
		name: "a map's keys naming nodes too",
		leaves: []*strLeaf{
			keysOf(strLeafOf("acks{}", nil, "n1", "n2")),
			strLeafOf("target", nil, "n1", "none"),
			strLeafOf("note", nil, "x"),
			strLeafOf("key", nil, "k"),
		},
		plain: func(path string) bool { return path != "acks{}" },
		want:  []string{"Note: note", "Key: key"},
	}, {
		name: "names apart from those taken",
		leaves: []*strLeaf{
			strLeafOf("term", nil, "a"),
			strLeafOf("key", nil, "b"),
			strLeafOf("key[]", nil, "c"),
		},
		taken: []string{"Term", "Key2"},
		want:  []string{"Term2: term", "Key: key", "Key3: key[]"},
	}, {
		name: "named after a word most share",
		leaves: []*strLeaf{
			strLeafOf("lease_holder", nil, "c1"),
			strLeafOf("next_holder", nil, "c1"),
			strLeafOf("holder_of[]", nil, "c2", "c1"),
			strLeafOf("key", nil, "k"),
		},
		want: []string{"Holder: lease_holder, next_holder, holder_of[]", "Key: key"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plain := tt.plain
			if plain == nil {
				plain = func(string) bool { return true }
			}
			s := &leafScan{strs: tt.leaves}
			taken := map[string]bool{"NodeID": true}
			for _, n := range tt.taken {
				taken[n] = true
			}
			types, names := s.strTypes(plain, taken)
			var got []string
			for _, ty := range types {
				if ty.expr != "string" {
					t.Errorf("type %s is %s, want string", ty.name, ty.expr)
				}
				got = append(got, ty.name+": "+strings.Join(ty.leaves, ", "))
				for _, p := range ty.leaves {
					if names[p] != ty.name {
						t.Errorf("names[%s] = %s, want %s", p, names[p], ty.name)
					}
				}
			}
			if len(names) != len(slices.Concat(typeLeaves(types)...)) {
				t.Errorf("names %v: not the types' positions", names)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("types =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// typeLeaves returns the positions of each type.
func typeLeaves(ts []semType) [][]string {
	var out [][]string
	for _, t := range ts {
		out = append(out, t.leaves)
	}
	return out
}

func TestNameWords(t *testing.T) {
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"commit_index", []string{"commit", "index"}},
		{"lastIndex", []string{"last", "index"}},
		{"ver_a", []string{"ver"}},
		{"x", nil},
		{"HTTPPort", []string{"httpport"}},
		{"v2Count", []string{"v2", "count"}},
		{"__", nil},
	} {
		if got := nameWords(tt.name); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("nameWords(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestOverlap(t *testing.T) {
	for _, tt := range []struct {
		a, b   []int64
		want   float64
		common bool
	}{
		{span(1, 10, 1), span(1, 10, 1), 1, true},
		{span(1, 10, 1), span(6, 15, 1), 5.0 / 15, true},
		{span(1, 10, 1), span(11, 20, 1), 0, false},
		{span(2, 10, 2), span(1, 11, 2), 9.0 / 11, false},
		// Zero is no point of a range, nor a value in common.
		{append([]int64{0}, span(8, 16, 1)...), span(8, 15, 1), 8.0 / 9, true},
		{span(0, 10, 2), span(0, 10, 3), 7.0 / 9, true},
		{[]int64{0, 5}, []int64{0, 7}, 0, false},
		{[]int64{0}, []int64{0}, 0, false},
	} {
		r, common := overlap(leafOf("a", arrow.INT64, tt.a), leafOf("b", arrow.INT64, tt.b))
		if r != tt.want || common != tt.common {
			t.Errorf("overlap(%v, %v) = %v, %v; want %v, %v", tt.a, tt.b, r, common, tt.want, tt.common)
		}
	}
}

// Grouping and naming take time about linear in the positions, whatever
// their values: a state of 100,000 integer variables took spec init
// 106 s when every pair of positions was compared and every group
// looked for its members among all positions, and as many positions of
// one name took a name each after trying all those before.
func TestIntTypesMany(t *testing.T) {
	const n = 100_000
	tests := []struct {
		name string
		leaf func(i int) *intLeaf
		last string // the type of the last position
	}{
		{"one value each", func(i int) *intLeaf { return leafOf(fmt.Sprintf("v%d", i), arrow.INT64, []int64{int64(i)}) }, fmt.Sprintf("V%d", n-1)},
		{"disjoint ranges", func(i int) *intLeaf {
			return leafOf(fmt.Sprintf("v%d", i), arrow.INT64, []int64{int64(10 * i), int64(10*i + 1)})
		}, fmt.Sprintf("V%d", n-1)},
		{"one name", func(i int) *intLeaf {
			return leafOf(fmt.Sprintf("s%d.index", i), arrow.INT64, []int64{int64(10 * i)})
		}, fmt.Sprintf("Index%d", n)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &leafScan{}
			for i := range n {
				s.leaves = append(s.leaves, tt.leaf(i))
			}
			start := time.Now()
			types, _ := s.types(map[string]bool{})
			took := time.Since(start)
			if len(types) != n || types[n-1].name != tt.last {
				t.Fatalf("%d types, the last %s, want %d, the last %s", len(types), types[len(types)-1].name, n, tt.last)
			}
			// About 0.1 s; 10 s leaves room for a loaded machine.
			if took > 10*time.Second {
				t.Errorf("grouping %d positions took %v", n, took)
			}
		})
	}
}
