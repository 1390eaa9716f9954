package docs_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/augur-dev/augur/reporter"
)

const reportsPage = "reports.md"

// jsonFields returns the JSON names of the fields of t and of the
// structs it holds, at any depth, each with the Go field it comes from.
func jsonFields(t reflect.Type, seen map[reflect.Type]bool, out map[string]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = t.Name() + "." + f.Name
		jsonFields(f.Type, seen, out)
	}
}

// TestReportFields checks that reports.md describes every field of the
// JSON report, as a `name` in its text.
func TestReportFields(t *testing.T) {
	page := readPage(t, reportsPage)
	fields := map[string]string{}
	jsonFields(reflect.TypeFor[reporter.Report](), map[reflect.Type]bool{}, fields)
	if len(fields) < 40 {
		t.Fatalf("only %d JSON fields found in reporter.Report", len(fields))
	}
	for name, from := range fields {
		if !strings.Contains(page, "`"+name+"`") {
			t.Errorf("%s does not describe the JSON field %s (%s)", reportsPage, name, from)
		}
	}
}

// TestReportExample checks that the JSON example of reports.md reads
// into a reporter.Report without unknown fields.
func TestReportExample(t *testing.T) {
	for _, b := range blocks(t, reportsPage, "json") {
		dec := json.NewDecoder(strings.NewReader(b.text))
		dec.DisallowUnknownFields()
		var r reporter.Report
		if err := dec.Decode(&r); err != nil {
			t.Errorf("%s:%d: %v", reportsPage, b.line, err)
		}
	}
}
