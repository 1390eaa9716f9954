package specs

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Parsing takes time about linear in the size of a spec: an enum of
// 1,000,000 values took spec check over an hour when each value was
// looked for among those before it.
func TestParseLarge(t *testing.T) {
	tests := []struct {
		name string
		src  func(b *strings.Builder)
	}{
		{"enum of 300,000 values", func(b *strings.Builder) {
			b.WriteString("variables:\n  state: {enum: [")
			for i := range 300_000 {
				fmt.Fprintf(b, "e%d, ", i)
			}
			b.WriteString("last]}\n")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			tt.src(&b)
			start := time.Now()
			if _, err := Parse("large.yaml", []byte(b.String())); err != nil {
				t.Fatal(err)
			}
			// About 1 s; 20 s leaves room for a loaded machine.
			if took := time.Since(start); took > 20*time.Second {
				t.Errorf("Parse took %v", took)
			}
		})
	}
}
