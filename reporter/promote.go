package reporter

import (
	"fmt"
	"path/filepath"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/grammar"
)

// Promote makes checks of the almost-invariants and invariants of r with
// the given ranks, each named after its property (applied-le-commit),
// unique within the file, with the entry's id in its source. reportPath is where r was read from: the report's spec
// path is relative to it, and it names the source of each check. out is
// where the checks file will live, so that its spec path is relative to
// it.
func Promote(r *Report, reportPath, out string, almost, invariants []int) (*checker.File, error) {
	f := &checker.File{}
	if r.Spec != "" {
		spec := r.Spec
		if !filepath.IsAbs(spec) {
			// A relative spec path is relative to the report.
			spec = filepath.Join(filepath.Dir(reportPath), spec)
		}
		spec, err := filepath.Abs(spec)
		if err != nil {
			return nil, err
		}
		dir, err := filepath.Abs(filepath.Dir(out))
		if err != nil {
			return nil, err
		}
		if f.Spec, err = filepath.Rel(dir, spec); err != nil {
			f.Spec = spec
		}
	}
	names := map[string]bool{}
	add := func(kind string, es []*Entry, ranks []int) error {
		for _, rank := range ranks {
			e := findRank(es, rank)
			if e == nil {
				return fmt.Errorf("%s: no %s with rank %d (the report lists %d)", reportPath, kind, rank, len(es))
			}
			// A report is a file people edit: a property that does not
			// parse is refused here, not when the checks are run.
			if _, err := grammar.Parse(e.Text); err != nil {
				return fmt.Errorf("%s: %s #%d: %w", reportPath, kind, rank, err)
			}
			base := checkName(e.Text)
			name := base
			for n := 2; names[name]; n++ {
				name = fmt.Sprintf("%s-%d", base, n)
			}
			names[name] = true
			f.Checks = append(f.Checks, checker.Check{
				Name:        name,
				Property:    e.Text,
				HoldingRate: e.HoldingRate,
				Source:      fmt.Sprintf("%s %s #%d (id %s)", reportPath, kind, rank, e.ID),
			})
		}
		return nil
	}
	if err := add("almost-invariant", r.AlmostInvariants, almost); err != nil {
		return nil, err
	}
	if err := add("invariant", r.Invariants, invariants); err != nil {
		return nil, err
	}
	if len(f.Checks) == 0 {
		return nil, fmt.Errorf("nothing selected")
	}
	return f, nil
}

func findRank(es []*Entry, rank int) *Entry {
	for _, e := range es {
		if e.Rank == rank {
			return e
		}
	}
	return nil
}
