package main

import (
	"testing"

	"github.com/augur-dev/augur/reporter"
)

func TestScoreReport(t *testing.T) {
	e := func(viol int64, tags map[string]int64) *reporter.Entry {
		return &reporter.Entry{ViolatingSnapshots: viol, ViolatingTags: tags}
	}
	rep := &reporter.Report{AlmostInvariants: []*reporter.Entry{
		e(10, map[string]int64{"steady": 9}),
		e(10, map[string]int64{"bug:a": 5}), // not most: not relevant
		e(10, map[string]int64{"bug:a": 6}), // relevant, rank 3
		e(4, map[string]int64{"bug:b": 3}),  // relevant to b, rank 4
		e(4, map[string]int64{"bug:a": 4}),  // rank 5, outside the top 4
	}}
	got := scoreReport(rep, 4, []string{"bug:c"})
	want := []tagScore{{Tag: "bug:a", Relevant: 1, First: 3}, {Tag: "bug:b", Relevant: 1, First: 4}, {Tag: "bug:c"}}
	if len(got) != len(want) {
		t.Fatalf("scoreReport = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("score %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
