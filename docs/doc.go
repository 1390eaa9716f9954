// Package docs holds augur's user documentation, the Markdown pages of
// this directory. It has no code: its tests check the pages against the
// program (the property examples parse and type-check, the example specs
// load, every JSON field of a report and every route and metric of the
// monitor is described), so that a page that no longer matches fails
// go test ./... .
package docs
