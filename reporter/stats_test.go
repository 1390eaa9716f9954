package reporter

import (
	"math"
	"testing"
)

// near reports whether a p-value is want to a relative 1e-6: p-values
// that matter span many orders of magnitude, so an absolute tolerance
// would pass any small value. A want of 0 asks for less than 1e-12.
func near(got, want float64) bool {
	if want == 0 {
		return got < 1e-12
	}
	return math.Abs(got-want) <= 1e-6*math.Abs(want)
}

func TestIndependence(t *testing.T) {
	tests := []struct {
		name string
		t    table
		want float64
	}{
		// chi² = n(ad-bc)²/(r0 r1 c0 c1) = 0.79365, p = erfc(sqrt(chi²/2)).
		{"chi-square", table{{10, 20}, {30, 40}}, 0.37299848361348714},
		// Small counts: Fisher's exact test, two-sided.
		{"fisher", table{{3, 1}, {1, 3}}, 34.0 / 70},
		{"empty row", table{{0, 0}, {5, 7}}, 1},
		{"perfect dependence", table{{500, 0}, {0, 500}}, 0},
	}
	for _, tt := range tests {
		if got := independence(tt.t); !near(got, tt.want) {
			t.Errorf("%s: independence(%v) = %.5f, want %.5f", tt.name, tt.t, got, tt.want)
		}
	}
}

func TestAssociation(t *testing.T) {
	tests := []struct {
		name string
		t    table
		want float64
	}{
		// P(X >= 3) = (C(4,3)C(4,1) + C(4,4)C(4,0)) / C(8,4) = 17/70.
		{"fisher one-sided", table{{3, 1}, {1, 3}}, 17.0 / 70},
		{"negative association", table{{1, 3}, {3, 1}}, 1},
		// z = (ad-bc) sqrt(n/(r0 r1 c0 c1)), p = erfc(z/√2)/2: z = 3.1225
		// and z = 18.041.
		{"normal", table{{90, 30}, {40, 35}}, 0.0008966135759250315},
		{"normal, far tail", table{{900, 100}, {20, 80}}, 4.629843176468047e-73},
	}
	for _, tt := range tests {
		if got := association(tt.t); !near(got, tt.want) {
			t.Errorf("%s: association(%v) = %.6g, want %.6g", tt.name, tt.t, got, tt.want)
		}
	}
}
