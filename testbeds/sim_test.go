package testbeds

import "testing"

func TestParseFaults(t *testing.T) {
	d := DefaultFaults()
	f, err := ParseFaults(d.String(), Faults{})
	if err != nil || f != d {
		t.Errorf("ParseFaults(%q) = %+v, %v; want %+v", d, f, err, d)
	}
	f, err = ParseFaults("drop=0.5,down=7", d)
	if err != nil || f.Drop != 0.5 || f.Down != 7 || f.Crash != d.Crash {
		t.Errorf("ParseFaults(drop=0.5,down=7) = %+v, %v", f, err)
	}
	if f, err := ParseFaults("none", d); err != nil || f != (Faults{}) {
		t.Errorf("ParseFaults(none) = %+v, %v", f, err)
	}
	for _, bad := range []string{"drop", "drop=2", "bogus=0.1", "down=-1"} {
		if _, err := ParseFaults(bad, d); err == nil {
			t.Errorf("ParseFaults(%q) succeeded", bad)
		}
	}
}
