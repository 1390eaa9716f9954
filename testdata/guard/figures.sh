#!/bin/sh
# figures.sh SEED… prints, for each testbed and bug and each seed, the
# bug-tagged snapshots of a run without --guard and with it, under the
# hand-written checks (specs/NAME.checks.yaml) and the promoted ones
# (NAME-promoted.yaml), with the changes each guard blocked: the figures
# of the immediate safety check in the README. Run it from the
# repository's root with augur on PATH (or AUGUR=path/to/augur):
#
#	sh testdata/guard/figures.sh 41 42 43 44 45 46 47 48
set -eu
augur=${AUGUR:-augur}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# tagged FILE BUG: the bug-tagged snapshots a run reported, 0 for none.
tagged() { sed -n "s/^  bug:$2: \([0-9]*\) snapshots$/\1/p" "$1" | grep . || echo 0; }
# blocked FILE: the changes the guard blocked.
blocked() { sed -n 's/^  guard .*: \([0-9]*\) changes blocked of [0-9]* checked$/\1/p' "$1"; }
echo "| testbed | bug | seed | unguarded | hand-written: guarded (blocked) | promoted: guarded (blocked) |"
echo "|---|---|---|---|---|---|"
for tb in etcdraft:apply-uncommitted etcdraft:lost-tail etcdraft:lost-vote chord:pred-self paxos:last-promise paxos:lost-promise randtree:no-recovery-timer randtree:stale-child; do
	name=${tb%%:*} bug=${tb#*:}
	for seed in "$@"; do
		run="$augur testbed run $name --bug $bug --seed $seed -f"
		$run -o "$dir/a.trace" 2>"$dir/a.txt"
		$run -o "$dir/h.trace" --guard "specs/$name.checks.yaml" 2>"$dir/h.txt"
		$run -o "$dir/p.trace" --guard "testdata/guard/$name-promoted.yaml" 2>"$dir/p.txt"
		echo "| $name | $bug | $seed | $(tagged "$dir/a.txt" "$bug") | $(tagged "$dir/h.txt" "$bug") ($(blocked "$dir/h.txt")) | $(tagged "$dir/p.txt" "$bug") ($(blocked "$dir/p.txt")) |"
	done
done
