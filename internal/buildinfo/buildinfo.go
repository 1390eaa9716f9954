// Package buildinfo names the build of the running binary, for augur
// version and the traces it writes (created_by).
package buildinfo

import "runtime/debug"

// Version returns the module version, or the VCS revision of a build
// from a checkout ("devel 0123456789ab"), or "(devel)" or "(unknown)".
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 && (v == "" || v == "(devel)") {
			v = "devel " + s.Value[:12]
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return v
}
