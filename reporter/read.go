package reporter

import (
	"encoding/json"
	"fmt"
	"os"
)

// ReadFile reads a JSON report written by augur infer.
func ReadFile(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", path, err)
	}
	if r.Version != Version {
		return nil, fmt.Errorf("%s: report version %d, want %d", path, r.Version, Version)
	}
	return &r, nil
}
