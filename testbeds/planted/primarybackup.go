package planted

import (
	"errors"
	"math/rand/v2"
)

// generatePrimaryBackup generates a system of its family (see Family).
func generatePrimaryBackup(seed int64, rng *rand.Rand, o Options) (*System, error) {
	return nil, errors.New("family not written yet")
}
