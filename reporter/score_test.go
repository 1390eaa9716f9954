package reporter

import (
	"testing"
)

func TestScore(t *testing.T) {
	e := func(viol int64, tags map[string]int64) *Entry {
		return &Entry{ViolatingSnapshots: viol, ViolatingTags: tags}
	}
	rep := &Report{AlmostInvariants: []*Entry{
		e(10, map[string]int64{"steady": 9}),
		e(10, map[string]int64{"bug:a": 5}), // not most: not relevant
		e(10, map[string]int64{"bug:a": 6}), // relevant, rank 3
		e(4, map[string]int64{"bug:b": 3}),  // relevant to b, rank 4
		e(4, map[string]int64{"bug:a": 4}),  // rank 5, outside the top 4
	}}
	got := Score(rep, 4, []string{"bug:c"})
	want := []TagScore{{Tag: "bug:a", Relevant: 1, First: 3}, {Tag: "bug:b", Relevant: 1, First: 4}, {Tag: "bug:c"}}
	if len(got) != len(want) {
		t.Fatalf("Score = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("score %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
