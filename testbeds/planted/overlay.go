package planted

import (
	"errors"
	"math/rand/v2"
)

// generateOverlay generates a system of its family (see Family).
func generateOverlay(seed int64, rng *rand.Rand, o Options) (*System, error) {
	return nil, errors.New("family not written yet")
}
