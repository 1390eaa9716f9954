package reporter

import (
	"fmt"
	"slices"

	"github.com/augur-dev/augur/evaluator"
)

// A Fate is what the reporter made of one property of the pool: the
// answer to "why is it where it is, or absent", which augur explain
// prints. Build records the fates of Input.Explain.
type Fate struct {
	Text  string
	Stats *evaluator.Stats // its evaluation over the trace

	// NotCandidate says why it is no candidate (see NotCandidate); ""
	// when it is one, and the rest of the fate applies.
	NotCandidate string
	// Entry is its entry as a candidate: holding rate, violation events,
	// score.
	Entry *Entry
	// OrEffect lists the or-effect tests made of it; OrEffectDropped
	// says that they dropped it.
	OrEffect        []OrEffectTest
	OrEffectDropped bool
	// Anomaly is the representative of the anomaly it belongs to, itself
	// when it represents one; Role is "representative", "equivalent" or
	// "also fails here". Nil and "" for an invariant or a dropped
	// property.
	Anomaly *Entry
	Role    string
	// Order is its anomaly's place among all the anomalies of its list,
	// ranked (its rank under augur infer --all), from 1; 0 when it has
	// none.
	Order int
	// List is the report's list it belongs to: "almost_invariants",
	// "rare_values" (its anomaly's representative is a rare value) or
	// "invariants"; "" when it is dropped or no candidate.
	List string
	// Rank is the rank at which List lists it, or its anomaly's
	// representative; 0 when the report does not list it.
	Rank int
	// Place is the rank its anomaly would have in List with no size
	// limit, so that --top Place lists it; 0 when it is listed, or
	// left out for another reason.
	Place int
	// LeftOut says which rule left it out of the report; "" when it is
	// listed.
	LeftOut string

	// Broken is, with a baseline, its entry as an invariant of the
	// baseline that this run breaks (nil when it is not one), BrokenRep
	// the representative of its group there, and BrokenRank that
	// group's rank in the section, 0 when the section's size cut it;
	// BrokenPlace is then the rank the group would have with no size
	// limit, so that --top BrokenPlace lists it.
	Broken      *Entry
	BrokenRep   *Entry
	BrokenRank  int
	BrokenPlace int
}

// A trail records the fates of the properties asked for while Build
// runs; the zero trail, with nothing asked, records nothing.
type trail struct {
	byProp  map[int]*Fate
	byText  map[string]*Fate // by canonical text
	byEntry map[*Entry]*Fate
	order   []*Fate
}

// newTrail returns the trail of the properties of prog at the indices
// props.
func newTrail(prog *evaluator.Program, props []int) *trail {
	t := &trail{byProp: map[int]*Fate{}, byText: map[string]*Fate{}, byEntry: map[*Entry]*Fate{}}
	for _, i := range props {
		f, ok := t.byProp[i]
		if !ok {
			f = &Fate{}
			t.byProp[i] = f
			t.byText[prog.Props[i].Text] = f
		}
		t.order = append(t.order, f)
	}
	return t
}

// broken records the groups of the baseline's broken invariants, ranked
// in reps.
func (t *trail) broken(as []*anomaly, reps []*Entry) {
	if len(t.byText) == 0 {
		return
	}
	for _, a := range as {
		// cut ranked every representative before it cut the list.
		rank, place := a.rep.Rank, 0
		if !slices.Contains(reps, a.rep) {
			rank, place = 0, a.rep.Rank
		}
		for _, e := range append([]*Entry{a.rep}, a.members...) {
			if f, ok := t.byText[e.Text]; ok {
				f.Broken, f.BrokenRep, f.BrokenRank, f.BrokenPlace = e, a.rep, rank, place
			}
		}
	}
}

// notCandidate records that property i is no candidate, and why.
func (t *trail) notCandidate(i int, p *evaluator.Prop, st *evaluator.Stats, why string) {
	if f, ok := t.byProp[i]; ok {
		f.Text, f.Stats, f.NotCandidate = p.Text, st, why
	}
}

