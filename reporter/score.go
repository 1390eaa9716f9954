package reporter

import (
	"slices"
	"strings"
)

// A TagScore is how a report fares on one bug tag.
type TagScore struct {
	Tag      string
	Relevant int // relevant properties in the top k
	First    int // rank of the first relevant property, 0 if none
}

// Relevant reports whether most of e's violating snapshots carry tag.
func Relevant(e *Entry, tag string) bool {
	return e.ViolatingSnapshots > 0 && 2*e.ViolatingTags[tag] > e.ViolatingSnapshots
}

// Score scores the top k almost-invariants of rep on every bug tag
// that some property's violating snapshots carry.
func Score(rep *Report, k int, tags []string) []TagScore {
	tags = slices.Clone(tags)
	for _, e := range rep.AlmostInvariants {
		for t := range e.ViolatingTags {
			if strings.HasPrefix(t, "bug:") && !slices.Contains(tags, t) {
				tags = append(tags, t)
			}
		}
	}
	slices.Sort(tags)
	var out []TagScore
	for _, t := range tags {
		s := TagScore{Tag: t}
		for i, e := range rep.AlmostInvariants {
			if !Relevant(e, t) {
				continue
			}
			if s.First == 0 {
				s.First = i + 1
			}
			if i < k {
				s.Relevant++
			}
		}
		out = append(out, s)
	}
	return out
}
