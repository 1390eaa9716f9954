package planted

import (
	"math/rand/v2"
	"slices"
)

// A pbTemplate is a property that holds in every natural run of the
// primary/backup store whose primaries fail as its style says, with a
// way to break it in one node's state, as a template is for the
// replicated log.
type pbTemplate struct {
	name   string // the bug: the snapshots where it is broken are tagged bug:NAME
	shape  Shape
	needs  []pbVar // variables the property reads
	forbid []pbVar // variables that would let an equally simple property fail at the same snapshots
	style  int     // pbCrash or pbLapse where the property, or its difference from a twin, needs it
	lean   bool    // three literals: the system keeps few variables
	text   string  // the property, formatted with args (variables and roles)
	args   []any
	alts   []string // equivalent properties, formatted with args as text is
	holds  pbCheck
	// twins are properties at most as complex that would say the same in
	// some runs: each must fail somewhere in the natural run.
	twins  []pbTwin
	inject pbInjector
}

// A pbTwin is a property close to a template's, expressible when the
// system has the variables it needs.
type pbTwin struct {
	needs []pbVar
	holds pbCheck
}

// A pbCheck evaluates a property on the views of one snapshot, nil for
// the nodes that are down.
type pbCheck func(vs []*pbView) bool

// A pbInjector breaks a property in one node's view of a snapshot: it
// returns the node and the broken copy of its view, or -1.
type pbInjector func(vs []*pbView, rng *rand.Rand) (int, *pbView)

// pbEvery returns the check "ok holds for every live node".
func pbEvery(ok func(a *pbView) bool) pbCheck {
	return func(vs []*pbView) bool {
		return !slices.ContainsFunc(vs, func(a *pbView) bool { return a != nil && !ok(a) })
	}
}

// pbPairs returns the check "ok holds for every ordered pair of distinct
// live nodes".
func pbPairs(ok func(a, b *pbView) bool) pbCheck {
	return func(vs []*pbView) bool {
		for i, a := range vs {
			for j, b := range vs {
				if a != nil && b != nil && i != j && !ok(a, b) {
					return false
				}
			}
		}
		return true
	}
}

// pbOfPrimary returns the check "ok holds for every primary a and every
// other node b".
func pbOfPrimary(ok func(a, b *pbView) bool) pbCheck {
	return pbPairs(func(a, b *pbView) bool { return a.role != pbPrimary || ok(a, b) })
}

// pbEdit returns the injector that tries the live nodes in random order
// and breaks the first on which edit, given a copy of its view and the
// primary of its epoch (nil when it has none in sight), succeeds.
func pbEdit(edit func(vs []*pbView, rng *rand.Rand, p, c *pbView) bool) pbInjector {
	return func(vs []*pbView, rng *rand.Rand) (int, *pbView) {
		for _, i := range rng.Perm(len(vs)) {
			a := vs[i]
			if a == nil {
				continue
			}
			var p *pbView
			for _, b := range vs {
				if b != nil && b.role == pbPrimary && b.epoch == a.epoch {
					p = b
				}
			}
			c := *a
			if edit(vs, rng, p, &c) {
				return i, &c
			}
		}
		return -1, nil
	}
}

// pbOtherID returns the id of a random live node other than a, or "".
func pbOtherID(vs []*pbView, rng *rand.Rand, a *pbView) string {
	for _, i := range rng.Perm(len(vs)) {
		if b := vs[i]; b != nil && b.id != a.id {
			return b.id
		}
	}
	return ""
}

// isBackupOf reports whether c is a backup in the epoch of primary p.
func isBackupOf(p, c *pbView) bool { return p != nil && c.role == pbBackup && c.id != p.id }

