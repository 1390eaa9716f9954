package checker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/augur-dev/augur/reporter"
)

// ReadReport reads a JSON report written by augur infer.
func ReadReport(path string) (*reporter.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r reporter.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", path, err)
	}
	if r.Version != reporter.Version {
		return nil, fmt.Errorf("%s: report version %d, want %d", path, r.Version, reporter.Version)
	}
	return &r, nil
}

// Promote makes checks of the almost-invariants and invariants of r with
// the given ranks. reportPath is where r was read from: the report's spec
// path is relative to it, and it names the source of each check. out is
// where the checks file will live, so that its spec path is relative to
// it.
func Promote(r *reporter.Report, reportPath, out string, almost, invariants []int) (*File, error) {
	f := &File{}
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
	add := func(kind string, es []*reporter.Entry, ranks []int) error {
		for _, rank := range ranks {
			e := findRank(es, rank)
			if e == nil {
				return fmt.Errorf("%s: no %s with rank %d (the report lists %d)", reportPath, kind, rank, len(es))
			}
			f.Checks = append(f.Checks, Check{
				Name:        e.ID,
				Property:    e.Text,
				HoldingRate: e.HoldingRate,
				Source:      fmt.Sprintf("%s %s #%d", reportPath, kind, rank),
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

func findRank(es []*reporter.Entry, rank int) *reporter.Entry {
	for _, e := range es {
		if e.Rank == rank {
			return e
		}
	}
	return nil
}
