package pipeline

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/diag"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
	"github.com/augur-dev/augur/trace"
)

// CheckOptions configure [CheckFiles]; they are augur check's arguments
// and flags.
type CheckOptions struct {
	Checks, Trace string // the checks file and the trace
	// Spec is the spec the checks are written against; "" means the
	// checks file's, else one made from the trace's variables.
	Spec   string
	Format string // text or json
	// MaxWitnesses is the number of violating snapshots shown per check:
	// 0 means DefaultCheckWitnesses, NoWitnesses (or any negative count)
	// shows none. Every violation is counted either way.
	MaxWitnesses int
	Workers      int // goroutines evaluating snapshots; 0: every CPU
}

// DefaultCheckWitnesses is the number of violating snapshots
// [CheckFiles] shows per check when CheckOptions.MaxWitnesses is 0.
const DefaultCheckWitnesses = 20

// NoWitnesses, as CheckOptions.MaxWitnesses, shows no violating
// snapshot: the counts alone.
const NoWitnesses = -1

// CheckFiles checks every snapshot of the trace o.Trace against the
// checks file o.Checks, writes the results to w in o.Format, and reports
// whether a check was violated: augur check.
func CheckFiles(ctx context.Context, w io.Writer, o CheckOptions) (violated bool, err error) {
	if o.Format != "text" && o.Format != "json" {
		return false, fmt.Errorf("unknown format %q (want text or json)", o.Format)
	}
	maxWitnesses := cmp.Or(o.MaxWitnesses, DefaultCheckWitnesses) // negative: none, as evaluator.Options has it
	f, err := checker.Load(o.Checks)
	if err != nil {
		return false, err
	}
	tr, err := trace.Open(o.Trace)
	if err != nil {
		return false, err
	}
	defer tr.Close()
	// A witness is a violating snapshot: more than the trace holds
	// shows them all, and would only make each worker reserve room for
	// them (--max-witnesses 1e9 ran out of memory).
	maxWitnesses = min(maxWitnesses, max(tr.NumSnapshots(), 1))
	specPath := o.Spec
	if specPath == "" {
		specPath = f.Spec
	}
	spec, err := checkSpec(ctx, specPath, tr)
	if err != nil {
		return false, err
	}
	results, err := RunChecks(ctx, tr, spec, f, maxWitnesses, o.Workers)
	if err != nil {
		return false, err
	}
	if o.Format == "json" {
		err = writeCheckJSON(w, results)
	} else {
		err = writeCheckText(w, o.Trace, tr.NumSnapshots(), results)
	}
	for i := range results {
		violated = violated || results[i].Failed()
	}
	return violated, err
}

// checkSpec loads the spec at path and checks that it fits tr, or, when
// path is "", makes one from the trace's own variables.
func checkSpec(ctx context.Context, path string, tr *trace.Trace) (*specs.Spec, error) {
	if path == "" {
		var b bytes.Buffer
		if err := spectrace.Init(ctx, tr, &b); err != nil {
			return nil, err
		}
		return specs.Parse(tr.Dir+" (inferred spec)", b.Bytes())
	}
	spec, err := specs.Load(path)
	if err != nil {
		return nil, err
	}
	if err := spectrace.Check(spec, tr.Schema); err != nil {
		return nil, err
	}
	if err := spectrace.CheckEnums(ctx, spec, tr); err != nil {
		return nil, fmt.Errorf("spec does not fit trace %s: %w", tr.Dir, err)
	}
	return spec, nil
}

// CheckResult is the outcome of one check over a trace.
type CheckResult struct {
	Check *checker.Check
	Text  string // canonical text of the property, whose variable names witnesses use
	Stats evaluator.Stats
	// Failures are those of the derived variables and predicates the
	// check reads that failed at run time: the check read null (or
	// false) there.
	Failures []evaluator.ExprFailures
}

// Failed reports whether the check was violated.
func (r *CheckResult) Failed() bool { return r.Stats.Violations > 0 }

// RunChecks evaluates every check of f on every snapshot of tr, keeping
// up to maxWitnesses witnesses per check as [evaluator.Options] does
// (every violation is counted).
func RunChecks(ctx context.Context, tr *trace.Trace, spec *specs.Spec, f *checker.File, maxWitnesses, workers int) ([]CheckResult, error) {
	props, err := f.Properties()
	if err != nil {
		return nil, err
	}
	prog, err := evaluator.Compile(spec, props)
	if err != nil {
		return nil, err
	}
	res, err := evaluator.Run(ctx, tr, prog, evaluator.Options{MaxWitnesses: maxWitnesses, Workers: workers})
	if err != nil {
		return nil, err
	}
	out := make([]CheckResult, len(f.Checks))
	for i := range f.Checks {
		out[i] = CheckResult{Check: &f.Checks[i], Text: prog.Props[i].Text, Stats: res.Stats[i]}
		for _, e := range res.Failures {
			if reads(props[i], e) {
				out[i].Failures = append(out[i].Failures, e)
			}
		}
	}
	return out, nil
}

