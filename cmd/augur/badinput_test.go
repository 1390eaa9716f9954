package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// badInputs are command lines that must fail with exit status 2 and an
// error matching stderr (what is wrong, and where), and leave every file
// byte-identical. Each runs in a fresh copy of the fixture directory (see
// fixture) to which files and symlinks are added.
var badInputs = []struct {
	name     string
	files    map[string]string // name → content, added to the fixture
	symlinks map[string]string // name → target
	links    map[string]string // name → target, a hard link
	args     string            // split on spaces
	stderr   string            // a regular expression
}{
	// Outputs never overwrite an input or write inside a trace (issue 12, item 1).
	{name: "infer -o the spec", args: "infer spec.yaml run.trace -q -o spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "infer -o the spec, another spelling", args: "infer spec.yaml run.trace -q -o run.trace/../spec.yaml", stderr: `it is the input spec.yaml`},
	{name: "infer -o a link to the spec", symlinks: map[string]string{"link.yaml": "spec.yaml"}, args: "infer spec.yaml run.trace -q -o link.yaml", stderr: `output link.yaml: it is the input spec.yaml`},
	{name: "infer --stats inside the trace", args: "infer spec.yaml run.trace -q --stats run.trace/states.arrow", stderr: `output run.trace/states.arrow: it lies inside the input run.trace`},
	{name: "infer -o the manifest", args: "infer spec.yaml run.trace -q --format json -o run.trace/manifest.json", stderr: `output run.trace/manifest.json: it lies inside the input run.trace`},
	{name: "infer -o inside another trace", args: "infer spec.yaml run.trace -q --baseline run.trace -o other.trace/r.json", stderr: `it lies inside the trace directory .*other.trace`},
	{name: "infer -o the baseline", args: "infer spec.yaml run.trace -q --baseline other.trace -o other.trace", stderr: `output other.trace: it is the input other.trace`},
	{name: "merge -o a part", args: "merge p0.arrow p1.arrow -o p0.arrow", stderr: `output p0.arrow: it is the input p0.arrow`},
	{name: "infer --stats and -o one file", args: "infer spec.yaml run.trace -q -o out.x --stats out.x", stderr: `--stats out.x is given twice \(as -o out.x\)`},
	{name: "report -o the stats", args: "report spec.yaml run.trace stats.arrow -o stats.arrow", stderr: `output stats.arrow: it is the input stats.arrow`},
	{name: "promote -o the report", args: "promote report.json --select 1 -o report.json --force", stderr: `output report.json: it is the input report.json`},
	{name: "promote -o the report's spec", args: "promote report.json --select 1 -o spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "spec init -o inside the trace", args: "spec init run.trace -o run.trace/spec.yaml --force", stderr: `output run.trace/spec.yaml: it lies inside the input run.trace`},
	{name: "collect -o the input", args: "collect run.jsonl -o run.jsonl --force", stderr: `output run.jsonl: it is the input run.jsonl`},
	{name: "collect -o the spec", args: "collect run.jsonl --spec spec.yaml -o spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "collect -o inside a trace", args: "collect run.jsonl -o run.trace/nested.trace", stderr: `it lies inside the trace directory .*run.trace`},
	{name: "collect -o a directory", args: "collect run.jsonl -o notes", stderr: `collect notes: exists and is not a trace directory`},
	{name: "collect -o a directory holding the input", files: map[string]string{"in/run.jsonl": "{}\n"}, args: "collect in/run.jsonl -o in", stderr: `output in: the input in/run.jsonl lies inside it`},
	{name: "testbed -o the guard", args: "testbed run randtree --steps 10 --guard checks.yaml -o checks.yaml", stderr: `output checks.yaml: it is the input checks.yaml`},
	{name: "testbed -o a directory", args: "testbed run randtree --steps 10 -o notes --force", stderr: `create trace notes: exists and is not a trace directory`},
	{name: "bench --keep a trace", args: "bench --snapshots 10 --keep run.trace", stderr: `output run.trace: it is a trace directory`},
	{name: "bench --keep inside a trace", args: "bench --snapshots 10 --keep run.trace/kept", stderr: `output run.trace/kept: it lies inside the trace directory .*run.trace`},
	{name: "bench quality --keep inside a trace", args: "bench quality --seeds 1-1 --keep other.trace/q", stderr: `output other.trace/q: it lies inside the trace directory .*other.trace`},
	{name: "bench quality --length medium", args: "bench quality --seeds 1-1 --length medium", stderr: `unknown length "medium" \(want short or long\)`},
	{name: "bench quality --family ring", args: "bench quality --seeds 1-1 --family log,ring", stderr: `unknown family "ring" \(want one of log, pb, mesh, overlay\)`},
	{name: "bench quality --family of no seed", args: "bench quality --seeds 1-1 --family mesh", stderr: `no seed of mesh among seeds 1-1`},
	{name: "bench testbeds --keep a trace", args: "bench testbeds --seeds 1-1 --testbeds randtree --keep other.trace", stderr: `output other.trace: it is a trace directory`},
	{name: "bench testbeds --reuse a trace", args: "bench testbeds --seeds 1-1 --testbeds randtree --reuse other.trace", stderr: `output other.trace: it is a trace directory`},
	{name: "bench testbeds --keep and --reuse", args: "bench testbeds --seeds 1-1 --testbeds randtree --keep a --reuse b", stderr: `--keep and --reuse both keep the runs: give one`},
	{name: "demo --keep holding the baseline", args: "demo --steps 10 -q --baseline other.trace --keep .", stderr: `output \.: the input other.trace lies inside it`},
	{name: "demo -o the baseline", args: "demo --steps 10 -q --baseline other.trace -o other.trace", stderr: `output other.trace: it is the input other.trace`},
	{name: "cpuprofile over the spec", args: "infer spec.yaml run.trace -q --cpuprofile spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "cpuprofile through a hard link into the trace", links: map[string]string{"prof": "run.trace/manifest.json"}, args: "check checks.yaml run.trace --cpuprofile prof", stderr: `output prof: it is run.trace/manifest.json, inside the input run.trace`},
	{name: "cpuprofile through a link into the trace", symlinks: map[string]string{"prof": "run.trace/states.arrow"}, args: "check checks.yaml run.trace --cpuprofile prof", stderr: `output prof: it lies inside the input run.trace`},
	{name: "infer -o a hard link into the trace", links: map[string]string{"r.json": "run.trace/manifest.json"}, args: "infer spec.yaml run.trace -q -o r.json", stderr: `output r.json: it is run.trace/manifest.json, inside the input run.trace`},

	// One guard for every output, before any work (issue 31, item 1).
	{name: "monitor --addr-file the checks", files: map[string]string{"tok": "a-token-of-at-least-sixteen-bytes\n"},
		args: "monitor checks.yaml --listen 127.0.0.1:0 --token-file tok --addr-file checks.yaml", stderr: `output checks.yaml: it is the input checks.yaml`},
	{name: "monitor --addr-file the token", files: map[string]string{"tok": "a-token-of-at-least-sixteen-bytes\n"},
		args: "monitor checks.yaml --listen 127.0.0.1:0 --token-file tok --addr-file tok", stderr: `output tok: it is the input tok`},
	{name: "monitor --addr-file the spec the checks name", files: map[string]string{"tok": "a-token-of-at-least-sixteen-bytes\n"},
		args: "monitor checks.yaml --listen 127.0.0.1:0 --token-file tok --addr-file spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "monitor --record inside a trace", files: map[string]string{"tok": "a-token-of-at-least-sixteen-bytes\n"},
		args: "monitor checks.yaml --listen 127.0.0.1:0 --token-file tok --record run.trace/rec.trace", stderr: `output run.trace/rec.trace: it lies inside the trace directory`},
	{name: "check --cpuprofile the spec the checks name", args: "check checks.yaml run.trace --cpuprofile spec.yaml", stderr: `output spec.yaml: it is the input spec.yaml`},
	{name: "testbed -o the trace holding --steer", files: map[string]string{"tb.trace/steer.yaml": "checks:\n  - property: \"forall n in nodes: true\"\n"},
		args: "testbed run chord --steps 10 --steer tb.trace/steer.yaml -o tb.trace", stderr: `output tb.trace: the input tb.trace/steer.yaml lies inside it`},
	{name: "infer -o a directory not there", args: "infer spec.yaml run.trace -q -o newdir/", stderr: `output newdir/: names a directory; give a file name`},
	{name: "infer -o in a directory not there", args: "infer spec.yaml run.trace -q -o newdir/r.txt", stderr: `output newdir/r.txt: the directory newdir does not exist`},
	{name: "collect -o in a directory not there", args: "collect run.jsonl -o newdir/r.trace", stderr: `output newdir/r.trace: the directory newdir does not exist`},

	// Inputs are regular files of bounded size (issue 31, items 5 and 6).
	{name: "spec check of a link to /dev/zero", symlinks: map[string]string{"z.yaml": "/dev/zero"}, args: "spec check z.yaml", stderr: `z.yaml: is a device, not a regular file`},
	{name: "check of checks linked to /dev/zero", symlinks: map[string]string{"z.yaml": "/dev/zero"}, args: "check z.yaml run.trace", stderr: `z.yaml: is a device, not a regular file`},
	{name: "report of stats linked to /dev/zero", symlinks: map[string]string{"z.arrow": "/dev/zero"}, args: "report spec.yaml run.trace z.arrow", stderr: `z.arrow: is a device, not a regular file`},
	{name: "infer of a manifest linked to /dev/zero", files: map[string]string{"z.trace/states.arrow": ""}, symlinks: map[string]string{"z.trace/manifest.json": "/dev/zero"},
		args: "infer spec.yaml z.trace -q", stderr: `manifest.json: is a device, not a regular file`},
	{name: "promote of a report linked to /dev/zero", symlinks: map[string]string{"z.json": "/dev/zero"}, args: "promote z.json --select 1 -o out.yaml", stderr: `z.json: is a device, not a regular file`},
	{name: "score of a report linked to /dev/zero", symlinks: map[string]string{"z.json": "/dev/zero"}, args: "score z.json", stderr: `z.json: is a device, not a regular file`},
	{name: "monitor push of a link to /dev/zero", files: map[string]string{"tok": "a-token-of-at-least-sixteen-bytes\n"}, symlinks: map[string]string{"z.jsonl": "/dev/zero"},
		args: "monitor push z.jsonl --url http://127.0.0.1:1 --token-file tok", stderr: `z.jsonl: is a device, not a regular file`},
	{name: "monitor of a token linked to /dev/zero", symlinks: map[string]string{"z": "/dev/zero"}, args: "monitor checks.yaml --token-file z", stderr: `z: more than 65536 bytes: not a token`},

	// Flag values out of range: a share that is not one.
	{name: "learn --min-support 0", args: "learn spec.yaml run.trace -q -o out.yaml --min-support 0", stderr: `--min-support 0: want a share in \(0, 1\]`},
	{name: "learn --almost NaN", args: "learn spec.yaml run.trace -q -o out.yaml --almost NaN", stderr: `violating share \(NaN\) one in \[0, 1\)`},

	// Malformed inputs of every kind: an error naming the file and where.
	{name: "collect malformed JSONL", files: map[string]string{"bad.jsonl": "{\"snapshot\": 0, \"nodes\": {\"a\": {\"x\": }}}\n"},
		args: "collect bad.jsonl -o new.trace", stderr: `bad.jsonl:1:\d+: malformed JSON`},
	{name: "spec with an unknown type", files: map[string]string{"bad.yaml": "variables:\n  term: Nope\n"},
		args: "spec check bad.yaml", stderr: `bad.yaml:2:9: variable term: unknown type Nope`},
	{name: "check of an unknown variable", files: map[string]string{"bad.yaml": "checks:\n  - name: typo\n    property: \"forall n0 in nodes: n0.nope == 1\"\n"},
		args: "check bad.yaml run.trace --spec spec.yaml", stderr: `bad.yaml:3:\d+: unknown variable nope`},
	{name: "report of stats that are not stats", files: map[string]string{"bad.arrow": "ARROW1 not stats"},
		args: "report spec.yaml run.trace bad.arrow", stderr: `bad.arrow: not an Arrow IPC file`},
	{name: "merge of a damaged part", files: map[string]string{"p1.arrow": "ARROW1\x00\x00 damaged"},
		args: "merge p0.arrow p1.arrow -o m.arrow", stderr: `p1.arrow: not an Arrow IPC file`},
	{name: "infer of a damaged trace", files: map[string]string{"run.trace/states.arrow": "ARROW1 not the file the manifest describes"},
		args: "infer spec.yaml run.trace -q", stderr: `states.arrow: SHA-256 .* does not match the manifest`},

	// JSONL is never silently altered (item 7).
	{name: "collect invalid UTF-8", files: map[string]string{"bad.jsonl": "{\"snapshot\": 0, \"nodes\": {\"a\": {\"s\": \"ok\"}}}\n{\"snapshot\": 1, \"nodes\": {\"a\": {\"s\": \"\xff\"}}}\n"},
		args: "collect bad.jsonl -o new.trace", stderr: `bad.jsonl:2:39: invalid UTF-8 \(byte 0xff\)`},
	{name: "collect node-local invalid UTF-8", files: map[string]string{"n1.jsonl": "{\"node\": \"n\xc3\", \"ts\": 1, \"state\": {\"x\": 1}}\n"},
		args: "collect n1.jsonl -o new.trace", stderr: `n1.jsonl:1:\d+: invalid UTF-8`},
	{name: "collect an integer beyond 2^53, then a float", files: map[string]string{"big.jsonl": "{\"snapshot\": 0, \"nodes\": {\"a\": {\"x\": 9007199254740993}}}\n{\"snapshot\": 1, \"nodes\": {\"a\": {\"x\": 0.5}}}\n"},
		args: "collect big.jsonl -o new.trace", stderr: `big.jsonl:2: nodes.a.x: float 0.5, but earlier lines .* hold integers that float64 would round`},
	{name: "collect a node given twice", files: map[string]string{"dup.jsonl": "{\"snapshot\": 0, \"nodes\": {\"a\": {\"x\": 1}, \"a\": {\"x\": 2}}}\n"},
		args: "collect dup.jsonl -o new.trace", stderr: `dup.jsonl:1:42: nodes.a: appears twice in one object`},
	{name: "collect a node-local key given twice", files: map[string]string{"n1.jsonl": "{\"node\": \"n1\", \"ts\": 1, \"state\": {\"x\": 1, \"x\": 2}}\n"},
		args: "collect n1.jsonl -o new.trace", stderr: `n1.jsonl:1:\d+: state.x: appears twice in one object`},

	// Quantifier nesting is capped (item 5).
	{name: "check 21 nested quantifiers", files: map[string]string{"deep.yaml": "checks:\n  - name: deep\n    property: \"forall v0 in nodes: forall v1 in v0.peers: forall v2 in v1.peers: forall v3 in v2.peers: forall v4 in v3.peers: forall v5 in v4.peers: forall v6 in v5.peers: forall v7 in v6.peers: forall v8 in v7.peers: forall v9 in v8.peers: forall v10 in v9.peers: forall v11 in v10.peers: forall v12 in v11.peers: forall v13 in v12.peers: forall v14 in v13.peers: forall v15 in v14.peers: forall v16 in v15.peers: forall v17 in v16.peers: forall v18 in v17.peers: forall v19 in v18.peers: forall v20 in v19.peers: v0.term >= 0\"\n"},
		args: "check deep.yaml run.trace", stderr: `deep.yaml:3:\d+: more than 8 quantified variables`},

	// So is the loop nesting of spec expressions (item 5).
	{name: "infer a derived variable of three nested loops", files: map[string]string{"slow.yaml": "variables:\n  log: \"list<{term: int64, index: int64}>\"\nderived:\n  d: {type: int64, expr: \"reduce(log, #acc + reduce(log, #acc + reduce(log, #acc + #.index, 0), 0), 0)\"}\n"},
		args: "infer slow.yaml run.trace -q", stderr: `slow.yaml:4:\d+: derived d: loops nest 3 deep, more than 2`},

	// And what an evaluation builds (issue 31, case 7).
	{name: "spec check of a range over constants", files: map[string]string{"r.yaml": "variables:\n  commit: int64\nderived:\n  a: {type: int64, expr: \"sum(map(1..999999, # * commit))\"}\n"},
		args: "spec check r.yaml", stderr: `r.yaml:4:\d+: derived a: the range 1\.\.999999 has 999999 elements, more than the 10000 a range over constants may have`},

	// And the literals generation combines (issue 31): 420 int64 derived
	// variables are 530,460 comparisons for one node variable.
	{name: "infer a spec of 420 derived variables of one type", files: map[string]string{"wide.yaml": derivedSpec(420) + "generate: {max_nodes: 1}\n"},
		args: "infer wide.yaml run.trace -q", stderr: `^augur: generator: wide.yaml: the properties of 1 node variable have, before any constant, at least 531302 literals to combine, more than the 524288 the generator holds .*: 530460 comparisons of paths of one type \(530460 of the 421 paths of type int64\), 842 others; use fewer variables and derived variables of one type`},

	// Messages are cut and escaped (issue 31, item 5).
	{name: "collect an integer of a megabyte", files: map[string]string{"big.jsonl": "{\"snapshot\": 0, \"nodes\": {\"a\": {\"x\": " + strings.Repeat("9", 1<<20) + "}}}\n"},
		args: "collect big.jsonl -o new.trace", stderr: `^augur: big.jsonl:1: nodes.a.x: integer 9{64}…\[1048576 bytes\]…9{16} is out of the range of int64.{0,100}\n$`},
	{name: "spec of an integer literal of a megabyte", files: map[string]string{"big.yaml": "variables:\n  x: int64\nderived:\n  d: {type: int64, expr: \"x + " + strings.Repeat("9", 1<<20) + "\"}\n"},
		args: "spec check big.yaml", stderr: `^augur: big.yaml:4:\d+: derived d: invalid integer literal: .{0,120}…\[\d+ bytes\]….{0,100}\n$`},

	// Flags are validated (item 9).
	{name: "infer --workers -3", args: "infer spec.yaml run.trace -q --workers -3", stderr: `invalid argument "-3" for "--workers" flag: must be at least 0`},
	{name: "infer --top -5", args: "infer spec.yaml run.trace -q --top -5", stderr: `invalid argument "-5" for "--top" flag: must be at least 0`},
	{name: "infer --block 0", args: "infer spec.yaml run.trace -q --shard 0/2 --block 0 --stats s.arrow", stderr: `"--block" flag: must be at least 1`},
	{name: "report --top -1", args: "report spec.yaml run.trace stats.arrow --top -1", stderr: `"--top" flag: must be at least 0`},
	{name: "infer --workers 1000000", args: "infer spec.yaml run.trace -q --workers 1000000", stderr: `--workers 1000000: at most 256 \(each worker keeps its own engine`},
	{name: "check --max-witnesses -1", args: "check checks.yaml run.trace --max-witnesses -1", stderr: `invalid argument "-1" for "--max-witnesses" flag: must be at least 0`},
	{name: "check --workers x", args: "check checks.yaml run.trace --workers x", stderr: `invalid argument "x" for "--workers" flag: not an integer`},
	{name: "collect --window -5", args: "collect run.jsonl -o new.trace --window -5", stderr: `invalid argument "-5" for "--window" flag: must be at least 0`},
	{name: "score --top 0", args: "score report.json -k 0", stderr: `"-k, --top" flag: must be at least 1`},
	{name: "testbed --faults drop=NaN", args: "testbed run randtree --steps 10 --faults drop=NaN -o new.trace", stderr: `faults: drop=NaN: want a probability`},
	{name: "testbed --faults crash=Inf", args: "testbed run randtree --steps 10 --faults crash=+Inf -o new.trace", stderr: `faults: crash=\+Inf: want a probability`},
	{name: "testbed --steps 0", args: "testbed run randtree --steps 0 -o new.trace", stderr: `"--steps" flag: must be at least 1`},
	{name: "testbed --reset-after -2", args: "testbed run randtree --reset-after -2 -o new.trace", stderr: `"--reset-after" flag: must be at least -1`},
	{name: "monitor --max-nodes 0", args: "monitor checks.yaml --max-nodes 0", stderr: `invalid argument "0" for "--max-nodes" flag: must be at least 1`},
	{name: "monitor --nodes -1", args: "monitor checks.yaml --nodes -1", stderr: `invalid argument "-1" for "--nodes" flag: must be at least 0`},
	{name: "monitor --max-buffered -5", args: "monitor checks.yaml --max-buffered -5", stderr: `invalid argument "-5" for "--max-buffered" flag: must be at least 1`},
	{name: "monitor --stream-buffer 0", args: "monitor checks.yaml --stream-buffer 0", stderr: `invalid argument "0" for "--stream-buffer" flag: must be at least 1`},
	{name: "monitor --max-streams 0", args: "monitor checks.yaml --max-streams 0", stderr: `invalid argument "0" for "--max-streams" flag: must be at least 1`},
	{name: "monitor --max-node-name 0", args: "monitor checks.yaml --max-node-name 0", stderr: `invalid argument "0" for "--max-node-name" flag: must be at least 1`},
	{name: "monitor --stream-buffer 2^63-1", args: "monitor checks.yaml --stream-buffer 9223372036854775807", stderr: `invalid argument "9223372036854775807" for "--stream-buffer" flag: must be at most 65536 \(a stream's channel`},
	{name: "monitor --max-streams 1025", args: "monitor checks.yaml --max-streams 1025", stderr: `"--max-streams" flag: must be at most 1024 \(each stream is`},
	{name: "monitor --max-nodes 65537", args: "monitor checks.yaml --max-nodes 65537", stderr: `"--max-nodes" flag: must be at most 65536 \(each cut holds`},
	{name: "monitor --nodes 65537", args: "monitor checks.yaml --nodes 65537", stderr: `"--nodes" flag: must be at most 65536`},
	{name: "monitor --max-body 2GiB", args: "monitor checks.yaml --max-body 2GiB", stderr: `--max-body: 2GiB is over 1GiB`},
	{name: "monitor --max-nodes x", args: "monitor checks.yaml --max-nodes x", stderr: `invalid argument "x" for "--max-nodes" flag: not an integer`},
	{name: "monitor push --batch 0", args: "monitor push run.jsonl --url http://127.0.0.1:1 --batch 0", stderr: `invalid argument "0" for "--batch" flag: must be at least 1`},
	{name: "monitor load --rates 2^63-1", args: "monitor load --nodes 5 --rates 9223372036854775807 --duration 1s", stderr: `--rates: 9223372036854775807 is over 1000000 \(`},
	{name: "monitor load --nodes 100000", args: "monitor load --nodes 100000 --rates 1000 --duration 1s", stderr: `--nodes: 100000 is over 1024 \(`},
	{name: "monitor load --plant-every -1", args: "monitor load --nodes 2 --rates 10 --plant-every -1", stderr: `invalid argument "-1" for "--plant-every" flag: must be at least 1`},
	{name: "monitor --fail-after -3s", args: "monitor checks.yaml --fail-after -3s", stderr: `invalid argument "-3s" for "--fail-after" flag: must not be negative`},
	{name: "monitor load --duration 0", args: "monitor load --nodes 2 --rates 10 --duration 0", stderr: `invalid argument "0" for "--duration" flag: must be positive`},
	{name: "monitor load --duration -1s", args: "monitor load --nodes 2 --rates 10 --duration -1s", stderr: `invalid argument "-1s" for "--duration" flag: must not be negative`},
	{name: "monitor load --flush -200ms", args: "monitor load --nodes 2 --rates 10 --flush -200ms", stderr: `invalid argument "-200ms" for "--flush" flag: must not be negative`},
	{name: "monitor load --silent-after x", args: "monitor load --nodes 2 --rates 10 --silent-after x", stderr: `invalid argument "x" for "--silent-after" flag: not a duration`},
	{name: "bench --workers 0", args: "bench --workers 0", stderr: `--workers 0: want at least 1`},
	{name: "bench --nodes 1000000", args: "bench --nodes 1000000", stderr: `--nodes 1000000: want 1 to 256`},
	{name: "testbed --nodes 1000000", args: "testbed run etcdraft --nodes 1000000 -o new.trace", stderr: `etcdraft: 1000000 nodes, want 1 to 256`},
}

// derivedSpec returns a spec of the variable term and n derived int64
// variables dK = term + K.
func derivedSpec(n int) string {
	var b strings.Builder
	b.WriteString("variables:\n  term: int64\nderived:\n")
	for i := range n {
		fmt.Fprintf(&b, "  d%d: {type: int64, expr: \"term + %d\"}\n", i, i)
	}
	return b.String()
}

// TestBadInput runs badInputs.
func TestBadInput(t *testing.T) {
	fix := fixture(t)
	for _, tt := range badInputs {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, fix, dir)
			for name, content := range tt.files {
				writeFile(t, filepath.Join(dir, name), content)
			}
			for name, target := range tt.symlinks {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			for name, target := range tt.links {
				if err := os.Link(filepath.Join(dir, target), filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			refused(t, dir, strings.Fields(tt.args), tt.stderr)
		})
	}
}

// TestNamedPipeTrace: a named pipe given as the trace is refused at
// once. Telling a trace given as JSON lines from one given as a file
// opened it to read its first byte, which blocks until a writer comes:
// infer, explain, generate and report hung (issue 31 audit), and so did
// collect and monitor push given it as their input, deaf to SIGINT.
// The test unblocks a command still running after 10 s by opening the
// pipe for writing and closing it, as often as the command opens it.
func TestNamedPipeTrace(t *testing.T) {
	dir := t.TempDir()
	spec, err := filepath.Abs("../../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "stats.arrow")
	augur(t, "collect", "../../testdata/small.jsonl", "-o", filepath.Join(dir, "s.trace"))
	augur(t, "infer", spec, filepath.Join(dir, "s.trace"), "-q", "--stats", stats)
	tok := filepath.Join(dir, "tok")
	writeFile(t, tok, "a-token-of-at-least-sixteen-bytes\n")
	pipe := filepath.Join(dir, "p.trace")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"infer", spec, pipe, "-q"},
		{"explain", spec, pipe, "forall n0 in nodes: n0.applied <= n0.commit", "-q"},
		{"generate", spec, pipe},
		{"report", spec, pipe, stats},
		{"collect", pipe, "-o", filepath.Join(dir, "c.trace")},
		{"monitor", "push", pipe, "--url", "http://127.0.0.1:1", "--token-file", tok},
	} {
		var stdout, stderr bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- run(context.Background(), args, &stdout, &stderr) }()
		var code int
		select {
		case code = <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("augur %s with a named pipe as the trace still runs after 10 s", args[0])
			for code = -1; code < 0; {
				if w, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close() // the reader sees the end of the pipe
				}
				select {
				case code = <-done:
				case <-time.After(10 * time.Millisecond):
				}
			}
		}
		if code != exitError || !strings.Contains(stderr.String(), "p.trace") {
			t.Errorf("augur %s: exit %d, stderr %q; want exit %d naming the pipe", args[0], code, stderr.String(), exitError)
		}
	}
}

// TestOutputsReplaced checks the one policy on existing outputs: every
// command replaces an output it wrote before, --force or not.
func TestOutputsReplaced(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, fixture(t), dir)
	t.Chdir(dir)
	for _, args := range []string{
		"collect run.jsonl -o run.trace",
		"collect run.jsonl -o run.trace --force",
		"infer spec.yaml run.trace -q --format json -o report.json",
		"merge p0.arrow p1.arrow -o stats.arrow",
		"report spec.yaml run.trace stats.arrow -o report.txt",
		"report spec.yaml run.trace stats.arrow -o report.txt",
		"promote report.json --select 1 -o checks.yaml",
		"spec init run.trace -o spec2.yaml",
		"spec init run.trace -o spec2.yaml",
		"testbed run randtree --steps 10 -o tb.trace",
		"testbed run randtree --steps 10 -o tb.trace",
	} {
		augur(t, strings.Fields(args)...)
	}
	if entries, _ := os.ReadDir(dir); slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return strings.Contains(e.Name(), ".tmp-") }) {
		t.Errorf("temporary files left in %s: %v", dir, entries)
	}
}

