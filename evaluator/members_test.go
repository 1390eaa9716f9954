package evaluator

import (
	"context"
	"runtime"
	"testing"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
	"github.com/augur-dev/augur/trace/tracetest"
)

// hugeListSpec declares x and nums, a list of x's type; the properties of
// hugeListProps need the list's members (in, subset), its id (==) and its
// length.
const hugeListSpec = `system: huge
types: {Num: int64}
variables:
  x: Num
  nums: list<Num>
`

var hugeListProps = []string{
	"forall n0, n1 in nodes: n0.x in n1.nums",
	"forall n0, n1 in nodes: n0.nums subset n1.nums",
	"forall n0, n1 in nodes: n0.nums == n1.nums",
	"forall n0 in nodes: not empty(n0.nums)",
}

// hugeList returns n int64, unsorted (their members are a sorted copy),
// none boxed without an allocation, and each list of another seed
// disjoint from this one.
func hugeList(n, seed int) []int64 {
	l := make([]int64, n)
	for i := range l {
		l[i] = int64(i*7919%n+seed*n) - 1<<40
	}
	return l
}

// hugeListTrace writes a trace of the given snapshots of two nodes: n1
// holds lists[s] at snapshot s, n2 a list of two of its elements.
func hugeListTrace(t *testing.T, lists [][]int64) (*Program, *trace.Trace) {
	t.Helper()
	spec, err := specs.Parse("huge.yaml", []byte(hugeListSpec))
	if err != nil {
		t.Fatal(err)
	}
	schema := trace.Schema{{Name: "x", Type: arrow.PrimitiveTypes.Int64}, {Name: "nums", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64)}}
	b := tracetest.New(t, schema, trace.Options{})
	for s, big := range lists {
		rows := []uint32{
			b.State("n1", uint64(s), big[7], big),
			b.State("n2", uint64(s), big[3], []int64{big[3], big[7]}),
		}
		b.Snapshot(trace.Snapshot{ID: uint64(s), TS: uint64(s), Members: rows})
	}
	return compileSources(t, spec, hugeListProps...), b.Open()
}

// TestHugeListMembersShared runs the fast engine with one and with four
// workers over a snapshot of a list of 2^20 int64 (8 MiB). The
// engines share its members, sorted once: four workers allocate about
// what one does, the record batch and one sorted copy (each engine
// sorted its own copy before, 8 MiB more a worker).
func TestHugeListMembersShared(t *testing.T) {
	const n = 1 << 20
	big := hugeList(n, 0)
	prog, tr := hugeListTrace(t, [][]int64{big})
	for _, workers := range []int{1, 4} {
		var res *Result
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := Run(context.Background(), tr, prog, Options{Kind: Fast, Workers: workers})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		got := after.TotalAlloc - before.TotalAlloc
		if limit := uint64(2*8*n + 4<<20); got > limit {
			t.Errorf("%d workers: evaluating a list of %d MiB allocated %d KiB, more than %d KiB", workers, 8*n>>20, got>>10, limit>>10)
		}
		// Each x is in the other's list, n2's list is a subset of
		// n1's, not equal to it.
		for i, want := range []int64{2, 1, 0, 2} {
			if st := res.Stats[i]; st.Bindings-st.Violations != want {
				t.Errorf("%d workers: %s holds at %d bindings, want %d", workers, prog.Props[i].Text, st.Bindings-st.Violations, want)
			}
		}
	}
}

// TestHugeListMembersFreed evaluates, one by one, snapshots each with its
// own list of 2^16 int64, and checks that the members of the lists of the
// rows that left the snapshots are freed: the interner kept every one
// until the end of the chunk (a run over 10 snapshots each with its own
// 2M-integer list held 10 sorted copies, 160 MB), and the rows kept for
// the witnesses of a batch kept theirs for 128 snapshots.
func TestHugeListMembersFreed(t *testing.T) {
	const n, snaps = 1 << 16, 8
	var lists [][]int64
	for s := range snaps {
		lists = append(lists, hugeList(n, s))
	}
	prog, tr := hugeListTrace(t, lists)
	e, err := newFast(tr, prog, newPlan(prog), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.close()
	k := len(prog.Props)
	tk := &task{ctx: context.Background(), active: make([]bool, k), acc: make([]Stats, k), hi: k, wits: 1, moments: MaxMoments}
	for i := range tk.active {
		tk.active[i] = true
	}
	e.start(tk)
	var sets []weak.Pointer[sortedList] // the members of n1's list at each snapshot
	sr := tr.Snapshots()
	defer sr.Close()
	for sr.Next() {
		if err := e.eval(sr.Snapshot(), nil); err != nil {
			t.Fatal(err)
		}
		var set *sortedList
		for _, c := range e.rows[0].cells {
			if c.set != nil && len(c.set.ints) == n {
				set = c.set
			}
		}
		if set == nil {
			t.Fatalf("snapshot %d: no cell of n1 holds the members of its list", len(sets))
		}
		sets = append(sets, weak.Make(set))
	}
	if err := sr.Err(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	live := 0
	for _, s := range sets {
		if s.Value() != nil {
			live++
		}
	}
	if live > 1 {
		t.Errorf("after %d snapshots each with its own list, the members of %d lists are alive, want those of the current one", snaps, live)
	}
	e.finish()
}
