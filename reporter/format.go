package reporter

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// FormatRate formats a holding or temporal rate with five decimals, or
// as many more (up to twelve, rounding down at the last) as show that it
// is below 1: a property violated once in 500,000 bindings must not read
// 1.00000, the rate of an invariant.
func FormatRate(h float64) string {
	const most = 12
	s := fmt.Sprintf("%.5f", h)
	for prec := 6; h < 1 && s[0] == '1'; prec++ {
		if prec == most {
			return fmt.Sprintf("%.*f", most, math.Floor(h*math.Pow10(most))/math.Pow10(most))
		}
		s = fmt.Sprintf("%.*f", prec, h)
	}
	return s
}

// Formats lists the names accepted by Write.
var Formats = []string{"text", "json", "md", "html"}

// Write writes r in the named format.
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "text":
		return r.WriteText(w)
	case "json":
		return r.WriteJSON(w)
	case "md":
		return r.WriteMarkdown(w)
	case "html":
		return r.WriteHTML(w)
	}
	return fmt.Errorf("unknown format %q (want %s)", format, strings.Join(Formats, ", "))
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes r for a person at a terminal: rank, holding rate,
// violations over bindings, the property, and its first witness.
func (r *Report) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "%s: %d snapshots, %d properties generated, %d evaluated, %d pruned\n",
		orDefault(r.System, "trace"), r.Snapshots, r.Properties.Generated, r.Properties.Evaluated, r.Properties.Pruned)
	fmt.Fprintf(b, "candidates: %s\n\n", r.Candidates.summary())
	if r.Baseline != "" {
		fmt.Fprintf(b, "baseline %s: %s\n\n", r.BaselineRuns(), r.Candidates.inBaseline())
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "warning: %s\n", w)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	// An entry names one of another section by that section's name: a
	// bare #K is of its own list.
	elsewhere := map[string]string{}
	for _, s := range []struct {
		name string
		es   []*Entry
	}{{"almost-invariant", r.AlmostInvariants}, {"rare value", r.RareValues}} {
		for _, e := range s.es {
			elsewhere[e.Text] = fmt.Sprintf("%s #%d", s.name, e.Rank)
		}
	}
	for _, s := range r.sections() {
		writeSection(b, s, elsewhere)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// BaselineRuns names the baseline's traces: the one, or all of them and
// how many.
func (r *Report) BaselineRuns() string {
	if len(r.Baselines) < 2 {
		return r.Baseline
	}
	return fmt.Sprintf("%s (%d runs)", strings.Join(r.Baselines, ", "), len(r.Baselines))
}

// sectionTitle is the heading of a section listing shown of total
// entries, in every format: "Almost-invariants (157, top 10)".
func sectionTitle(title string, shown, total int) string {
	if shown < total {
		return fmt.Sprintf("%s (%d, top %d)", title, total, shown)
	}
	return fmt.Sprintf("%s (%d)", title, total)
}

func writeSection(b *strings.Builder, s section, elsewhere map[string]string) {
	es := s.es
	b.WriteString(sectionTitle(s.title, len(es), s.total) + "\n")
	if len(es) == 0 {
		b.WriteString("  none\n\n")
		return
	}
	// The lines under an entry start after the first three columns, as
	// wide as their widest cell and the padding.
	rank, rates := 0, 0
	for _, e := range es {
		rank = max(rank, len(fmt.Sprintf("%3d", e.Rank)))
		rates = max(rates, len(fmt.Sprintf("%d/%d", e.Violations, e.Bindings)))
	}
	indent := rank + 2 + len("0.00000") + 2 + rates + 2
	refs := maps.Clone(elsewhere)
	refinedAt := make(map[string]int) // an entry listed before its refinement → the refinement's rank
	for _, e := range es {
		refs[e.Text] = fmt.Sprintf("#%d", e.Rank)
		if e.Refines != "" {
			refinedAt[e.Refines] = e.Rank
		}
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, e := range es {
		fmt.Fprintf(tw, "%3d\t%s\t%d/%d\t%s\n", e.Rank, FormatRate(e.HoldingRate), e.Violations, e.Bindings, e.Text)
		if s.witnesses && len(e.Witnesses) > 0 {
			fmt.Fprintf(tw, "\t\t\t  at %s\n", e.Witnesses[0].String())
		}
		if e.ViolatingSnapshots > 0 {
			fmt.Fprintf(tw, "\t\t\t  %s\n", violated(e))
		}
		if len(e.ExplainedBy) > 0 {
			fmt.Fprintf(tw, "\t\t\t%s\n", explainedBy(e.ExplainedBy, maxLine-indent))
		}
		if e.Refines != "" {
			fmt.Fprintf(tw, "\t\t\t  %s\n", naming("a longer form of", e.Refines, "a simpler property", ", listed just before this one: this fails only where that one does", refs, maxLine-indent))
		}
		if r, ok := refinedAt[e.Text]; ok && e.ListedWith == "" { // else the baseline's line says where
			fmt.Fprintf(tw, "\t\t\t  moved up above its own score to just before #%d, a longer form of it failing only where it does\n", r)
		}
		if e.During != "" {
			fmt.Fprintf(tw, "\t\t\t  %s\n", naming("fails during the episodes of", e.During, "another anomaly", ": ranked after the anomalies with moments of their own", refs, maxLine-indent))
		}
		if e.StartUp {
			fmt.Fprintf(tw, "\t\t\t  fails only while the run starts up, from its first snapshot: ranked after the others\n")
		}
		switch {
		case e.ListedWith != "":
			fmt.Fprintf(tw, "\t\t\t  %s\n", naming(fmt.Sprintf("fails in the baseline too (%s), far less often than here; listed with its longer form", plural(e.BaselineViolatingSnapshots, "snapshot")), e.ListedWith, "P", ", which never fails there", refs, maxLine-indent))
		case e.MoreThanBaseline:
			fmt.Fprintf(tw, "\t\t\t  fails in the baseline too (%s), far less often than here: ranked first of those\n", plural(e.BaselineViolatingSnapshots, "snapshot"))
		case e.BaselineViolatingSnapshots > 0:
			fmt.Fprintf(tw, "\t\t\t  fails in the baseline too (%s)\n", plural(e.BaselineViolatingSnapshots, "snapshot"))
		}
		if len(e.Equivalents) > 0 {
			fmt.Fprintf(tw, "\t\t\t  and %d equivalent\n", len(e.Equivalents))
		}
		switch n := len(e.AlsoFailsHere); {
		case n == 1:
			fmt.Fprintf(tw, "\t\t\t  and 1 more failing here (--format json names it)\n")
		case n > 1:
			fmt.Fprintf(tw, "\t\t\t  and %d more failing here (--format json lists them)\n", n)
		}
		for _, w := range e.Warnings {
			fmt.Fprintf(tw, "\t\t\t  warning: %s\n", w)
		}
	}
	tw.Flush()
	b.WriteString("\n")
}

// violated says how often e fails: its violating snapshots, the
// violation events that rank it (rarer first), and their tags. The
// holding rate in the columns counts bindings, which do not rank.
func violated(e *Entry) string {
	s := plural(e.ViolatingSnapshots, "violating snapshot")
	if e.ViolationEvents > 0 {
		s += ", " + plural(e.ViolationEvents, "violation event")
	}
	if len(e.ViolatingTags) > 0 {
		s += ", tagged " + formatTags(e.ViolatingTags)
	}
	return s
}

// maxExplainedBy is how many of the properties explaining an entry's
// violations the text report names: they can be dozens, each a line's
// length, and the JSON report lists them all.
const maxExplainedBy = 2

// maxLine bounds the lines of the text report that list properties.
const maxLine = 300

// explainedBy returns the line saying which properties explain an
// entry's violations, at most width characters long: the first of them
// (up to maxExplainedBy) that fit, and how many more there are.
func explainedBy(by []string, width int) string {
	for k := min(len(by), maxExplainedBy); k > 0; k-- {
		s := "  explained by " + strings.Join(by[:k], "; ")
		if k < len(by) {
			s += fmt.Sprintf("; and %d more (--format json lists them)", len(by)-k)
		}
		if utf8.RuneCountInString(s) <= width {
			return s
		}
	}
	if len(by) == 1 {
		return "  explained by 1 longer property (--format json names it)"
	}
	return fmt.Sprintf("  explained by %d longer properties (--format json lists them)", len(by))
}

// naming returns a line that names another entry: what, then the
// entry by its reference (refs: "#3", "rare value #1") when the report
// lists it, else by its text when the line fits in width characters,
// else as unnamed (the JSON names it); then why.
func naming(what, text, unnamed, why string, refs map[string]string, width int) string {
	if ref, ok := refs[text]; ok {
		return what + " " + ref + why
	}
	if s := what + " " + text + why; utf8.RuneCountInString(s) <= width {
		return s
	}
	return what + " " + unnamed + " (--format json names it)" + why
}

// formatTags renders tag counts, most frequent first.
func formatTags(tags map[string]int64) string {
	names := slices.Collect(maps.Keys(tags))
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(tags[b], tags[a]), strings.Compare(a, b))
	})
	parts := make([]string, len(names))
	for i, t := range names {
		parts[i] = fmt.Sprintf("%s×%d", t, tags[t])
	}
	return strings.Join(parts, " ")
}

