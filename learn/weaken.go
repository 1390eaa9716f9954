package learn

import (
	"cmp"
	"context"
	"fmt"
	"math/bits"
	"slices"
	"strconv"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/generator"
	"github.com/augur-dev/augur/grammar"
)

// Weakening is a learned weakening of a check: the check with one literal
// more, which holds in every run the check was learned from, with the
// support Learn asks.
type Weakening struct {
	Check
	// Watched is the share of the bindings of the runs at which the
	// check holds by one literal alone (one change from failing) where
	// the added literal is false, so that the weakening still fails
	// where the check would: 1 keeps all of the check's watch, 0 none of
	// it.
	Watched float64
}

// Weaken returns the learned weakenings of the check whose property is
// text, strongest (most Watched) first: the check with one literal more
// over its node variables, or over one node variable more if the spec's
// max_nodes allows, that holds in every run of r with o.MinSupport and is
// not true by the spec alone. The added literals are those of the spec's
// pool (with the constants mined from r's first run) that quantify over
// nodes alone. A property whose nodes are not quantified by forall, or
// that has as many literals as the evaluator counts the patterns of, has
// none.
func (r *Result) Weaken(ctx context.Context, text string, o Options) ([]*Weakening, error) {
	if o.MinSupport == 0 {
		o.MinSupport = DefaultMinSupport
	}
	c, err := grammar.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("learn: weaken %q: %w", text, err)
	}
	c = grammar.Canonical(c)
	cands, err := r.weakenings(c)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	trivial, err := TrueBySpec(r.Spec, r.constants, cands)
	if err != nil {
		return nil, err
	}
	n := 0
	for i, w := range cands {
		if !trivial[i] {
			cands[n] = w
			n++
		}
	}
	cands = cands[:n]
	if len(cands) == 0 {
		return nil, nil
	}
	prog, err := evaluator.Compile(r.Spec, cands)
	if err != nil {
		return nil, fmt.Errorf("learn: weakenings of %q: %w", text, err)
	}
	l := &learner{o: o, spec: r.Spec}
	held := make([]bool, len(cands))
	for i := range held {
		held[i] = true
	}
	// The added literal is the last of each candidate's matrix: bit
	// added of a pattern, the check's literals the bits below it.
	added := len(c.Matrix)
	tight, watched := make([]int64, len(cands)), make([]int64, len(cands))
	support := make([]float64, len(cands))
	for i := range support {
		support[i] = 1
	}
	for k, path := range r.Runs {
		opts := l.evalOptions()
		opts.NoPatterns = false
		res, err := l.run(ctx, path, prog, opts, fmt.Sprintf("run %d of %d: evaluating %d weakenings", k+1, len(r.Runs), len(cands)))
		if err != nil {
			return nil, err
		}
		for i := range cands {
			st := &res.Stats[i]
			if res.Snapshots == 0 || st.Violations > 0 {
				held[i] = false
				continue
			}
			support[i] = min(support[i], float64(st.Support)/float64(res.Snapshots))
			held[i] = held[i] && support[i] >= o.MinSupport
			for pat, n := range st.Patterns {
				if bits.OnesCount(uint(pat)&(1<<added-1)) != 1 {
					continue
				}
				tight[i] += n
				if pat&(1<<added) == 0 {
					watched[i] += n
				}
			}
		}
	}
	var ws []*Weakening
	for i, w := range cands {
		if !held[i] {
			continue
		}
		share := 0.0
		if tight[i] > 0 {
			share = float64(watched[i]) / float64(tight[i])
		}
		t := w.Text()
		ws = append(ws, &Weakening{Check: Check{Property: grammar.Canonical(w), Text: t, ID: grammar.TextID(t), Weakens: c.Text(),
			Support: support[i], HoldingRate: 1}, Watched: share})
	}
	slices.SortStableFunc(ws, func(a, b *Weakening) int {
		return cmp.Or(cmp.Compare(b.Watched, a.Watched), cmp.Compare(len(a.Text), len(b.Text)), cmp.Compare(a.Text, b.Text))
	})
	return ws, nil
}

