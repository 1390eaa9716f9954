package grammar

import (
	"errors"
	"testing"

	"github.com/augur-dev/augur/diag"
)

// FuzzParse checks that whatever Parse accepts prints back to the same
// tree, and that its canonical form is stable. Errors must be an
// diag.ErrorList of coded errors with positions.
func FuzzParse(f *testing.F) {
	for _, tt := range matrixTests {
		f.Add(prefix + tt.in)
	}
	for _, tt := range prefixTests {
		f.Add(tt.in)
	}
	for _, tt := range canonicalTests {
		f.Add(tt.in)
	}
	for _, tt := range invalidTests {
		if len(tt.in) < 1024 {
			f.Add(tt.in)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse(src)
		if err != nil {
			var list diag.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v is not an diag.ErrorList", err)
			}
			for _, e := range list {
				if e.Code == "" || !e.Pos.IsValid() || e.Pos.Offset > len(src) {
					t.Fatalf("bad error %#v", e)
				}
			}
			return
		}

		q, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %v, printed from %q", p, err, src)
		}
		if !Equal(q, p) {
			t.Fatalf("Parse(%q) = %s, want the tree of %q", p, q, src)
		}

		c := Canonical(p)
		q, err = Parse(c.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %v, canonical of %q", c, err, src)
		}
		if !Equal(q, c) {
			t.Fatalf("Parse(%q) = %s, want the canonical tree of %q", c, q, src)
		}
		if got := Canonical(q).String(); got != c.String() {
			t.Fatalf("canonical text not stable: %q became %q", c, got)
		}
		if got := p.Text(); got != c.String() {
			t.Fatalf("Text() = %q, Canonical prints %q", got, c)
		}
	})
}
