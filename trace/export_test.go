package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Rehash rewrites the manifest's checksum of name after a test damaged
// the file on purpose.
func Rehash(t *testing.T, dir, name string) error {
	t.Helper()
	m, err := readManifest(dir)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	m.SHA256[name] = hex.EncodeToString(sum[:])
	out, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), out, 0o644)
}

// OpenBytes opens a trace held in memory: the content of its manifest
// and Arrow files, as Open would read them from dir.
func OpenBytes(dir string, manifest, states, snapshots []byte) (*Trace, error) {
	m, err := parseManifest(filepath.Join(dir, ManifestFile), manifest)
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{StatesFile: states, SnapshotsFile: snapshots}
	return open(dir, m, func(name string) (file, error) {
		return memFile{bytes.NewReader(data[name])}, nil
	})
}

type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }
