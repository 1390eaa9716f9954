package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/reporter"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// checkOptions are augur check's arguments and flags.
type checkOptions struct {
	checks, trace string
	spec, format  string
	maxWitnesses  int
	workers       int
	stdout        io.Writer
}

// newCheckCmd returns augur check; runF, if not nil, runs instead of
// runCheck.
func newCheckCmd(runF func(*checkOptions) error) *cobra.Command {
	o := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check CHECKS TRACE",
		Short: "Check every snapshot of a trace against a checks file",
		Long: `Check evaluates every check on every snapshot of the trace and prints each
violation with its witness: the snapshot, the binding of the variables, and
the values the property reads. It exits with status 1 when any check is
violated, so it can gate CI.

The properties are type-checked against --spec, else the spec named in the
checks file, else a spec made from the trace's own variables.`,
		Example: `  augur check checks.yaml run.trace
  augur check checks.yaml run.trace --spec spec.yaml --format json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.checks, o.trace, o.stdout = args[0], args[1], cmd.OutOrStdout()
			if runF != nil {
				return runF(o)
			}
			return runCheck(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.spec, "spec", "", "spec the checks are written against")
	fl.StringVar(&o.format, "format", "text", "output format: text or json")
	fl.IntVar(&o.maxWitnesses, "max-witnesses", 20, "violating snapshots shown per check, with their first violating binding (all are counted)")
	fl.IntVar(&o.workers, "workers", 0, "goroutines evaluating snapshots (default: number of CPUs)")
	return cmd
}

// runCheck prints the violations of o.checks in o.trace, and returns
// errViolations when there are any.
func runCheck(ctx context.Context, o *checkOptions) error {
	if o.format != "text" && o.format != "json" {
		return fmt.Errorf("unknown format %q (want text or json)", o.format)
	}
	maxWitnesses := o.maxWitnesses
	if maxWitnesses == 0 {
		maxWitnesses = -1 // none shown; every violation is still counted
	}
	f, err := checker.Load(o.checks)
	if err != nil {
		return err
	}
	tr, err := trace.Open(o.trace)
	if err != nil {
		return err
	}
	defer tr.Close()
	specPath := o.spec
	if specPath == "" {
		specPath = f.Spec
	}
	spec, err := loadSpecFor(specPath, tr)
	if err != nil {
		return err
	}
	results, err := checker.Run(ctx, tr, spec, f, maxWitnesses, o.workers)
	if err != nil {
		return err
	}
	if o.format == "json" {
		if err := writeCheckJSON(o.stdout, results); err != nil {
			return err
		}
	} else {
		writeCheckText(o.stdout, o.trace, tr.NumSnapshots(), results)
	}
	for i := range results {
		if results[i].Failed() {
			return errViolations
		}
	}
	return nil
}

// loadSpecFor loads the spec at path and checks it against the trace, or
// without a path makes one from the trace's variables.
func loadSpecFor(path string, tr *trace.Trace) (*specs.Spec, error) {
	if path == "" {
		var b bytes.Buffer
		if err := specs.Init(tr, &b); err != nil {
			return nil, err
		}
		return specs.Parse(tr.Dir+" (inferred spec)", b.Bytes())
	}
	spec, err := specs.Load(path)
	if err != nil {
		return nil, err
	}
	if err := spec.Check(tr.Schema); err != nil {
		return nil, err
	}
	return spec, nil
}

func writeCheckText(w io.Writer, tracePath string, snapshots int, results []checker.Result) {
	failed := 0
	for i := range results {
		r := &results[i]
		st := &r.Stats
		switch {
		case st.Support == 0:
			fmt.Fprintf(w, "vacuous %s: %s (no bindings in any snapshot)\n", r.Check.Name, r.Check.Property)
			continue
		case !r.Failed():
			fmt.Fprintf(w, "ok    %s: %s (%d snapshots, %d bindings)\n", r.Check.Name, r.Check.Property, st.Support, st.Bindings)
			continue
		}
		failed++
		fmt.Fprintf(w, "FAIL  %s: %s\n", r.Check.Name, r.Check.Property)
		if r.Text != r.Check.Property {
			// Witnesses name the variables of the canonical form.
			fmt.Fprintf(w, "      canonical: %s\n", r.Text)
		}
		fmt.Fprintf(w, "      %s in %d of %d snapshots (holding rate %.5f)\n",
			plural(st.Violations, "violation"), st.ViolatingSnapshots, st.Support, st.HoldingRate())
		for _, wit := range st.Witnesses {
			fmt.Fprintf(w, "      at %s\n", reporter.FormatWitness(wit))
		}
		if more := st.ViolatingSnapshots - int64(len(st.Witnesses)); more > 0 {
			fmt.Fprintf(w, "      … and %s more\n", plural(more, "violating snapshot"))
		}
	}
	fmt.Fprintf(w, "%s: %d snapshots, %d checks, %d failed\n", tracePath, snapshots, len(results), failed)
}

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func writeCheckJSON(w io.Writer, results []checker.Result) error {
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
			Witnesses:          r.Stats.Witnesses,
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"checks": out})
}
