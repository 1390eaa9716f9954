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
// while the run starts up (StartUp).
// Everything else keeps its order.
func refinedFirst(es []*Entry, holdRatio float64) {
	byText := make(map[string]*Entry, len(es))
	pos := make(map[*Entry]int, len(es))
	for i, e := range es {
		byText[e.Text] = e
		pos[e] = i
	}
	// Q's ExplainedBy are the refinements the or-effect test kept.
	refined := map[*Entry][]*Entry{} // the entries each one refines, in rank order
	for _, q := range es {
		if !forward(q, holdRatio) {
			continue
		}
		for _, t := range q.ExplainedBy {
			if p := byText[t]; p != nil && pos[p] < pos[q] {
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

// forward reports whether q may be brought forward to just before a
// refinement: it stands out, and is not listed after the others for
// another reason.
func forward(q *Entry, holdRatio float64) bool {
	return standsOut(q, holdRatio) && q.During == "" && !q.RareValue && !q.StartUp
}

// refinedBeforeUnseen finds, with a baseline, the entries of es that fail
// far more often here than there (tier 1) and that a listed refinement
// never failing there (tier 0) refines, and moves them to tier 0. It
// returns, for each, the first such refinement in es's order, before
// which placeRefined lists it. Without this, the tiers would undo
// refinedFirst: the refinement, which fails only where the simple
// property does and never in the good run, would stay near the top, and
// the property a person would write, failing at the same moments and at
// the good run's few legitimate ones, would follow every anomaly the good
// run does not show. One failing here no more often than there is how the
// system behaves: its refinement stays at its own rank.
func refinedBeforeUnseen(es []*Entry, tier map[string]int, holdRatio float64) map[*Entry]*Entry {
	pos := make(map[string]int, len(es))
	for i, e := range es {
		pos[e.Text] = i
	}
	before := map[*Entry]*Entry{}
	for _, q := range es {
		if tier[q.Text] != 1 || !forward(q, holdRatio) {
			continue
		}
		first := -1
		for _, t := range q.ExplainedBy {
			if i, ok := pos[t]; ok && tier[t] == 0 && (first < 0 || i < first) {
				first = i
			}
		}
		if first >= 0 {
			before[q] = es[first]
			tier[q.Text] = 0
		}
	}
	return before
}

// placeRefined moves each entry q of before to just before before[q]
// (q's ListedWith), keeping the others' order, and keeps Refines true: set on the
// refinement just after the simpler property it refines, cleared on a
// refinement whose simpler property the baseline's tiers have moved
// elsewhere.
func placeRefined(es []*Entry, before map[*Entry]*Entry) {
	if len(before) > 0 {
		at := make(map[*Entry][]*Entry, len(before))
		for _, q := range es { // in es's order
			if p := before[q]; p != nil {
				at[p] = append(at[p], q)
			}
		}
		out := make([]*Entry, 0, len(es))
		for _, e := range es {
			if before[e] != nil {
				continue
			}
			for _, q := range at[e] {
				q.ListedWith = e.Text
				e.Refines = q.Text // the last, just before e
			}
			out = append(out, at[e]...)
			out = append(out, e)
		}
		copy(es, out)
	}
	for i, e := range es {
		if e.Refines != "" && (i == 0 || es[i-1].Text != e.Refines) {
			e.Refines = ""
		}
	}
}
