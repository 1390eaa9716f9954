package trace

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/augur-dev/augur/internal/infile"
)

// Names of the files in a trace directory.
const (
	StatesFile    = "states.arrow"
	SnapshotsFile = "snapshots.arrow"
	ManifestFile  = "manifest.json"
)

// Format and Version identify the trace format in manifest.json.
const (
	Format  = "augur-trace"
	Version = 1
)

// Manifest is the content of manifest.json.
type Manifest struct {
	Format    string `json:"format"`
	Version   int    `json:"version"`
	System    string `json:"system,omitempty"`
	Snapshots int    `json:"snapshots"`
	States    int    `json:"states"`
	Nodes     int    `json:"nodes"`
	CreatedBy string `json:"created_by,omitempty"`
	// SHA256 maps each Arrow file name to the hex SHA-256 of its content.
	SHA256 map[string]string `json:"sha256"`
}

// maxManifestSize bounds the manifest read: a manifest is a few hundred
// bytes, and one that is a huge or endless file must not be read whole.
const maxManifestSize = 1 << 20

func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	data, err := infile.ReadFile(path, maxManifestSize)
	if err != nil {
		return nil, fmt.Errorf("read trace manifest: %w", err)
	}
	return parseManifest(path, data)
}

func parseManifest(path string, data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case m.Format != Format:
		return nil, fmt.Errorf("%s: format is %q, want %q", path, m.Format, Format)
	case m.Version != Version:
		return nil, fmt.Errorf("%s: unsupported trace version %d (this augur reads version %d)", path, m.Version, Version)
	case m.Snapshots < 0 || m.States < 0 || m.Nodes < 0:
		return nil, corruptf("%s: negative counts (%d snapshots, %d states, %d nodes)", path, m.Snapshots, m.States, m.Nodes)
	}
	return &m, nil
}
