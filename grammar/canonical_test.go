package grammar

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "update golden files")

var canonicalTests = []struct {
	in, want string
}{
	// Renaming, in prefix order, nodes and iterators counted apart.
	{`forall a, b in nodes: forall x in b.log: x in a.log or a.commit < x.index`,
		`forall n0, n1 in nodes: forall e0 in n1.log: e0 in n0.log or n0.commit < e0.index`},
	{`forall e0 in nodes: forall n0 in e0.log: forall n1 in nodes: n0 in n1.log`,
		`forall n0 in nodes: forall e0 in n0.log: forall n1 in nodes: e0 in n1.log`},
	{`exists y in nodes: exists x in nodes: x == y`,
		`exists n0 in nodes: exists n1 in nodes: n0 == n1`},

	// Negated equalities fold; other negations stay.
	{`forall x in nodes: not (x.a == 1)`, `forall n0 in nodes: n0.a != 1`},
	{`forall x in nodes: not (x.a != 1)`, `forall n0 in nodes: n0.a == 1`},
	{`forall x in nodes: ¬ x.a ≠ x.b`, `forall n0 in nodes: n0.a == n0.b`},
	{`forall x in nodes: not x.a < 1`, `forall n0 in nodes: not n0.a < 1`},
	{`forall x in nodes: not p(x)`, `forall n0 in nodes: not p(n0)`},

	// Operands of == and != are ordered, constants right; those of < and
	// <= are not.
	{`forall x, y in nodes: y.id == x.id`, `forall n0, n1 in nodes: n0.id == n1.id`},
	{`forall x, y in nodes: y.id != x.id`, `forall n0, n1 in nodes: n0.id != n1.id`},
	{`forall x in nodes: x.role == "leader"`, `forall n0 in nodes: n0.role == "leader"`},
	{`forall x, y in nodes: y.a < x.a`, `forall n0, n1 in nodes: n1.a < n0.a`},
	{`forall x, y in nodes: x.a > y.a`, `forall n0, n1 in nodes: n1.a < n0.a`},
	{`forall x, y in nodes: x.a >= y.a`, `forall n0, n1 in nodes: n1.a <= n0.a`},

	// Literals are sorted and deduplicated.
	{`forall x in nodes: x.c or x.b or x.a`, `forall n0 in nodes: n0.a or n0.b or n0.c`},
	{`forall x in nodes: x.a or x.a or (x.a)`, `forall n0 in nodes: n0.a`},
	{`forall x in nodes: x.a == 1 or 1 == x.a or not x.a != 1`, `forall n0 in nodes: n0.a == 1`},
	{`forall x in nodes: x.a or not x.a`, `forall n0 in nodes: n0.a or not n0.a`},

	// Constants print in one form.
	{`forall x in nodes: x.f == 1e3 or x.s == "\x41\u00e9" or x.i == -0`,
		`forall n0 in nodes: n0.f == 1000.0 or n0.i == 0 or n0.s == "A\u00e9"`},
	{`∀ x ∈ nodes: x.s == "é" ∨ x.t ⊆ x.u`, `forall n0 in nodes: n0.s == "\u00e9" or n0.t subset n0.u`},
}

func TestCanonical(t *testing.T) {
	for _, tt := range canonicalTests {
		p, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got := p.Text(); got != tt.want {
			t.Errorf("Canonical(%q):\n got %s\nwant %s", tt.in, got, tt.want)
		}
		checkCanonical(t, p)
	}
}

// checkCanonical checks that Canonical leaves p alone, is idempotent
// and prints text that parses back to the same tree.
func checkCanonical(t *testing.T, p *Property) {
	t.Helper()
	before := p.String()
	c := Canonical(p)
	if p.String() != before {
		t.Errorf("Canonical changed its argument: %s became %s", before, p)
	}
	if p.Text() != c.String() {
		t.Errorf("Text() = %q, Canonical prints %q", p.Text(), c)
	}
	if cc := Canonical(c); !Equal(cc, c) {
		t.Errorf("Canonical is not idempotent:\n once %s\ntwice %s", c, cc)
	}
	q, err := Parse(c.String())
	if err != nil {
		t.Errorf("Parse(%q): %v", c, err)
		return
	}
	if !Equal(q, c) {
		t.Errorf("Parse(%q) = %s, a different tree", c, q)
	}
}

