package pipeline

import (
	"reflect"
	"testing"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/generator"
)

// TestCapWarnings: a class that max_per_class cut is a warning with the
// counts kept and dropped; a class kept whole is none.
func TestCapWarnings(t *testing.T) {
	pool := &generator.Pool{Classes: []generator.ClassCount{
		{Class: generator.Class{Nodes: 1, Literals: 2}, Generated: 900, Kept: 900},
		{Class: generator.Class{Nodes: 2, Literals: 2}, Generated: 60000, Kept: 50000},
		{Class: generator.Class{Nodes: 2, Iters: 1, Literals: 3}, Generated: 545054, Kept: 50000, Estimated: true},
	}}
	want := []diag.Warning{
		{Code: "class-capped", Msg: "max_per_class kept 50000 of 60000 properties of class nodes=2 iters=0 literals=2; 10000 were not evaluated (raise max_per_class to evaluate them, or lower max_literals)"},
		{Code: "class-capped", Msg: "max_per_class kept 50000 of about 545054 properties of class nodes=2 iters=1 literals=3; about 495054 were not evaluated (raise max_per_class to evaluate them, or lower max_literals)"},
	}
	if got := capWarnings(pool); !reflect.DeepEqual(got, want) {
		t.Errorf("capWarnings =\n%v\nwant\n%v", got, want)
	}
	if got := capWarnings(&generator.Pool{Classes: pool.Classes[:1]}); got != nil {
		t.Errorf("capWarnings of a pool kept whole = %v, want none", got)
	}
}
