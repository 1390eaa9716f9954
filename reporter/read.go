package reporter

import (
	"encoding/json"
	"fmt"

	"github.com/augur-dev/augur/internal/infile"
)

// MaxFileSize bounds a JSON report, a regular file read whole: an entry
// takes about a kilobyte, and a report of every property of a large pool
// a few megabytes.
const MaxFileSize = 64 << 20

// ReadFile reads a JSON report written by augur infer. A named pipe, a
// device or a file larger than MaxFileSize is refused before it is read.
func ReadFile(path string) (*Report, error) {
	data, err := infile.ReadFile(path, MaxFileSize)
	if err != nil {
		return nil, err
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a JSON report: %w", path, err)
	}
	switch r.Version {
	case Version:
	case 0: // JSON, but not a report: augur explain's, a stats file's
		return nil, fmt.Errorf("%s: not a JSON report of augur infer: no \"version\" field", path)
	default:
		return nil, fmt.Errorf("%s: report version %d, want %d", path, r.Version, Version)
	}
	return &r, nil
}
