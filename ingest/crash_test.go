package ingest

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/augur-dev/augur/collector"
	"github.com/augur-dev/augur/collector/arrowsink"
)

// crashEnv names the sink and file of the child process of
// TestCrashSafety: "arrow:PATH" or "jsonl:PATH".
const crashEnv = "AUGUR_INGEST_CRASH_CHILD"

// crashState is about 1 KB, so that a flush of a batch takes several
// writes and a kill can tear it.
type crashState struct {
	N       int64  `augur:"n"`
	Padding string `augur:"padding"`
}

// crashChild writes exposures until it is killed, and prints the number
// of records flushed after each flush. It gives up after 20 seconds.
func crashChild(spec string) {
	kind, path, _ := strings.Cut(spec, ":")
	opts := collector.SinkOptions{FlushRecords: 97, FlushInterval: -1}
	var (
		sink collector.Sink
		err  error
	)
	if kind == "arrow" {
		sink, err = arrowsink.Create(path, arrowsink.Options{SinkOptions: opts})
	} else {
		sink, err = collector.CreateJSONLSink(path, opts)
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	n := collector.NewNode("n1", sink)
	st := crashState{Padding: strings.Repeat("p", 1000)}
	deadline := time.Now().Add(20 * time.Second)
	for i := int64(1); time.Now().Before(deadline); i++ {
		st.N = i
		if err := n.Expose(&st); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if i%97 == 0 {
			fmt.Println("flushed", i)
		}
	}
	os.Exit(1)
}

// TestCrashSafety kills a process that writes exposures with SIGKILL in
// mid-stream, and reads back its file: every record it reported flushed
// is there, in order; a torn end is reported as such, with its position,
// and what comes before it is collected.
func TestCrashSafety(t *testing.T) {
	if spec := os.Getenv(crashEnv); spec != "" {
		crashChild(spec)
		return
	}
	for _, kind := range []string{"arrow", "jsonl"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "n1."+kind)
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashSafety$")
			cmd.Env = append(os.Environ(), crashEnv+"="+kind+":"+path)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Kill the child at a random moment after it reports 20
			// flushes, while it keeps writing. flushed ends as the last
			// count the child reported before it died.
			reports := make(chan int64)
			done := make(chan error, 1)
			go func() {
				defer close(reports)
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					f := strings.Fields(sc.Text())
					n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
					if len(f) != 2 || f[0] != "flushed" || err != nil {
						done <- fmt.Errorf("child: %s", sc.Text())
						return
					}
					reports <- n
				}
				done <- sc.Err()
			}()
			var flushed int64
			for n := range reports {
				flushed = n
				if n == 20*97 {
					go func() {
						time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
						cmd.Process.Kill()
					}()
				}
			}
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); flushed < 20*97 || err == nil {
				t.Fatalf("the child stopped by itself after %d records: %v", flushed, err)
			}

			var ns []int64
			switch kind {
			case "arrow":
				mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
				defer mem.AssertSize(t, 0)
				recs, torn, err := readStream(t, path, mem)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range recs {
					ns = append(ns, r.vars[0].(int64))
				}
				t.Logf("killed after %d records reported flushed: %d read back, torn: %v", flushed, len(recs), torn)
			case "jsonl":
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.SplitAfter(string(data), "\n")
				for _, l := range lines {
					var n int64
					if _, err := fmt.Sscanf(l, `{"node":"n1","ts":%d,"state":{"n":%d,`, new(int64), &n); err == nil && strings.HasSuffix(l, "}\n") {
						ns = append(ns, n)
					}
				}
				t.Logf("killed after %d records reported flushed: %d read back, last line torn: %v", flushed, len(ns), !strings.HasSuffix(string(data), "\n"))
			}
			if int64(len(ns)) < flushed {
				t.Errorf("%d records read back, %d were flushed", len(ns), flushed)
			}
			for i, n := range ns {
				if n != int64(i+1) {
					t.Fatalf("record %d holds %d", i, n)
				}
			}

			// The file collects into a trace, its torn end a warning.
			res, err := Collect(t.Context(), filepath.Join(dir, "out.trace"), []string{path}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Snapshots != len(ns) {
				t.Errorf("%d snapshots from %d records", res.Snapshots, len(ns))
			}
			for _, w := range res.Warnings {
				if w.Code != WarnTorn || w.Pos.Filename != path || w.Pos.Line == 0 && w.Pos.Offset == 0 || !strings.Contains(w.Msg, "torn") {
					t.Errorf("warning %v", w)
				}
			}
		})
	}
}
