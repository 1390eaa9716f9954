package cliflag

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func TestValues(t *testing.T) {
	var n, m, w, b int
	var d, p time.Duration
	f := pflag.NewFlagSet("test", pflag.ContinueOnError)
	IntP(f, &n, "n", "", 3, 1, "")
	Workers(f, &w)
	IntP(f, &m, "m", "m", 0, -1, "")
	IntIn(f, &b, "b", 2, 1, 10, "ten is plenty", "")
	Duration(f, &d, "d", time.Second, false, "")
	Duration(f, &p, "p", 0, true, "")
	if n != 3 || w != 0 || b != 2 || d != time.Second || f.Lookup("p").DefValue != "0" {
		t.Errorf("defaults n=%d d=%v p=%q", n, d, f.Lookup("p").DefValue)
	}
	if err := f.Parse([]string{"--n", "5", "-m", "-1", "--d", "0", "--p", "20ms", "--workers", "2", "--b", "10"}); err != nil {
		t.Fatal(err)
	}
	if n != 5 || m != -1 || d != 0 || p != 20*time.Millisecond || w != 2 || b != 10 {
		t.Errorf("parsed n=%d m=%d d=%v p=%v workers=%d b=%d", n, m, d, p, w, b)
	}
	for _, tt := range []struct{ arg, want string }{
		{"--n=0", `invalid argument "0" for "--n" flag: must be at least 1`},
		{"--n=x", `invalid argument "x" for "--n" flag: not an integer`},
		{"--b=11", `invalid argument "11" for "--b" flag: must be at most 10 (ten is plenty)`},
		{"--b=0", `invalid argument "0" for "--b" flag: must be at least 1`},
		{"--n=9223372036854775808", `invalid argument "9223372036854775808" for "--n" flag: not an integer`},
		{"--workers=-1", `invalid argument "-1" for "--workers" flag: must be at least 0`},
		{"--d=-1s", `invalid argument "-1s" for "--d" flag: must not be negative`},
		{"--p=0", `invalid argument "0" for "--p" flag: must be positive`},
		{"--p=soon", `invalid argument "soon" for "--p" flag: not a duration (such as 1.5s or 200ms)`},
	} {
		if err := f.Parse([]string{tt.arg}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.arg, err, tt.want)
		}
	}
}
