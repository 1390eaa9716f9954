package reporter

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

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
		fmt.Fprintf(b, "baseline %s: %d of the almost-invariants fail there too and are ranked last\n\n", r.Baseline, r.Candidates.InBaseline)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "warning: %s\n", w.Message)
	}
	if len(r.Warnings) > 0 {
		b.WriteString("\n")
	}
	writeSection(b, "Almost-invariants", r.AlmostInvariants, r.Candidates.AlmostInvariants, true)
	if r.Baseline != "" {
		writeSection(b, "Invariants of the baseline broken here", r.BrokenInvariants, r.Candidates.BrokenAnomalies, true)
	}
	writeSection(b, "Invariants", r.Invariants, r.Candidates.Invariants, false)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeSection(b *strings.Builder, title string, es []*Entry, total int, witnesses bool) {
	fmt.Fprintf(b, "%s (%d", title, total)
	if len(es) < total {
		fmt.Fprintf(b, ", top %d", len(es))
	}
	b.WriteString(")\n")
	if len(es) == 0 {
		b.WriteString("  none\n\n")
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, e := range es {
		fmt.Fprintf(tw, "%3d\t%.5f\t%d/%d\t%s\n", e.Rank, e.HoldingRate, e.Violations, e.Bindings, e.Text)
		if witnesses && len(e.Witnesses) > 0 {
			fmt.Fprintf(tw, "\t\t\t  at %s\n", e.Witnesses[0].String())
		}
		if len(e.ViolatingTags) > 0 {
			fmt.Fprintf(tw, "\t\t\t  %s, tagged %s\n", plural(e.ViolatingSnapshots, "violating snapshot"), formatTags(e.ViolatingTags))
		}
		if n := len(e.ExplainedBy); n > 0 {
			by := e.ExplainedBy[:min(n, maxExplainedBy)]
			fmt.Fprintf(tw, "\t\t\t  explained by %s", strings.Join(by, "; "))
			if n > len(by) {
				fmt.Fprintf(tw, "; and %d more (--format json lists them)", n-len(by))
			}
			fmt.Fprintln(tw)
		}
		if e.BaselineViolatingSnapshots > 0 {
			fmt.Fprintf(tw, "\t\t\t  fails in the baseline too (%s)\n", plural(e.BaselineViolatingSnapshots, "snapshot"))
		}
		if len(e.Equivalents) > 0 {
			fmt.Fprintf(tw, "\t\t\t  and %d equivalent\n", len(e.Equivalents))
		}
		if len(e.AlsoFailsHere) > 0 {
			fmt.Fprintf(tw, "\t\t\t  and %d more failing here\n", len(e.AlsoFailsHere))
		}
		for _, w := range e.Warnings {
			fmt.Fprintf(tw, "\t\t\t  warning: %s\n", w)
		}
	}
	tw.Flush()
	b.WriteString("\n")
}

// maxExplainedBy is how many of the properties explaining an entry's
// violations the text report names: they can be dozens, each a line's
// length, and the JSON report lists them all.
const maxExplainedBy = 2

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
	fmt.Fprintf(b, "%d snapshots; %d properties generated, %d evaluated, %d pruned. ",
		r.Snapshots, r.Properties.Generated, r.Properties.Evaluated, r.Properties.Pruned)
	fmt.Fprintf(b, "Candidates: %s.\n\n", r.Candidates.summary())
	if r.Baseline != "" {
		fmt.Fprintf(b, "Baseline `%s`: %d of the almost-invariants fail there too and are ranked last.\n\n", r.Baseline, r.Candidates.InBaseline)
	}
	for _, w := range r.Warnings {
		fmt.Fprintf(b, "> **Warning:** %s\n\n", w.Message)
	}
	sections := []struct {
		title string
		es    []*Entry
	}{{"Almost-invariants", r.AlmostInvariants}, {"Invariants", r.Invariants}}
	if r.Baseline != "" {
		sections = slices.Insert(sections, 1, struct {
			title string
			es    []*Entry
		}{"Invariants of the baseline broken here", r.BrokenInvariants})
	}
	for _, s := range sections {
		fmt.Fprintf(b, "## %s\n\n", s.title)
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
			fmt.Fprintf(b, "| %d | %.5f | %d / %d | `%s` | %s |\n", e.Rank, e.HoldingRate, e.Violations, e.Bindings,
				mdCell(e.Text), mdCell(wit))
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// summary says what the reporter found and how it grouped it.
func (c Candidates) summary() string {
	s := fmt.Sprintf("%d almost-invariants in %d anomalies (%d equivalent and %d more listed under a simpler one), %d invariants; %d dropped as or-effects",
		c.AlmostInvariants+c.Equivalent+c.Grouped, c.Anomalies, c.Equivalent, c.Grouped, c.Invariants, c.OrEffect)
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