// WriteMarkdown writes r as a Markdown document.
func (r *Report) WriteMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "# augur report: %s\n\n", orDefault(r.System, "trace"))
	fmt.Fprintf(b, "%d snapshots; %d properties generated, %d evaluated, %d pruned.\n",
		r.Snapshots, r.Properties.Generated, r.Properties.Evaluated, r.Properties.Pruned)
	fmt.Fprintf(b, "Candidates: %s.\n\n", r.Candidates.summary())
	if r.Baseline != "" {
		fmt.Fprintf(b, "Baseline `%s`: %s.\n\n", r.BaselineRuns(), r.Candidates.inBaseline())
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "> **Warning:** %s\n\n", w)
	}
	for _, s := range r.sections() {
		fmt.Fprintf(b, "## %s\n\n", sectionTitle(s.title, len(s.es), s.total))
		if len(s.es) == 0 {
			b.WriteString("None.\n\n")
			continue
		}
		b.WriteString("| rank | holding rate | violations / bindings | property | first witness |\n|---:|---:|---:|---|---|\n")
		for _, e := range s.es {
			wit := ""
			if len(e.Witnesses) > 0 {
				wit = e.Witnesses[0].String()
			}
			fmt.Fprintf(b, "| %d | %s | %d / %d | `%s` | %s |\n", e.Rank, FormatRate(e.HoldingRate), e.Violations, e.Bindings,
				mdCell(e.Text), mdCell(wit))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// A section is a list of entries of a report, as every format shows it.
type section struct {
	title     string
	es        []*Entry
	total     int  // of which es are the top
	witnesses bool // the text report shows the first witness of each
}

// sections returns the sections of r in the order of the reports.
func (r *Report) sections() []section {
	ss := []section{
		{"Almost-invariants", r.AlmostInvariants, r.Candidates.Listed, true},
		{"Invariants", r.Invariants, r.Candidates.Invariants, false},
	}
	if r.Baseline != "" {
		ss = slices.Insert(ss, 1, section{"Invariants of the baseline broken here", r.BrokenInvariants, r.Candidates.BrokenAnomalies, true})
	}
	if len(r.RareValues) > 0 {
		ss = slices.Insert(ss, len(ss)-1, section{"Rare values of one variable", r.RareValues, r.Candidates.ListedRareValues, true})
	}
	return ss
}

// summary says what the reporter found and how it grouped it.
func (c Candidates) summary() string {
	s := fmt.Sprintf("%d almost-invariants in %d anomalies (%d equivalent and %d more listed under a simpler one), %d invariants; %d dropped as or-effects",
		c.AlmostInvariants+c.RareValues+c.Equivalent+c.Grouped, c.Anomalies, c.Equivalent, c.Grouped, c.Invariants, c.OrEffect)
	if c.During > 0 {
		s += fmt.Sprintf("; %d ranked after the others as failing during another's episodes", c.During)
	}
	if c.StartUp > 0 {
		s += fmt.Sprintf("; %d ranked after the others as failing only while the run starts up", c.StartUp)
	}
	if c.NotStandingOut > 0 {
		s += fmt.Sprintf("; %d anomalies violated through a large share of the run, not listed", c.NotStandingOut)
	}
	return s
}

// mdCell escapes the pipes that would end a Markdown table cell.
func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// inBaseline says how many of the almost-invariants listed fail in the
// baseline too, and where they rank.
func (c Candidates) inBaseline() string {
	s := fmt.Sprintf("%d of the almost-invariants fail there too and are ranked last", c.InBaseline)
	switch c.MoreThanBaseline {
	case 0:
		return s
	case 1:
		s += ", the one that fails there far less often than here first"
	default:
		s += fmt.Sprintf(", the %d that fail there far less often than here first", c.MoreThanBaseline)
	}
	switch {
	case c.ListedWith == 0:
	case c.MoreThanBaseline == 1:
		s += ", but it is listed earlier, with a longer form of it that never fails there"
	case c.ListedWith == 1:
		s += "; 1 of those is listed earlier, with a longer form of it that never fails there"
	default:
		s += fmt.Sprintf("; %d of those are listed earlier, each with a longer form of it that never fails there", c.ListedWith)
	}
	return s
}
