package generator_test

import (
	"fmt"
	"log"
	"os"

	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/specs"
)

func ExampleGenerate() {
	spec, err := specs.Parse("kv.yaml", []byte(`
system: kv
types:
  Version: uint64
variables:
  version: Version
  primary: bool
generate:
  max_nodes: 2
  max_literals: 1
  max_per_class: 100
`))
	if err != nil {
		log.Fatal(err)
	}
	pool, err := generator.Generate(spec, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range pool.Classes {
		fmt.Println(c)
	}
	for _, p := range pool.Props {
		fmt.Println(p)
	}
	// Output:
	// nodes=1 iters=0 literals=1: generated=6 kept=6
	// nodes=2 iters=0 literals=1: generated=6 kept=6
	// forall n0 in nodes: n0.primary
	// forall n0 in nodes: not n0.primary
	// forall n0 in nodes: not set(n0.primary)
	// forall n0 in nodes: not set(n0.version)
	// forall n0 in nodes: set(n0.primary)
	// forall n0 in nodes: set(n0.version)
	// forall n0, n1 in nodes: n0.primary != n1.primary
	// forall n0, n1 in nodes: n0.primary == n1.primary
	// forall n0, n1 in nodes: n0.version != n1.version
	// forall n0, n1 in nodes: n0.version < n1.version
	// forall n0, n1 in nodes: n0.version <= n1.version
	// forall n0, n1 in nodes: n0.version == n1.version
}

func ExamplePool_WriteText() {
	spec, err := specs.Parse("kv.yaml", []byte(`
variables:
  version: uint64
generate:
  max_nodes: 2
  max_literals: 1
  max_per_class: 3
`))
	if err != nil {
		log.Fatal(err)
	}
	pool, err := generator.Generate(spec, nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := pool.WriteText(os.Stdout, false); err != nil {
		log.Fatal(err)
	}
	// Output:
	// nodes  iters  literals  generated  kept
	//       1      0         1          2     2
	//       2      0         1          4     3
	// total: 6 properties generated, 5 kept (augur infer evaluates those)
}
