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
		if !standsOut(q, holdRatio) || q.During != "" || q.RareValue || q.StartUp {
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
