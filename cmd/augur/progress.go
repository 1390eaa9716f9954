package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// progress reports how far a long run is: a bar when stderr is a
// terminal, otherwise a plain line every few seconds, so that CI logs stay
// readable.
type progress struct {
	p    *mpb.Progress
	bar  *mpb.Bar
	w    io.Writer
	what string
	last time.Time
	done int
}

// newProgress returns a reporter for total units of what, or nil when
// quiet. Its update method is safe on a nil receiver.
func newProgress(w io.Writer, what string, total int, quiet bool) *progress {
	if quiet {
		return nil
	}
	pr := &progress{w: w, what: what, last: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(40))
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(what), decor.CountersNoUnit(" %d/%d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageETA(decor.ET_STYLE_GO)),
		)
	}
	return pr
}

// update records that done of total units are finished.
func (pr *progress) update(done, total int) {
	if pr == nil {
		return
	}
	pr.done = done
	if pr.bar != nil {
		pr.bar.SetCurrent(int64(done))
		return
	}
	if now := time.Now(); now.Sub(pr.last) >= 5*time.Second {
		pr.last = now
		fmt.Fprintf(pr.w, "%s: %d/%d (%.0f%%)\n", pr.what, done, total, 100*float64(done)/float64(max(total, 1)))
	}
}

// stop ends the bar.
func (pr *progress) stop() {
	if pr == nil || pr.p == nil {
		return
	}
	pr.bar.Abort(false)
	pr.p.Wait()
}
