package planted

import "flag"

var (
	explore  = flag.Bool("explore", false, "run the exploratory tests")
	exploreN = flag.Int("explore-n", 20, "seeds the exploratory tests run")

	exploreDefault = flag.Bool("explore-default", false, "explore systems of the default size")
)