// candidate records the entry of property i, a candidate.
func (t *trail) candidate(i int, e *Entry) {
	if f, ok := t.byProp[i]; ok {
		f.Text, f.Entry, f.Stats = e.Text, e, e.stats
		t.byEntry[e] = f
	}
}

// anomaly records the anomaly of its members, after a.fold.
func (t *trail) anomaly(a *anomaly, moments map[*Entry][]uint64) {
	if f, ok := t.byEntry[a.rep]; ok {
		f.Anomaly, f.Role = a.rep, "representative"
	}
	for _, e := range a.members {
		f, ok := t.byEntry[e]
		if !ok {
			continue
		}
		f.Anomaly, f.Role = a.rep, "also fails here"
		if slices.Contains(a.rep.Equivalents, e.Text) {
			f.Role = "equivalent"
		}
	}
}

// ranked records the order of the anomalies, by their representatives,
// each in its list: the rare values apart from the others.
func (t *trail) ranked(reps []*Entry) {
	order := make(map[*Entry]int, len(reps))
	var n [2]int
	for _, e := range reps {
		n[b2i(e.RareValue)]++
		order[e] = n[b2i(e.RareValue)]
	}
	for _, f := range t.byEntry {
		if f.Anomaly != nil {
			f.Order = order[f.Anomaly]
		}
	}
}

// places records, before the report's lists are cut to its size, where
// each anomaly of lists stands in its list.
func (t *trail) places(lists ...[]*Entry) {
	if len(t.byEntry) == 0 {
		return
	}
	place := make(map[*Entry]int)
	for _, es := range lists {
		for i, e := range es {
			place[e] = i + 1
		}
	}
	for _, f := range t.byEntry {
		if f.Anomaly != nil {
			f.Place = place[f.Anomaly]
		}
	}
}

// fates completes the fates from the report as cut, and returns them in
// the order asked for.
func (t *trail) fates(r *Report, opts Options) []*Fate {
	for e, f := range t.byEntry {
		f.OrEffect, f.OrEffectDropped = e.orTests, e.drop
		switch {
		case e.drop:
			f.LeftOut = "dropped as an or-effect: no test showed that its other literals explain the violations of a simpler candidate, or that its literals depend on each other"
		case e.Violations == 0:
			f.List, f.Rank = "invariants", rankIn(r.Invariants, e)
			if f.Rank == 0 {
				f.LeftOut = fmt.Sprintf("an invariant beyond the report's size (%d)", opts.Size)
			}
		default:
			f.List, f.Rank = "almost_invariants", rankIn(r.AlmostInvariants, f.Anomaly)
			if f.Anomaly.RareValue {
				f.List, f.Rank = "rare_values", rankIn(r.RareValues, f.Anomaly)
			}
			switch {
			case f.Rank > 0:
				f.Place = 0
			case !opts.All && !standsOut(f.Anomaly, opts.HoldRatio):
				f.Place = 0
				list := "almost-invariants"
				if f.Anomaly.RareValue {
					list = "rare values"
				}
				f.LeftOut = fmt.Sprintf("its anomaly is violated through a large share of the run: temporal rate %.5f, below the hold ratio %g (augur infer --all lists it at rank %d of the %s)",
					f.Anomaly.TemporalRate, opts.HoldRatio, f.Order, list)
			default:
				f.LeftOut = fmt.Sprintf("its anomaly ranks %d, beyond the report's size (%d): --top %d lists it", f.Place, opts.Size, f.Place)
			}
		}
	}
	for _, f := range t.order {
		if f.NotCandidate != "" {
			f.LeftOut = "not a candidate: " + f.NotCandidate
		}
	}
	return t.order
}

// rankIn returns the rank of e in es, the report's list, or 0.
func rankIn(es []*Entry, e *Entry) int {
	if i := slices.Index(es, e); i >= 0 {
		return es[i].Rank
	}
	return 0
}
