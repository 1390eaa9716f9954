package evaluator_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
)

// TestWork checks that a property that may have more than MaxBindings
// bindings in a snapshot is an error before evaluation, at the quantifier
// that crosses the bound, and that one just below it is evaluated.
func TestWork(t *testing.T) {
	// Node a has 200 peers and a log of 2 entries: four iterators over
	// the peers may bind 200^4 = 1.6·10^9 ways, three 8·10^6.
	var peers []any
	for i := range 200 {
		peers = append(peers, fmt.Sprint("p", i))
	}
	entries := []any{map[string]any{"term": i64(1), "index": i64(1)}, map[string]any{"term": i64(1), "index": i64(2)}}
	tr := writeTiny(t, []snap{{"a": {"peers": peers, "log": entries}, "b": {"peers": []any{"a"}}}})
	defer tr.Close()
	nest := func(n int, domain string) string {
		var b strings.Builder
		b.WriteString("forall n in nodes: ")
		for i := range n {
			fmt.Fprintf(&b, "forall e%d in %s: ", i, domain)
		}
		return b.String() + "e0 == e0"
	}
	for _, tt := range []struct {
		src string
		pos string // of the error; "" if none
	}{
		{nest(3, "n.peers"), ""},
		{nest(4, "n.peers"), "1:86"},
		{nest(7, "n.log"), ""}, // 2·2^7
		// Two node variables and four iterators: the error is at the
		// fourth iterator.
		{"forall n, m in nodes: forall p in n.peers: forall q in m.peers: forall r in n.peers: forall s in m.peers: p == q or r == s", "1:86"},
	} {
		p, err := grammar.Parse(tt.src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := evaluator.Compile(mustSpec(t), []*grammar.Property{p})
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range kinds {
			_, err = evaluator.Run(context.Background(), tr, prog, evaluator.Options{Kind: kind})
			var e *diag.Error
			switch {
			case tt.pos == "" && err != nil:
				t.Errorf("%s, %s: %v", kind, tt.src, err)
			case tt.pos != "" && (!errors.As(err, &e) || e.Code != evaluator.CodeTooMuchWork || e.Pos.String() != tt.pos):
				t.Errorf("%s, %s: error %v, want %s at %s", kind, tt.src, err, evaluator.CodeTooMuchWork, tt.pos)
			}
		}
	}
}