// pbTemplates are the properties that may be planted in a primary/backup
// system. Each guard literal that names the primary is usually true:
// most nodes are backups.
var pbTemplates = []*pbTemplate{
	{
		name: "apply-past-commit", shape: OneNodeOneLiteral, needs: []pbVar{pbApplied, pbCommit},
		text: "forall n0 in nodes: n0.%s <= n0.%s", args: []any{pbApplied, pbCommit},
		holds: pbEvery(func(a *pbView) bool { return a.applied <= a.commit }),
		// A backup forgets part of what it knew committed.
		inject: pbEdit(func(_ []*pbView, _ *rand.Rand, _, c *pbView) bool {
			c.commit = c.applied - 1
			return c.role == pbBackup && c.applied > 0
		}),
	},
	{
		name: "lease-from-future", shape: OneNodeOneLiteral, needs: []pbVar{pbLease},
		text: "forall n0 in nodes: n0.%s <= n0.%s", args: []any{pbLease, pbEpoch},
		holds: pbEvery(func(a *pbView) bool { return a.lease <= a.epoch }),
		// A backup grants a lease for an epoch it has not entered.
		inject: pbEdit(func(_ []*pbView, _ *rand.Rand, p, c *pbView) bool {
			c.lease = c.epoch + 1
			return isBackupOf(p, c)
		}),
	},
	{
		name: "backup-keeps-in-sync", shape: OneNodeTwoLiterals, needs: []pbVar{pbInSync},
		// A backup names itself primary only after a crash: the primary
		// as the node itself names would say the same.
		forbid: []pbVar{pbPrim},
		text:   "forall n0 in nodes: empty(n0.%s) or n0.%s != %q", args: []any{pbInSync, pbRoleVar, pbBackup},
		holds: pbEvery(func(a *pbView) bool { return a.role != pbBackup || len(a.insync) == 0 }),
		twins: []pbTwin{
			{[]pbVar{pbLease}, pbEvery(func(a *pbView) bool { return a.lease != a.epoch || len(a.insync) == 0 })},
			{[]pbVar{pbCommit, pbApplied}, pbEvery(func(a *pbView) bool { return a.applied == a.commit || len(a.insync) == 0 })},
		},
		// A primary steps down but keeps waiting for its backups.
		inject: pbEdit(func(vs []*pbView, rng *rand.Rand, _, c *pbView) bool {
			other := pbOtherID(vs, rng, c)
			c.insync = []string{other}
			return c.role == pbBackup && other != ""
		}),
	},
	{
		name: "primary-follows-other", shape: OneNodeTwoLiterals, needs: []pbVar{pbID, pbPrim},
		forbid: []pbVar{pbInSync},
		text:   "forall n0 in nodes: n0.%s == n0.%s or n0.%s != %q", args: []any{pbID, pbPrim, pbRoleVar, pbPrimary},
		holds: pbEvery(func(a *pbView) bool { return a.role != pbPrimary || a.id == a.prim }),
		// Backups hold the lease of their epoch and follow another.
		twins: []pbTwin{{[]pbVar{pbLease}, pbEvery(func(a *pbView) bool { return a.lease != a.epoch || a.id == a.prim })}},
		inject: pbEdit(func(vs []*pbView, rng *rand.Rand, _, c *pbView) bool {
			c.prim = pbOtherID(vs, rng, c)
			return c.role == pbPrimary && c.prim != ""
		}),
	},
	{
		name: "commit-past-primary", shape: TwoNodesTwoLiterals, needs: []pbVar{pbCommit},
		// The primary as the node a backup follows, or as the holder of
		// an in-sync set, would say the same.
		forbid: []pbVar{pbPrim, pbInSync}, style: pbCrash,
		text: "forall n0, n1 in nodes: n0.%s != %q or n1.%s <= n0.%s", args: []any{pbRoleVar, pbPrimary, pbCommit, pbCommit},
		holds: pbOfPrimary(func(a, b *pbView) bool { return b.commit <= a.commit }),
		twins: []pbTwin{
			{[]pbVar{pbApplied}, pbOfPrimary(func(a, b *pbView) bool { return b.commit <= a.applied })},
			{holds: pbPairs(func(a, b *pbView) bool { return a.epoch != b.epoch || b.commit <= a.commit })},
		},
		// A backup counts as committed an entry the primary has not.
		inject: pbEdit(func(_ []*pbView, _ *rand.Rand, p, c *pbView) bool {
			if !isBackupOf(p, c) {
				return false
			}
			c.commit = p.commit + 1
			return true
		}),
	},
	{
		name: "apply-past-primary", shape: TwoNodesTwoLiterals, needs: []pbVar{pbApplied, pbCommit},
		// Nodes of one epoch (which their lease or configuration tells
		// too) apply only what all of them know committed.
		forbid: []pbVar{pbPrim, pbInSync, pbLease, pbConfig}, style: pbCrash,
		text: "forall n0, n1 in nodes: n0.%s != %q or n1.%s <= n0.%s", args: []any{pbRoleVar, pbPrimary, pbApplied, pbCommit},
		holds: pbOfPrimary(func(a, b *pbView) bool { return b.applied <= a.commit }),
		// A promoted primary reconciles before it commits: until then a
		// backup may know more committed than it does, not applied.
		twins: []pbTwin{
			{holds: pbOfPrimary(func(a, b *pbView) bool { return b.commit <= a.commit })},
			{holds: pbOfPrimary(func(a, b *pbView) bool { return b.applied <= a.applied })},
			// Nodes of one epoch apply what all of them know committed.
			{holds: pbPairs(func(a, b *pbView) bool { return a.epoch != b.epoch || b.applied <= a.commit })},
			{holds: pbPairs(func(a, b *pbView) bool { return a.role != pbBackup || b.applied <= a.commit })},
		},
		inject: backupAhead,
	},
	{
		name: "epoch-past-primary", shape: TwoNodesTwoLiterals,
		// A primary's lease is of its epoch, its in-sync set names it,
		// each epoch has its configurations, and only the primary follows
		// itself until a crashed one restarts: each would say the same.
		forbid: []pbVar{pbLease, pbPrim, pbConfig, pbInSync}, style: pbCrash,
		text: "forall n0, n1 in nodes: n0.%s != %q or n1.%s <= n0.%s", args: []any{pbRoleVar, pbPrimary, pbEpoch, pbEpoch},
		holds: pbOfPrimary(func(a, b *pbView) bool { return b.epoch <= a.epoch }),
		// Nodes lag the epoch they are told of.
		twins: []pbTwin{{holds: pbOfPrimary(func(a, b *pbView) bool { return b.epoch == a.epoch })}},
		// A backup enters an epoch the configuration service never began.
		inject: pbEdit(func(_ []*pbView, _ *rand.Rand, p, c *pbView) bool {
			c.epoch++
			return isBackupOf(p, c)
		}),
	},
	{
		name: "two-primaries-in-epoch", shape: TwoNodesThreeLiterals,
		// Two primaries never share a lease, a configuration or an
		// in-sync set: those would tell them apart as well (as would the
		// primary), and in a system whose primaries do not crash only a
		// primary follows itself.
		forbid: []pbVar{pbLease, pbConfig, pbInSync, pbPrim}, style: pbLapse, lean: true,
		text: "forall n0, n1 in nodes: n0.%s != n1.%s or n0.%s != %q or n1.%s != %q",
		args: []any{pbEpoch, pbEpoch, pbRoleVar, pbPrimary, pbRoleVar, pbPrimary},
		// With n0 primary, n1 is primary too when their roles are equal.
		alts:  []string{"forall n0, n1 in nodes: n0.%[1]s != n1.%[1]s or n0.%[3]s != %[4]q or n0.%[3]s != n1.%[3]s"},
		holds: pbOfPrimary(func(a, b *pbView) bool { return a.epoch != b.epoch || b.role != pbPrimary }),
		twins: []pbTwin{{holds: pbOfPrimary(func(_, b *pbView) bool { return b.role != pbPrimary })}},
		// A backup takes over in its epoch without a new one, with what
		// the primary has committed and applied.
		inject: pbEdit(func(_ []*pbView, _ *rand.Rand, p, c *pbView) bool {
			if !isBackupOf(p, c) {
				return false
			}
			c.role, c.prim = pbPrimary, c.id
			c.commit, c.applied = max(c.commit, p.commit), max(c.applied, p.applied)
			return true
		}),
	},
	{
		name: "apply-past-own-primary", shape: TwoNodesTwoLiterals, needs: []pbVar{pbID, pbPrim, pbApplied, pbCommit},
		// As for apply-past-primary.
		forbid: []pbVar{pbInSync, pbLease, pbConfig}, style: pbLapse,
		text: "forall n0, n1 in nodes: n0.%s != n1.%s or n1.%s <= n0.%s", args: []any{pbID, pbPrim, pbApplied, pbCommit},
		holds: pbPairs(func(a, b *pbView) bool { return a.id != b.prim || b.applied <= a.commit }),
		twins: []pbTwin{
			// A primary cut off in an old epoch lags the new epoch's backups.
			{holds: pbOfPrimary(func(a, b *pbView) bool { return b.applied <= a.commit })},
			// A promoted primary reconciles before it commits.
			{holds: pbPairs(func(a, b *pbView) bool { return a.id != b.prim || b.commit <= a.commit })},
			{holds: pbPairs(func(a, b *pbView) bool { return a.id != b.prim || b.applied <= a.applied })},
			// Nodes of one epoch, or following one primary, apply what
			// all of them know committed.
			{holds: pbPairs(func(a, b *pbView) bool { return a.epoch != b.epoch || b.applied <= a.commit })},
			{holds: pbPairs(func(a, b *pbView) bool { return a.prim != b.prim || b.applied <= a.commit })},
			{holds: pbPairs(func(a, b *pbView) bool { return a.role != pbBackup || b.applied <= a.commit })},
		},
		inject: pbEdit(func(vs []*pbView, rng *rand.Rand, p, c *pbView) bool {
			return isBackupOf(p, c) && c.prim == p.id && applyAhead(p, c)
		}),
	},
}

// applyAhead makes c, a backup of p, apply and know committed one entry
// past p's commit point.
func applyAhead(p, c *pbView) bool {
	if !isBackupOf(p, c) {
		return false
	}
	c.commit = max(c.commit, p.commit+1)
	c.applied = p.commit + 1
	return true
}

// backupAhead is the injector that breaks a backup by applyAhead.
var backupAhead = pbEdit(func(_ []*pbView, _ *rand.Rand, p, c *pbView) bool { return applyAhead(p, c) })
