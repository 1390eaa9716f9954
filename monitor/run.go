package monitor

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/augur-dev/augur/checker"
	"github.com/augur-dev/augur/internal/safefile"
	"github.com/augur-dev/augur/specs"
	"github.com/augur-dev/augur/specs/spectrace"
)

// RunConfig configures [Run]: the files and the address of a monitor,
// as augur monitor takes them.
type RunConfig struct {
	Checks string // the checks file
	Spec   string // the spec the checks are written against; "" means the checks file's

	Listen    string // the address to listen on
	AddrFile  string // if not "", the address listened on is written here once listening
	TokenFile string // see [ReadToken]
	TLSCert   string // PEM files: serve HTTPS (see [LoadTLS])
	TLSKey    string
	MaxBody   string // the largest request body, such as 8MiB (see [ParseSize])
	// MaxInflight, MaxRecord and MaxHeld are Options.MaxInflight,
	// Options.MaxRecord and Options.MaxHeld as sizes; "" leaves the
	// option as it is.
	MaxInflight string
	MaxRecord   string
	MaxHeld     string

	// Options are the rest of the monitor's options; Run sets Checker,
	// Schema, Token, MaxBody and System from the fields above. Log also
	// receives what Run does: the address, the recording, the counts.
	Options Options
}

// Run serves a monitor of the checks in cfg.Checks until ctx is done,
// then makes the last cuts, closes the recording and returns the
// monitor's counts: augur monitor. It listens before it creates the
// recording, so that a monitor that cannot serve leaves none behind.
func Run(ctx context.Context, cfg RunConfig) (Stats, error) {
	opts := cfg.Options
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "augur monitor: "+format+"\n", args...)
		}
	}
	maxBody, err := ParseSize(cfg.MaxBody)
	if err == nil && maxBody > 1<<30 {
		// A push's body is read into one allocation of its length.
		err = fmt.Errorf("%s is over 1GiB", cfg.MaxBody)
	}
	if err != nil {
		return Stats{}, fmt.Errorf("--max-body: %w", err)
	}
	if cfg.MaxInflight != "" {
		if opts.MaxInflight, err = ParseSize(cfg.MaxInflight); err != nil {
			return Stats{}, fmt.Errorf("--max-inflight: %w", err)
		}
	}
	if cfg.MaxRecord != "" {
		n, err := ParseSize(cfg.MaxRecord)
		if err == nil && n > 1<<30 {
			err = fmt.Errorf("%s is over 1GiB", cfg.MaxRecord)
		}
		if err != nil {
			return Stats{}, fmt.Errorf("--max-record: %w", err)
		}
		opts.MaxRecord = int(n)
	}
	if cfg.MaxHeld != "" {
		if opts.MaxHeld, err = ParseSize(cfg.MaxHeld); err != nil {
			return Stats{}, fmt.Errorf("--max-held: %w", err)
		}
	}
	tlsConfig, err := LoadTLS(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return Stats{}, err
	}
	if opts.Token, err = ReadToken(cfg.TokenFile); err != nil {
		return Stats{}, err
	}
	f, err := checker.Load(cfg.Checks)
	if err != nil {
		return Stats{}, err
	}
	specPath := cfg.Spec
	if specPath == "" {
		specPath = f.Spec
	}
	if specPath == "" {
		return Stats{}, fmt.Errorf("%s names no spec: give --spec (the monitor takes the variables and their types from it)", cfg.Checks)
	}
	spec, err := specs.Load(specPath)
	if err != nil {
		return Stats{}, err
	}
	if opts.Schema, err = spectrace.Schema(spec); err != nil {
		return Stats{}, err
	}
	opts.CheckValue = spec.EnumCheck()
	if opts.Checker, err = checker.Compile(spec, f); err != nil {
		return Stats{}, err
	}
	opts.MaxBody, opts.System = maxBody, spec.System
	ln, url, warning, err := Listen(cfg.Listen, tlsConfig)
	if err != nil {
		return Stats{}, err
	}
	defer ln.Close()
	if warning != "" {
		logf("warning: %s", warning)
	}
	m, err := New(opts)
	if err != nil {
		return Stats{}, err
	}
	if cfg.AddrFile != "" {
		// Written once the monitor can serve, so that a failed start
		// leaves the file as it was; requests wait in the listener's
		// queue until the monitor serves them.
		err := safefile.Write(cfg.AddrFile, 0o644, func(w io.Writer) error {
			_, err := io.WriteString(w, ln.Addr().String()+"\n")
			return err
		})
		if err != nil {
			m.abort()
			return Stats{}, fmt.Errorf("--addr-file: %w", err)
		}
	}
	logf("%s of %s, listening on %s", plural(int64(len(opts.Checker.Checks())), "check"), cfg.Checks, url)
	if opts.Record != "" {
		logf("recording to %s (journal %s.journal.jsonl)", opts.Record, strings.TrimSuffix(opts.Record, "/"))
	}
	err = Serve(ctx, ln, m, ServeOptions{TLS: tlsConfig})
	s := m.Stats()
	logf("%s (%d late), %s checked (%d incomplete), %s",
		plural(s.Records, "record"), s.Late, plural(s.Cuts, "cut"), s.Incomplete, plural(s.Violations, "violation"))
	if err != nil {
		return s, err
	}
	if opts.Record != "" {
		logf("recorded %s", opts.Record)
	}
	return s, nil
}

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// abort undoes New for a monitor that will not serve: it removes the
// recording New created and ends the violation output.
func (m *Monitor) abort() {
	if m.rec != nil {
		m.rec.discard()
	}
	m.hub.close()
}
