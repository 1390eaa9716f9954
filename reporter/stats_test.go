package reporter

import (
	"math"
	"testing"
)

func TestIndependence(t *testing.T) {
	tests := []struct {
		name string
		t    table
		want float64
	}{
		// chi² = n(ad-bc)²/(r0 r1 c0 c1) = 0.79365, p = 0.37299.
		{"chi-square", table{{10, 20}, {30, 40}}, 0.37299},
		// Small counts: Fisher's exact test, two-sided.
		{"fisher", table{{3, 1}, {1, 3}}, 0.48571},
		{"empty row", table{{0, 0}, {5, 7}}, 1},
		{"perfect dependence", table{{500, 0}, {0, 500}}, 0},
	}
	for _, tt := range tests {
		if got := independence(tt.t); math.Abs(got-tt.want) > 1e-4 {
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
		// z = (ad-bc) sqrt(n/(r0 r1 c0 c1)) = 5.2223.
		{"normal", table{{900, 100}, {20, 80}}, 8.8e-8},
	}
	for _, tt := range tests {
		if got := association(tt.t); math.Abs(got-tt.want) > 1e-4 {
			t.Errorf("%s: association(%v) = %.6g, want %.6g", tt.name, tt.t, got, tt.want)
		}
	}
}
