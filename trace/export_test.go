package trace

import (
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
