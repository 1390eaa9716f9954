package reporter

import (
	_ "embed"
	"html/template"
	"io"
	"maps"
	"slices"

	"github.com/augur-dev/augur/evaluator"
)

// Timeline is what the HTML report draws besides the report itself: when
// each reported almost-invariant fails and which snapshots carry which
// tags, as positions among the trace's snapshots.
type Timeline struct {
	Snapshots  int              // snapshots in the trace
	Violations map[string][]int // property id → positions of its violating snapshots, increasing
	Tags       map[string][]int // tag → positions of the snapshots that carry it, increasing
}

// timelineWidth is the width of a drawn timeline in SVG units: one unit
// covers Snapshots/timelineWidth snapshots.
const timelineWidth = 800

//go:embed report.html.tmpl
var htmlTemplate string

var htmlReport = template.Must(template.New("report").Funcs(template.FuncMap{
	"rate":       FormatRate,
	"witness":    evaluator.Witness.String,
	"tags":       formatTags,
	"summary":    Candidates.summary,
	"inBaseline": Candidates.inBaseline,
	"section":    sectionTitle,
}).Parse(htmlTemplate))

// lane is one row of a drawn timeline: the x of every unit with at least
// one marked snapshot.
type lane struct {
	Label string
	Xs    []int
}

// htmlEntry is an entry with its timeline lanes.
type htmlEntry struct {
	*Entry
	Lanes []lane
}

// WriteHTML writes r as a self-contained HTML page. With r.Timeline it
// draws, under each almost-invariant, the snapshots where it fails above
// the snapshots of each tag among its violations' (steady aside), so that
// one sees whether the violations line up with, say, an injected bug.
func (r *Report) WriteHTML(w io.Writer) error {
	tl := r.Timeline
	data := struct {
		*Report
		Width            int
		AlmostInvariants []htmlEntry
	}{Report: r, Width: timelineWidth}
	for _, e := range r.AlmostInvariants {
		he := htmlEntry{Entry: e}
		if tl != nil && tl.Snapshots > 0 {
			he.Lanes = append(he.Lanes, lane{"violations", units(tl.Violations[e.ID], tl.Snapshots)})
			for _, tag := range slices.Sorted(maps.Keys(e.ViolatingTags)) {
				if tag != "steady" {
					he.Lanes = append(he.Lanes, lane{tag, units(tl.Tags[tag], tl.Snapshots)})
				}
			}
		}
		data.AlmostInvariants = append(data.AlmostInvariants, he)
	}
	return htmlReport.Execute(w, data)
}

// units maps snapshot positions to the distinct timeline units they fall
// in.
func units(pos []int, snapshots int) []int {
	var xs []int
	for _, p := range pos {
		x := p * timelineWidth / snapshots
		if len(xs) == 0 || xs[len(xs)-1] != x {
			xs = append(xs, x)
		}
	}
	return xs
}