// weakenings returns the candidate weakenings of c, the canonical check:
// c's quantifiers (its node quantifier with one variable more when a
// literal needs it) over c's literals and, last, one literal of the
// spec's pool over nodes, renamed onto c's node variables. Each is
// distinct up to the naming of its node variables, and none is c.
func (r *Result) weakenings(c *grammar.Property) ([]*grammar.Property, error) {
	if len(c.Quants) == 0 || c.Quants[0].Kind != grammar.Forall || c.Quants[0].Domain != nil || len(c.Matrix) >= evaluator.MaxPatternLiterals {
		return nil, nil
	}
	for _, q := range c.Quants[1:] {
		if q.Kind != grammar.Forall {
			return nil, nil
		}
	}
	spec := *r.Spec
	spec.Generate.MaxLiterals, spec.Generate.Iterate = 1, nil
	pool, err := generator.Generate(&spec, r.constants)
	if err != nil {
		return nil, fmt.Errorf("learn: the literals of the weakenings: %w", err)
	}
	vars := c.Quants[0].Vars
	targets := slices.Clone(vars)
	if len(vars) < r.Spec.Generate.MaxNodes {
		targets = append(targets, "n"+strconv.Itoa(len(vars)))
	}
	seen := map[string]bool{c.SymmetricText(): true}
	var out []*grammar.Property
	for _, p := range pool.Props {
		if len(p.Quants) != 1 || p.Quants[0].Domain != nil || len(p.Matrix) != 1 {
			continue
		}
		from := p.Quants[0].Vars
		assignments(len(from), len(targets), func(to []int) {
			names := make(map[string]string, len(from))
			fresh := false
			for i, v := range from {
				names[v] = targets[to[i]]
				fresh = fresh || to[i] >= len(vars)
			}
			q := *c.Quants[0]
			if fresh {
				q.Vars = targets
			}
			w := &grammar.Property{Quants: append([]*grammar.Quantifier{&q}, c.Quants[1:]...),
				Matrix: append(slices.Clip(c.Matrix), renameLiteral(p.Matrix[0], names))}
			if key := w.SymmetricText(); !seen[key] && len(grammar.Canonical(w).Matrix) > len(c.Matrix) {
				seen[key] = true
				out = append(out, w)
			}
		})
	}
	return out, nil
}

// assignments calls f with each injective map of k variables into n
// targets, as the targets' indices.
func assignments(k, n int, f func(to []int)) {
	to := make([]int, k)
	used := make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == k {
			f(to)
			return
		}
		for t := range n {
			if !used[t] {
				used[t], to[i] = true, t
				rec(i + 1)
				used[t] = false
			}
		}
	}
	rec(0)
}

// renameLiteral returns a copy of l with its variables renamed by names.
func renameLiteral(l *grammar.Literal, names map[string]string) *grammar.Literal {
	op := func(x grammar.Operand) grammar.Operand {
		if p, ok := x.(*grammar.Path); ok {
			v, ok := names[p.Var]
			if !ok {
				v = p.Var
			}
			return &grammar.Path{Var: v, Fields: slices.Clone(p.Fields)}
		}
		return x
	}
	var a grammar.Atom
	switch x := l.Atom.(type) {
	case *grammar.Compare:
		a = &grammar.Compare{Op: x.Op, X: op(x.X), Y: op(x.Y)}
	case *grammar.In:
		a = &grammar.In{X: op(x.X), S: op(x.S)}
	case *grammar.Subset:
		a = &grammar.Subset{X: op(x.X), Y: op(x.Y)}
	case *grammar.Empty:
		a = &grammar.Empty{S: op(x.S)}
	case *grammar.IsSet:
		a = &grammar.IsSet{X: op(x.X)}
	case *grammar.Truth:
		a = &grammar.Truth{X: op(x.X)}
	case *grammar.Call:
		args := make([]grammar.Operand, len(x.Args))
		for i, y := range x.Args {
			args[i] = op(y)
		}
		a = &grammar.Call{Name: x.Name, Args: args}
	default:
		panic(fmt.Sprintf("learn: unknown atom %T", l.Atom))
	}
	return &grammar.Literal{Neg: l.Neg, Atom: a}
}
