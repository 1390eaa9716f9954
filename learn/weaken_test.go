package learn

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/grammar"
	"github.com/augur-dev/augur/specs"
)

// xyOrEq is xy with a literal more, true at half of the hand-built runs'
// bindings: node a has x == y at the even snapshots, node b at the odd
// ones.
const xyOrEq = "forall n0 in nodes: n0.x <= n0.y or n0.x == n0.y"

// learnGood learns from two good hand-built runs.
func learnGood(t *testing.T) (*Result, string) {
	t.Helper()
	dir := t.TempDir()
	spec := writeSpec(t, dir)
	good := run{n: 40, itemsEvery: 2}
	res, err := Learn(context.Background(), spec, []string{good.write(t, dir, "run0"), good.write(t, dir, "run1")}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res, spec
}

// TestWeaken checks that the weakenings of a learned check are the check
// with one literal more, that they hold in the runs, that none is true by
// the spec alone, and that they come strongest first, Watched the share
// of the check's one-literal bindings their literal leaves watched.
func TestWeaken(t *testing.T) {
	res, _ := learnGood(t)
	ws, err := res.Weaken(context.Background(), xy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) == 0 {
		t.Fatalf("no weakening of %s", xy)
	}
	texts := make([]string, len(ws))
	for i, w := range ws {
		texts[i] = w.Text
		if len(w.Property.Matrix) != 2 || !strings.Contains(w.Text, "n0.x <= n0.y or ") && !strings.HasSuffix(w.Text, " or n0.x <= n0.y") {
			t.Errorf("%s is not %s with one literal more", w.Text, xy)
		}
		if w.Weakens != xy || w.HoldingRate != 1 || w.Support < DefaultMinSupport {
			t.Errorf("%s: weakens %q, holding rate %g, support %g", w.Text, w.Weakens, w.HoldingRate, w.Support)
		}
		if i > 0 && w.Watched > ws[i-1].Watched {
			t.Errorf("%s (watched %g) after %s (%g)", w.Text, w.Watched, ws[i-1].Text, ws[i-1].Watched)
		}
	}
	i := slices.Index(texts, xyOrEq)
	if i < 0 {
		t.Fatalf("%s is not among the weakenings %q", xyOrEq, texts)
	}
	if ws[i].Watched != 0.5 {
		t.Errorf("%s watches %g of %s's bindings, want 0.5", xyOrEq, ws[i].Watched, xy)
	}
	spec, err := specs.Load(writeSpec(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	props := make([]*grammar.Property, len(ws))
	for i, w := range ws {
		props[i] = w.Property
	}
	trivial, err := TrueBySpec(spec, nil, props)
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range trivial {
		if tr {
			t.Errorf("%s is true by the spec alone", ws[i].Text)
		}
	}
}

// TestWeakenFreshNode checks that a weakening may quantify over one node
// more when the spec's max_nodes allows, and that a property of an
// exists quantifier has none.
func TestWeakenFreshNode(t *testing.T) {
	res, _ := learnGood(t)
	res.Spec.Generate.MaxNodes = 2
	ws, err := res.Weaken(context.Background(), xy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fresh := slices.ContainsFunc(ws, func(w *Weakening) bool { return slices.Equal(w.Property.NodeVars(), []string{"n0", "n1"}) })
	if !fresh {
		t.Errorf("no weakening of %s over two nodes", xy)
	}
	ws, err = res.Weaken(context.Background(), "exists n0 in nodes: n0.x <= n0.y", Options{})
	if err != nil || len(ws) != 0 {
		t.Errorf("weakenings of an exists property: %d, %v; want none", len(ws), err)
	}
}

// TestAssignments checks the injective maps of k variables into n
// targets.
func TestAssignments(t *testing.T) {
	var got []string
	assignments(2, 3, func(to []int) { got = append(got, string(rune('0'+to[0]))+string(rune('0'+to[1]))) })
	if want := []string{"01", "02", "10", "12", "20", "21"}; !slices.Equal(got, want) {
		t.Errorf("assignments(2, 3) = %q, want %q", got, want)
	}
}

// stallRunner is a system whose only run reaches, unguarded, a state
// where node a has x > y: a guard whose checks fail there refuses it for
// good, and the run stalls (no progress); otherwise it makes 100.
func stallRunner(t *testing.T, spec *specs.Spec) (Runner, *int) {
	runs := 0
	return func(_ context.Context, path string, _ uint64) (Outcome, error) {
		runs++
		if path == "" {
			return Outcome{Progress: 100}, nil
		}
		f, err := checker.Load(path)
		if err != nil {
			return Outcome{}, err
		}
		ch, err := checker.Compile(spec, f)
		if err != nil {
			return Outcome{}, err
		}
		s := ch.NewSnapshot()
		if err := s.Set("a", map[string]any{"x": int64(2), "y": int64(1), "items": []any{}}); err != nil {
			return Outcome{}, err
		}
		vs := s.Check()
		if len(vs) == 0 {
			return Outcome{Progress: 100}, nil
		}
		return Outcome{Progress: 0, BlockedBy: map[string]int{vs[0].Check.Name: 7}}, nil
	}, &runs
}

// TestVetStalls checks that a check that stalls the guarded system is
// replaced by its strongest weakening that does not, and that the rest
// stay as they are.
func TestVetStalls(t *testing.T) {
	res, specPath := learnGood(t)
	spec, err := specs.Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	before := map[string]bool{}
	for _, c := range res.Checks {
		before[c.Text] = true
	}
	if !before[xy] {
		t.Fatalf("%s not learned", xy)
	}
	ws, err := res.Weaken(context.Background(), xy, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The strongest weakening that holds where node a has x > y.
	var want string
	for _, w := range ws {
		if w.Text != xyOrEq && holdsAtXGtY(t, spec, w.Text) {
			want = w.Text
			break
		}
	}
	run, _ := stallRunner(t, spec)
	var told []Unstalled
	us, err := VetStalls(context.Background(), res, specPath, Stalls{Seeds: []uint64{1, 2}, Run: run, Done: func(u Unstalled) { told = append(told, u) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(us) != 1 || us[0].Property != xy || us[0].By == nil || us[0].By.Text != want || us[0].Stalled != 2 || us[0].Refused != 14 {
		t.Fatalf("unstalled %+v, want %s replaced by %s after stalling 2 runs with 14 refusals", us, xy, want)
	}
	if len(told) != 1 {
		t.Errorf("Done told of %d checks, want 1", len(told))
	}
	after := map[string]*Check{}
	for _, c := range res.Checks {
		after[c.Text] = c
	}
	if after[xy] != nil || after[want] == nil || after[want].Weakens != xy || len(after) != len(before) {
		t.Errorf("checks after: %d, %s kept %v, %s added %v; want %s replaced", len(after), xy, after[xy] != nil, want, after[want] != nil, xy)
	}
	if src := res.File(specPath, "out.yaml").Checks; !slices.ContainsFunc(src, func(c checker.Check) bool {
		return c.Property == want && strings.Contains(c.Source, "a weakening of "+xy)
	}) {
		t.Errorf("the replacement's source does not say what it weakens")
	}
}

// TestVetStallsDrops checks that a check none of whose weakenings keeps
// the system from stalling is dropped, and that a system that stalls
// whatever guards it loses every check.
func TestVetStallsDrops(t *testing.T) {
	res, specPath := learnGood(t)
	stall := func(_ context.Context, path string, _ uint64) (Outcome, error) {
		if path == "" {
			return Outcome{Progress: 10}, nil
		}
		f, err := checker.Load(path)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{BlockedBy: map[string]int{f.Checks[0].Name: 1}}, nil
	}
	res.Checks = res.Checks[:2]
	n := len(res.Checks)
	us, err := VetStalls(context.Background(), res, specPath, Stalls{Seeds: []uint64{1}, Run: stall})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Checks) != 0 || len(us) < n {
		t.Fatalf("%d checks left, %d replaced or dropped of %d; want all dropped", len(res.Checks), len(us), n)
	}
	for _, u := range us[len(us)-n:] {
		if u.By != nil {
			t.Errorf("%s replaced by %s, which stalls too", u.Property, u.By.Text)
		}
	}
}

// holdsAtXGtY reports whether property holds where node a has x > y.
func holdsAtXGtY(t *testing.T, spec *specs.Spec, property string) bool {
	t.Helper()
	ch, err := checker.Compile(spec, &checker.File{Checks: []checker.Check{{Name: "p", Property: property}}})
	if err != nil {
		t.Fatal(err)
	}
	s := ch.NewSnapshot()
	if err := s.Set("a", map[string]any{"x": int64(2), "y": int64(1), "items": []any{}}); err != nil {
		t.Fatal(err)
	}
	return len(s.Check()) == 0
}

// TestVetStallsPerEvent checks that progress is counted per event: a
// guarded run that reboots its system over and over, adding up as much
// progress as the unguarded run in a hundred times its events, stalls.
func TestVetStallsPerEvent(t *testing.T) {
	res, specPath := learnGood(t)
	res.Checks = res.Checks[:1]
	reboots := func(_ context.Context, path string, _ uint64) (Outcome, error) {
		if path == "" {
			return Outcome{Progress: 100, Steps: 1000}, nil
		}
		f, err := checker.Load(path)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Progress: 100, Steps: 100000, BlockedBy: map[string]int{f.Checks[0].Name: 1}}, nil
	}
	us, err := VetStalls(context.Background(), res, specPath, Stalls{Seeds: []uint64{1}, Run: reboots})
	if err != nil {
		t.Fatal(err)
	}
	if len(us) == 0 || len(res.Checks) != 0 {
		t.Errorf("%d checks replaced or dropped, %d left; want the run stalled and its check dropped", len(us), len(res.Checks))
	}
}
