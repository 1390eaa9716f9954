package reporter

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// table is a 2×2 contingency table: n[a][b] counts bindings where the
// first group's truth is a and the second's is b (index 1 = true).
type table [2][2]float64

// counts returns t's cells as integers.
func (t table) counts() [2][2]int64 {
	return [2][2]int64{{int64(t[0][0]), int64(t[0][1])}, {int64(t[1][0]), int64(t[1][1])}}
}

// independence returns the two-sided p-value of the hypothesis that the
// rows and columns of t are independent. A table with an empty row or
// column carries no evidence of dependence: its p-value is 1.
func independence(t table) float64 {
	r0, r1 := t[0][0]+t[0][1], t[1][0]+t[1][1]
	c0, c1 := t[0][0]+t[1][0], t[0][1]+t[1][1]
	n := r0 + r1
	if r0 == 0 || r1 == 0 || c0 == 0 || c1 == 0 {
		return 1
	}
	if min(r0, r1)*min(c0, c1)/n < 5 {
		return fisherTwoSided(t)
	}
	var chi float64
	for i, r := range [2]float64{r0, r1} {
		for j, c := range [2]float64{c0, c1} {
			e := r * c / n
			d := t[i][j] - e
			chi += d * d / e
		}
	}
	return distuv.ChiSquared{K: 1}.Survival(chi)
}

// association returns the one-sided p-value of the hypothesis that rows
// and columns are not positively associated: small values mean the column
// holds more often in row 1 than in row 0.
func association(t table) float64 {
	r0, r1 := t[0][0]+t[0][1], t[1][0]+t[1][1]
	c0, c1 := t[0][0]+t[1][0], t[0][1]+t[1][1]
	n := r0 + r1
	if r0 == 0 || r1 == 0 || c0 == 0 || c1 == 0 {
		return 1
	}
	if t[1][1]/r1 <= t[0][1]/r0 {
		return 1
	}
	if min(r0, r1)*min(c0, c1)/n < 5 {
		return fisherUpper(t)
	}
	// Signed square root of the chi-square statistic is standard normal
	// under independence. Erfc keeps the far tail, where 1-Φ(z) would
	// round to 0.
	z := (t[1][1]*t[0][0] - t[1][0]*t[0][1]) * math.Sqrt(n/(r0*r1*c0*c1))
	return math.Erfc(z/math.Sqrt2) / 2
}

// hypergeom returns log P(X = k) for the count of the cell [1][1] given
// the margins.
func hypergeom(k, r1, c1, n float64) float64 {
	return lchoose(c1, k) + lchoose(n-c1, r1-k) - lchoose(n, r1)
}

func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}

// support returns the range of the [1][1] cell given the margins.
func support(t table) (lo, hi, r1, c1, n float64) {
	r1 = t[1][0] + t[1][1]
	c1 = t[0][1] + t[1][1]
	n = t[0][0] + t[0][1] + t[1][0] + t[1][1]
	return math.Max(0, r1+c1-n), math.Min(r1, c1), r1, c1, n
}

// fisherUpper is Fisher's exact test, one-sided: P(X >= observed).
func fisherUpper(t table) float64 {
	_, hi, r1, c1, n := support(t)
	var p float64
	for k := t[1][1]; k <= hi; k++ {
		p += math.Exp(hypergeom(k, r1, c1, n))
	}
	return math.Min(p, 1)
}

// fisherTwoSided is Fisher's exact test, two-sided: the probability of
// tables at most as likely as the observed one.
func fisherTwoSided(t table) float64 {
	lo, hi, r1, c1, n := support(t)
	obs := hypergeom(t[1][1], r1, c1, n)
	var p float64
	for k := lo; k <= hi; k++ {
		if l := hypergeom(k, r1, c1, n); l <= obs+1e-7 {
			p += math.Exp(l)
		}
	}
	return math.Min(p, 1)
}
