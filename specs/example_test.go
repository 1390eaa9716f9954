package specs_test

import (
	"fmt"

	"github.com/augur-dev/augur/specs"
)

func ExampleParse() {
	src := `
system: raft
types:
  Index: uint64
variables:
  commit: Index
  log: "list<{term: uint64, index: Index}>"
derived:
  lastIndex: {type: Index, expr: "len(log) == 0 ? 0 : log[len(log)-1].index"}
`
	s, err := specs.Parse("raft.yaml", []byte(src))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range s.Vars {
		fmt.Printf("%s: %s\n", v.Name, v.Type)
	}
	last := s.Derived[0]
	log := []any{map[string]any{"term": uint64(1), "index": uint64(7)}}
	v, _ := last.Eval(map[string]any{"log": log})
	fmt.Println(last.Name, "=", v)

	// A failure at run time is an error value; the evaluator counts the
	// value as null and the report warns about it.
	_, err = last.Eval(map[string]any{"log": nil})
	fmt.Println(err)

	_, err = specs.Parse("bad.yaml", []byte("variables:\n  commit: Indx\n"))
	fmt.Println(err)
	// Output:
	// commit: Index
	// log: list<{term: uint64, index: Index}>
	// lastIndex = 7
	// derived lastIndex: invalid argument for len (type <nil>)
	// bad.yaml:2:11: variable commit: unknown type Indx
}
