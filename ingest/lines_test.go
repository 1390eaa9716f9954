package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/augur-dev/augur/internal/memtest"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // beyond the bufio buffer
	tests := []struct {
		name  string
		input string
		max   int
		want  []string // lines; a final "ERR msg" for an error
	}{
		{"empty", "", 0, nil},
		{"one line without newline", "a", 0, []string{"a"}},
		{"trailing newline", "a\nb\n", 0, []string{"a", "b"}},
		{"blank lines kept", "\n\na\n\n", 0, []string{"", "", "a", ""}},
		{"crlf", "a\r\nb\r\n", 0, []string{"a\r", "b\r"}},
		{"bom on first line only", "\xef\xbb\xbfa\n\xef\xbb\xbfb", 0, []string{"a", "\xef\xbb\xbfb"}},
		{"long line", long + "\nb", 0, []string{long, "b"}},
		{"long last line", "a\n" + long, 0, []string{"a", long}},
		{"at the limit", "abcd\nabcd", 4, []string{"abcd", "abcd"}},
		{"over the limit", "abcd\nabcde\n", 4, []string{"abcd", "ERR in.jsonl:2: line longer than 4 bytes"}},
		{"over the limit at EOF", "abcde", 4, []string{"ERR in.jsonl:1: line longer than 4 bytes"}},
		{"long over the limit", "a\n" + long, 100 << 10, []string{"a", "ERR in.jsonl:2: line longer than 102400 bytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte per read exercises the reassembly of lines.
			for _, r := range []io.Reader{strings.NewReader(tt.input), iotest.OneByteReader(strings.NewReader(tt.input))} {
				lr := newLineReader("in.jsonl", r)
				if tt.max > 0 {
					lr.max = tt.max
				}
				got := readLines(lr)
				if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
					t.Errorf("lines = %.200q, want %.200q", got, tt.want)
				}
			}
		})
	}
}

func TestLineReaderReadError(t *testing.T) {
	boom := errors.New("boom")
	lr := newLineReader("in.jsonl", io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(boom)))
	if line, err := lr.next(); err != nil || string(line) != "a" {
		t.Fatalf("next = %q, %v", line, err)
	}
	_, err := lr.next()
	if !errors.Is(err, boom) || err.Error() != "in.jsonl:2: read: boom" {
		t.Errorf("err = %v", err)
	}
}

// A long line of an input that can be read at an offset is measured
// before it is read, and kept in one allocation of its size; one over the
// limit is refused without being kept.
func TestLineReaderLongLineOnce(t *testing.T) {
	const size = 4 << 20
	long := strings.Repeat("x", size)
	lr := newLineReader("in.jsonl", strings.NewReader("a\n"+long+"\nb\n"))
	var lines []string
	n := memtest.Allocated(func() {
		for {
			line, err := lr.next()
			if err != nil {
				break
			}
			lines = append(lines, line)
		}
	})
	if len(lines) != 3 || lines[1] != long || lines[2] != "b" {
		t.Fatalf("lines %.20q", lines)
	}
	// The line, the read buffer and the look-ahead's.
	if n > size+256<<10 {
		t.Errorf("reading a line of %d MiB allocated %d KiB", size>>20, n>>10)
	}

	lr = newLineReader("in.jsonl", strings.NewReader(long+"\n"))
	lr.max = size - 1
	var err error
	n = memtest.Allocated(func() { _, err = lr.next() })
	if want := "in.jsonl:1: line longer than 4194303 bytes"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if n > 256<<10 {
		t.Errorf("refusing a line of %d MiB allocated %d KiB", size>>20, n>>10)
	}
}

// The look-ahead is a hint for the allocation: an input that changes
// between it and the read (here, one whose ReadAt sees other bytes than
// Read) is read as it is, unless the look-ahead found the line over the
// limit, as it was then.
func TestLineReaderWrongLookAhead(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	input := "a\n" + long + "\n" + long + "\nb"
	read := []string{"a", long, long, "b"}
	tooLong := []string{"a", "ERR in.jsonl:2: line longer than 524288 bytes"}
	for _, tt := range []struct {
		seen string
		want []string
	}{
		{"a\n" + long[:100<<10] + "\n", read}, // shorter
		{"a\n" + long + long + "y\n", read},   // longer
		{"", read},                            // nothing
		{"a\n" + long + long + long + long, tooLong},
		{"a\n" + strings.Repeat("z", 1<<20) + "\n", tooLong},
	} {
		r := struct {
			io.Reader
			io.ReaderAt
		}{strings.NewReader(input), strings.NewReader(tt.seen)}
		lr := newLineReader("in.jsonl", r)
		lr.max = 512 << 10
		got := readLines(lr)
		if !slices.Equal(got, tt.want) {
			t.Errorf("with a look-ahead at %d bytes: lines %.60q, want %.60q", len(tt.seen), got, tt.want)
		}
	}
}

// A line longer than the limit of 64 MiB is an error that names it; one
// just below is read.
func TestCollectJSONLLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 128 MiB")
	}
	dir := t.TempDir()
	pad := strings.Repeat("x", maxLineBytes-60)
	ok := fmt.Sprintf(`{"snapshot": 1, "nodes": {"n1": {"pad": %q}}}`, pad)
	if len(ok) > maxLineBytes {
		t.Fatalf("test line is %d bytes", len(ok))
	}
	tooLong := fmt.Sprintf(`{"snapshot": 2, "nodes": {"n1": {"pad": %q}}}`, pad+strings.Repeat("y", 100))
	in := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(in, []byte(ok+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := CollectJSONL(t.Context(), filepath.Join(dir, "ok.trace"), []string{in}, Options{})
	if err != nil || res.Snapshots != 1 {
		t.Fatalf("res = %v, err = %v", res, err)
	}
	if err := os.WriteFile(in, []byte(ok+"\n"+tooLong+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CollectJSONL(t.Context(), filepath.Join(dir, "long.trace"), []string{in}, Options{})
	if want := in + ":2: line longer than 67108864 bytes"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		line string
		at   int
		want string
	}{
		{"", 0, `""`},
		{"short", 2, `"short"`},
		{strings.Repeat("a", 30) + "X" + strings.Repeat("b", 30), 30, `…"aaaaaaaaaaaaaaaaaaaaXbbbbbbbbbbbbbbbbbbb"…`},
		// Never a cut through a UTF-8 sequence.
		{strings.Repeat("é", 30), 31, `…"ééééééééééééééééééééé"…`},
	}
	for _, tt := range tests {
		if got := excerpt(tt.line, tt.at); got != tt.want {
			t.Errorf("excerpt(%q, %d) = %s, want %s", tt.line, tt.at, got, tt.want)
		}
	}
}

// readLines returns the lines lr reads, up to io.EOF, the first error
// as a last line "ERR " and its message.
func readLines(lr *lineReader) []string {
	var got []string
	for {
		line, err := lr.next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			return append(got, "ERR "+err.Error())
		}
		got = append(got, line)
	}
}