// reads reports whether p reads the expression that failed in e: a
// derived variable of a node, or a predicate.
func reads(p *grammar.Property, e evaluator.ExprFailures) bool {
	if e.Kind == "predicate" {
		for _, l := range p.Matrix {
			if c, ok := l.Atom.(*grammar.Call); ok && c.Name == e.Name {
				return true
			}
		}
		return false
	}
	nodes := p.NodeVars()
	for x := range grammar.Paths(p) {
		if len(x.Fields) > 0 && x.Fields[0] == e.Name && slices.Contains(nodes, x.Var) {
			return true
		}
	}
	return false
}

// writeCheckText writes results for a person: one line per check, after
// a warning for each expression it reads that failed, and for each
// failed one its violations and witnesses, then a summary line naming the
// trace at tracePath and its number of snapshots.
func writeCheckText(w io.Writer, tracePath string, snapshots int, results []CheckResult) error {
	var b bytes.Buffer
	failed := 0
	for i := range results {
		r := &results[i]
		st := &r.Stats
		for _, f := range r.Failures {
			fmt.Fprintf(&b, "warning: %s: %s\n", r.Check.Name, f.Warning())
		}
		switch {
		case st.Support == 0:
			fmt.Fprintf(&b, "vacuous %s: %s (no bindings in any snapshot)\n", r.Check.Name, r.Check.Property)
			continue
		case !r.Failed():
			fmt.Fprintf(&b, "ok    %s: %s (%d snapshots, %d bindings)\n", r.Check.Name, r.Check.Property, st.Support, st.Bindings)
			continue
		}
		failed++
		fmt.Fprintf(&b, "FAIL  %s: %s\n", r.Check.Name, r.Check.Property)
		if r.Text != r.Check.Property {
			fmt.Fprintf(&b, "      canonical: %s\n", r.Text)
		}
		fmt.Fprintf(&b, "      %s in %d of %d snapshots (holding rate %.5f)\n",
			plural(st.Violations, "violation"), st.ViolatingSnapshots, st.Support, st.HoldingRate())
		for _, wit := range st.Witnesses() {
			fmt.Fprintf(&b, "      at %s\n", wit)
		}
		if more := st.ViolatingSnapshots - int64(st.NumWitnesses()); more > 0 {
			fmt.Fprintf(&b, "      … and %s more\n", plural(more, "violating snapshot"))
		}
	}
	fmt.Fprintf(&b, "%s: %d snapshots, %d checks, %d failed\n", tracePath, snapshots, len(results), failed)
	_, err := w.Write(b.Bytes())
	return err
}

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// writeCheckJSON writes results for machines: {"checks": [...]}, each
// with its name, property, canonical text, whether it held, its counts
// and witnesses.
func writeCheckJSON(w io.Writer, results []CheckResult) error {
	type result struct {
		Name               string              `json:"name"`
		Property           string              `json:"property"`
		Canonical          string              `json:"canonical"`
		OK                 bool                `json:"ok"`
		HoldingRate        float64             `json:"holding_rate"`
		Violations         int64               `json:"violations"`
		ViolatingSnapshots int64               `json:"violating_snapshots"`
		Bindings           int64               `json:"bindings"`
		Support            int64               `json:"support"`
		Witnesses          []evaluator.Witness `json:"witnesses"`
		Warnings           []diag.Warning      `json:"warnings,omitempty"` // expressions it reads that failed
	}
	out := make([]result, len(results))
	for i := range results {
		r := &results[i]
		out[i] = result{
			Name:               r.Check.Name,
			Property:           r.Check.Property,
			Canonical:          r.Text,
			OK:                 !r.Failed(),
			HoldingRate:        r.Stats.HoldingRate(),
			Violations:         r.Stats.Violations,
			ViolatingSnapshots: r.Stats.ViolatingSnapshots,
			Bindings:           r.Stats.Bindings,
			Support:            r.Stats.Support,
			Witnesses:          r.Stats.Witnesses(),
		}
		for _, f := range r.Failures {
			out[i].Warnings = append(out[i].Warnings, diag.Warning{Code: diag.Code(f.Code()), Msg: f.Warning()})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"checks": out})
}
