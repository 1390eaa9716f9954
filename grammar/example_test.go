package grammar_test

import (
	"fmt"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/grammar"
)

func ExampleParse() {
	p, err := grammar.Parse("∀ x, y ∈ nodes: ∀ e ∈ y.log: e.index > x.commit ∨ e ∈ x.log")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p)
	fmt.Println(p.Text())
	fmt.Println(p.ID())
	// Output:
	// forall x, y in nodes: forall e in y.log: x.commit < e.index or e in x.log
	// forall n0, n1 in nodes: forall e0 in n1.log: e0 in n0.log or n0.commit < e0.index
	// 607a046faad7
}

func ExampleParseAt() {
	// The property sits at line 7, column 12 of a YAML file.
	src := "forall x in nodes:\n  x.term < y.term"
	_, err := grammar.ParseAt(src, diag.Position{Filename: "checks.yaml", Line: 7, Column: 12})
	fmt.Println(err)
	// Output:
	// checks.yaml:8:12: unbound variable y
}

func ExampleProperty_Errorf() {
	p, err := grammar.ParseAt("forall x in nodes: x.trem > 0", diag.Position{Filename: "checks.yaml", Line: 3, Column: 9})
	if err != nil {
		fmt.Println(err)
		return
	}
	// A later check finds an unknown field.
	for path := range grammar.Paths(p) {
		if len(path.Fields) > 0 && path.Fields[0] == "trem" {
			fmt.Println(p.Errorf(path.Pos(), "unknown field", "node has no field %s", path.Fields[0]))
		}
	}
	// Output:
	// checks.yaml:3:28: node has no field trem
}
