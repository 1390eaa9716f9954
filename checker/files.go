package checker

import (
	"context"
	"fmt"
	"io"

	"github.com/augur-dev/augur/trace"
)

// FilesOptions configure [CheckFiles]; they are augur check's arguments
// and flags.
type FilesOptions struct {
	Checks, Trace string // the checks file and the trace
	// Spec is the spec the checks are written against; "" means the
	// checks file's, else one made from the trace's variables.
	Spec   string
	Format string // text or json
	// MaxWitnesses is the number of violating snapshots shown per check;
	// 0 shows none (every violation is still counted).
	MaxWitnesses int
	Workers      int // goroutines evaluating snapshots; 0: every CPU
}

// CheckFiles checks every snapshot of the trace o.Trace against the
// checks file o.Checks, writes the results to w in o.Format, and reports
// whether a check was violated: augur check.
func CheckFiles(ctx context.Context, w io.Writer, o FilesOptions) (violated bool, err error) {
	if o.Format != "text" && o.Format != "json" {
		return false, fmt.Errorf("unknown format %q (want text or json)", o.Format)
	}
	maxWitnesses := o.MaxWitnesses
	if maxWitnesses == 0 {
		maxWitnesses = -1 // none shown; every violation is still counted
	}
	f, err := Load(o.Checks)
	if err != nil {
		return false, err
	}
	tr, err := trace.Open(o.Trace)
	if err != nil {
		return false, err
	}
	defer tr.Close()
	specPath := o.Spec
	if specPath == "" {
		specPath = f.Spec
	}
	spec, err := SpecFor(specPath, tr)
	if err != nil {
		return false, err
	}
	results, err := Run(ctx, tr, spec, f, maxWitnesses, o.Workers)
	if err != nil {
		return false, err
	}
	if o.Format == "json" {
		err = WriteJSON(w, results)
	} else {
		err = WriteText(w, o.Trace, tr.NumSnapshots(), results)
	}
	for i := range results {
		violated = violated || results[i].Failed()
	}
	return violated, err
}