func TestID(t *testing.T) {
	p, err := Parse("∀ x, y ∈ nodes: ∀ e ∈ y.log: e.index > x.commit ∨ e ∈ x.log")
	if err != nil {
		t.Fatal(err)
	}
	// Pinned: changing canonical text changes every stored id.
	if got, want := p.ID(), "607a046faad7"; got != want {
		t.Errorf("ID() = %s, want %s", got, want)
	}
}

func TestEqual(t *testing.T) {
	parse := func(src string) *Property {
		p, err := Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	same := [][2]string{
		{`forall x in nodes: x.a > 1`, `forall x in nodes: 1 < x.a`},
		{`forall x in nodes: (x.a)`, `  forall x ∈ nodes :x.a`},
		{`forall x in nodes: x.f == 1e3`, `forall x in nodes: x.f == 1000.0`},
	}
	for _, tt := range same {
		if !Equal(parse(tt[0]), parse(tt[1])) {
			t.Errorf("Equal(%q, %q) = false", tt[0], tt[1])
		}
	}
	different := [][2]string{
		{`forall x in nodes: x`, `exists x in nodes: x`},
		{`forall x in nodes: x`, `forall y in nodes: y`},
		{`forall x, y in nodes: x`, `forall x in nodes: forall y in nodes: x`},
		{`forall x in nodes: forall e in x.a: e`, `forall x in nodes: forall e in x.b: e`},
		{`forall x in nodes: x.a or x.b`, `forall x in nodes: x.b or x.a`},
		{`forall x in nodes: x.a`, `forall x in nodes: not x.a`},
		{`forall x in nodes: x.a == 1`, `forall x in nodes: x.a != 1`},
		{`forall x in nodes: x.a == 1`, `forall x in nodes: x.a == 1.0`},
		{`forall x in nodes: x.a == 0.0`, `forall x in nodes: x.a == -0.0`},
		{`forall x in nodes: x.a == "1"`, `forall x in nodes: x.a == 1`},
		{`forall x in nodes: x.a in x.b`, `forall x in nodes: x.a subset x.b`},
		{`forall x in nodes: empty(x)`, `forall x in nodes: set(x)`},
		{`forall x in nodes: p(x)`, `forall x in nodes: q(x)`},
		{`forall x in nodes: p(x)`, `forall x in nodes: p(x, x)`},
		{`forall x in nodes: x.a.b`, `forall x in nodes: x.a`},
	}
	for _, tt := range different {
		if Equal(parse(tt[0]), parse(tt[1])) {
			t.Errorf("Equal(%q, %q) = true", tt[0], tt[1])
		}
	}
	if Equal(parse(`forall x in nodes: x`), nil) || !Equal(nil, nil) {
		t.Errorf("Equal with nil is wrong")
	}
}

// TestGolden prints the canonical text and id of each property in
// testdata/canonical.input; blank and # lines are copied.
func TestGolden(t *testing.T) {
	input := filepath.Join("testdata", "canonical.input")
	golden := filepath.Join("testdata", "canonical.golden")
	f, err := os.Open(input)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	var out strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			out.WriteString(line + "\n")
			continue
		}
		p, err := Parse(line)
		if err != nil {
			t.Fatalf("%s: Parse(%q): %v", input, line, err)
		}
		out.WriteString(p.ID() + " " + p.Text() + "\n")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}

	got := out.String()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("canonical text differs from %s; run go test -update and check the diff:\n%s", golden, got)
	}

	// The golden texts must be canonical already.
	for line := range strings.Lines(string(want)) {
		id, text, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := Parse(text)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", golden, text, err)
			continue
		}
		if p.Text() != text || p.ID() != id {
			t.Errorf("golden must be idempotent: %s %s became %s %s", id, text, p.ID(), p.Text())
		}
	}
}
