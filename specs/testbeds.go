package specs

import (
	"embed"
	"fmt"
)

// testbedSpecs are the specs of augur's testbeds (package testbeds), which
// live next to this package's source as NAME.yaml.
//
//go:embed chord.yaml etcdraft.yaml paxos.yaml randtree.yaml
var testbedSpecs embed.FS

// Testbed returns the text of the spec of testbed name, the file
// specs/NAME.yaml of augur's source tree, so that a binary installed
// elsewhere has it.
func Testbed(name string) ([]byte, error) {
	b, err := testbedSpecs.ReadFile(name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("no spec for testbed %q", name)
	}
	return b, nil
}
