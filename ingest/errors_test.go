package ingest

import (
	"testing"
)

func TestFieldPath(t *testing.T) {
	k := func(s string) seg { return seg{key: s, idx: -1} }
	i := func(n int) seg { return seg{idx: n} }
	tests := []struct {
		path []seg
		want string
	}{
		{nil, ""},
		{[]seg{k("nodes"), k("n3"), k("log"), i(2), k("term")}, "nodes.n3.log[2].term"},
		{[]seg{k("nodes"), k("10.0.0.1:80"), k("a_b-c")}, `nodes["10.0.0.1:80"].a_b-c`},
		{[]seg{k("nodes"), k("-x"), k(""), k("é")}, `nodes["-x"][""]["é"]`},
		{[]seg{k("tags"), i(0), i(1)}, "tags[0][1]"},
	}
	for _, tt := range tests {
		if got := fieldPath(tt.path); got != tt.want {
			t.Errorf("fieldPath(%v) = %s, want %s", tt.path, got, tt.want)
		}
	}
}
