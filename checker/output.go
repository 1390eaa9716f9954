package checker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/augur-dev/augur/evaluator"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/trace"
)

// SpecFor loads the spec at path and checks that it fits tr, or, when
// path is "", makes one from the trace's own variables.
func SpecFor(path string, tr *trace.Trace) (*specs.Spec, error) {
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
	if err := spec.CheckEnums(tr); err != nil {
		return nil, fmt.Errorf("spec does not fit trace %s: %w", tr.Dir, err)
	}
	return spec, nil
}

// WriteText writes results for a person: one line per check, after a
// warning for each expression it reads that failed, and for each failed
// one its violations and witnesses, then a summary line naming the trace
// at tracePath and its number of snapshots.
func WriteText(w io.Writer, tracePath string, snapshots int, results []Result) error {
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
		for _, wit := range st.Witnesses {
			fmt.Fprintf(&b, "      at %s\n", wit)
		}
		if more := st.ViolatingSnapshots - int64(len(st.Witnesses)); more > 0 {
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

// WriteJSON writes results for machines: {"checks": [...]}, each with its
// name, property, canonical text, whether it held, its counts and
// witnesses.
func WriteJSON(w io.Writer, results []Result) error {
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
		Warnings           []string            `json:"warnings,omitempty"` // expressions it reads that failed
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
		for _, f := range r.Failures {
			out[i].Warnings = append(out[i].Warnings, f.Warning())
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(map[string]any{"checks": out})
}