// fixture returns a new directory, the working directory of t until it
// ends, holding the inputs of every command: spec.yaml, run.jsonl,
// run.trace and other.trace, the stats of the whole trace (stats.arrow)
// and of two shards (p0.arrow, p1.arrow), a JSON report, a checks file,
// and a directory that is not a trace (notes).
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range [][2]string{{"../../testdata/small.yaml", "spec.yaml"}, {"../../testdata/small.jsonl", "run.jsonl"}} {
		data, err := os.ReadFile(f[0])
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, f[1]), string(data))
	}
	writeFile(t, filepath.Join(dir, "notes", "todo.txt"), "keep me\n")
	t.Chdir(dir)
	for _, args := range []string{
		"collect run.jsonl -o run.trace",
		"collect run.jsonl -o other.trace",
		"infer spec.yaml run.trace -q --stats stats.arrow",
		"infer spec.yaml run.trace -q --shard 0/2 --stats p0.arrow",
		"infer spec.yaml run.trace -q --shard 1/2 --stats p1.arrow",
		"infer spec.yaml run.trace -q --format json -o report.json",
		"promote report.json --select 1 -o checks.yaml",
	} {
		augur(t, strings.Fields(args)...)
	}
	return dir
}

// writeFile writes content to path, making its directory.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the regular files and directories under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		writeFile(t, filepath.Join(dst, rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sums returns the SHA-256 of every file under dir, by path, and "dir"
// for every directory, "link → target" for every symbolic link.
func sums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			out[rel] = "link → " + target
			return err
		default:
			data, err := os.ReadFile(path)
			out[rel] = fmt.Sprintf("%x", sha256.Sum256(data))
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
