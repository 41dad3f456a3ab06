package stepper_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strings"
	"testing"
)

// TestSettingsFieldDocs holds the Settings and Sleep field docs to the
// shape a user scans (Rapier's integration_parameters.rs, Box2D's
// types.h): the first line names the unit of a number and what the zero
// value means, and the doc is at most three lines; the details live in
// the package doc.
func TestSettingsFieldDocs(t *testing.T) {
	zero := regexp.MustCompile(`0 means|nil means|the zero value|false, the default|no default|zero vector means`)
	unit := regexp.MustCompile(`\((dimensionless|s|m|m/s|m/s²|1/s|m or rad|m/s or rad/s|rad/s|iterations per step|sweeps)\)`)
	fs := token.NewFileSet()
	checked := 0
	for _, c := range []struct{ file, typ string }{{"world.go", "Settings"}, {"sleep.go", "Sleep"}} {
		f, err := parser.ParseFile(fs, c.file, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != c.typ {
				return true
			}
			for _, fd := range ts.Type.(*ast.StructType).Fields.List {
				name := fd.Names[0].Name
				lines := strings.Split(strings.TrimSpace(fd.Doc.Text()), "\n")
				checked++
				if len(lines) > 3 {
					t.Errorf("%s.%s: doc has %d lines, want at most 3", c.typ, name, len(lines))
				}
				if !zero.MatchString(lines[0]) {
					t.Errorf("%s.%s: first line %q does not say what the zero value means", c.typ, name, lines[0])
				}
				typ, _ := fd.Type.(*ast.Ident)
				if typ != nil && (typ.Name == "float64" || typ.Name == "int") && !unit.MatchString(lines[0]) {
					t.Errorf("%s.%s: first line %q does not give the unit", c.typ, name, lines[0])
				}
			}
			return false
		})
	}
	if checked < 20 {
		t.Fatalf("checked %d fields, want Settings' and Sleep's (≥ 20)", checked)
	}
}
