package reporter

// refinedFirst lists, before each entry P of es (representatives in rank
// order), the entries standing out at holdRatio that P refines and that
// rank below it, and sets P's Refines to the last of them. P refines Q
// when it is a syntactic weakening P = Q or R: it fails only where Q
// does, so its anomaly is part of Q's. Such a P is an anomaly of its own
// only when R explains Q's violations (the or-effect test keeps it: R
// holds where Q fails far beyond chance), and then it fails at fewer
// moments than Q and ranks above it. Whether R is the reason why Q's
// violations are legitimate or a co-symptom of the bug that breaks Q, no
// test of the counts can tell; listing Q just before P shows the simple
// property a person would write at the rank of its most telling part,
// and costs P one place, where listing P after Q would push a bug that
// only P pins down down to Q's rank. An entry that fails during
// another's episodes (During, see duringLast) is not brought forward,
// nor a rare value (RareValue), listed apart, nor one that fails only
// while the run starts up (StartUp). With a baseline, only entries of one
// tier (baselineTiers; nil is one tier) are paired: the tiers order the
// list after this, and would separate the pair again, leaving Q at a
// place only P had earned; unseenRefinements pairs across them.
// Everything else keeps its order.
func refinedFirst(es []*Entry, holdRatio float64, tier map[string]int) {
	byText := make(map[string]*Entry, len(es))
	pos := make(map[*Entry]int, len(es))
	for i, e := range es {
		byText[e.Text] = e
		pos[e] = i
	}
	// Q's ExplainedBy are the refinements the or-effect test kept.
	refined := map[*Entry][]*Entry{} // the entries each one refines, in rank order
	for _, q := range es {
		if !mayComeForward(q, holdRatio) {
			continue
		}
		for _, t := range q.ExplainedBy {
			if p := byText[t]; p != nil && pos[p] < pos[q] && tier[p.Text] == tier[q.Text] {
				refined[p] = append(refined[p], q)
			}
		}
	}
	if len(refined) == 0 {
		return
	}
	out := make([]*Entry, 0, len(es))
	placed := make(map[*Entry]bool, len(es))
	var place func(*Entry)
	place = func(e *Entry) {
		placed[e] = true
		for _, q := range refined[e] {
			if !placed[q] {
				place(q) // q is simpler than e: no cycle
				e.Refines = q.Text
			}
		}
		out = append(out, e)
	}
	for _, e := range es {
		if !placed[e] {
			place(e)
		}
	}
	copy(es, out)
}

// mayComeForward reports whether e may be listed earlier for a
// refinement, or be the refinement another is listed with: it stands
// out, and is not listed after the others, or apart, for another reason.
func mayComeForward(e *Entry, holdRatio float64) bool {
	return standsOut(e, holdRatio) && e.During == "" && !e.RareValue && !e.StartUp
}

// unseenRefinements finds, with a baseline, the entries of es that fail
// far more often here than there (tier 1) and have a listed refinement
// that never fails there (tier 0), and returns, for each, the first such
// refinement in es's order, with which listWith lists it. Without this,
// the tiers would undo refinedFirst: the refinement, which fails only
// where the simple property does and never in the good run, would stay
// near the top, and the property a person would write, failing at the
// same moments and at the good run's few legitimate ones, would follow
// every anomaly the good run does not show. One failing there about as
// often as here is how the system behaves: it stays in its tier, and
// its refinement at its own rank.
func unseenRefinements(es []*Entry, tier map[string]int, holdRatio float64) map[*Entry]*Entry {
	pos := make(map[string]int, len(es))
	for i, e := range es {
		pos[e.Text] = i
	}
	with := map[*Entry]*Entry{}
	for _, q := range es {
		if tier[q.Text] != 1 || !mayComeForward(q, holdRatio) {
			continue
		}
		first := -1
		for _, t := range q.ExplainedBy {
			if i, ok := pos[t]; ok && tier[t] == 0 && mayComeForward(es[i], holdRatio) && (first < 0 || i < first) {
				first = i
			}
		}
		if first >= 0 {
			with[q] = es[first]
		}
	}
	return with
}

// listWith lists each entry q of with just before its refinement with[q]
// (ListedWith; several in es's order), and sets the refinement's Refines
// to the last. Where q stood before says little: in the tier of what
// fails in the baseline, or brought forward by refinedFirst for a
// refinement that fails there too. The refinements are never keys of
// with (they never fail in the baseline, what they refine does), so no
// entry is both moved and a place to move to.
func listWith(es []*Entry, with map[*Entry]*Entry) {
	if len(with) == 0 {
		return
	}
	moved := make(map[*Entry][]*Entry) // refinement → what moves before it, in es's order
	for _, q := range es {
		if p := with[q]; p != nil {
			q.ListedWith = p.Text
			moved[p] = append(moved[p], q)
		}
	}
	out := make([]*Entry, 0, len(es))
	for _, e := range es {
		if with[e] != nil {
			continue
		}
		for _, q := range moved[e] {
			out = append(out, q)
			e.Refines = q.Text // the last, just before e
		}
		out = append(out, e)
	}
	copy(es, out)
}

// refinesAdjacent clears the Refines of an entry no longer just after
// the property it refines, once the list is in its final order: steady
// entries first, or the baseline's tiers, may have moved one of them,
// and its line says "listed just before this one". It sets the
// RefinedBy of the entries still just before their refinement.
func refinesAdjacent(es []*Entry) {
	for i, e := range es {
		switch {
		case e.Refines == "":
		case i == 0 || es[i-1].Text != e.Refines:
			e.Refines = ""
		default:
			es[i-1].RefinedBy = e.Text
		}
	}
}
