package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/gorigid/gorigid/internal/cli"
	"github.com/gorigid/gorigid/scenes"
)

// simList implements `sim list`: one line per scene (name — doc), then
// its parameters with default, unit, doc and range, in the registry's
// order.
func simList(args []string, stdout io.Writer) error {
	pos, err := cli.ParseInterspersed(cli.NewFlagSet("list"), args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return cli.Usagef("list: takes no arguments, got %q", pos[0])
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for i, s := range scenes.List() {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s — %s\n", s.Name, s.Doc)
		for _, p := range s.Params {
			unit := p.Unit
			if unit == "" {
				unit = "-"
			}
			fmt.Fprintf(tw, "    --set %s=%s\t%s\t%s%s\n", p.Name, p.Default, unit, p.Doc, paramRange(p))
		}
	}
	return tw.Flush()
}

// paramRange is " [MIN, MAX]" for a parameter with stated bounds ("(MIN"
// when MIN is excluded, −∞ when there is none), "" for a choice.
func paramRange(p scenes.Param) string {
	if p.Max == "" && p.Min == "" {
		return ""
	}
	lo, hi := "[−∞", "∞]"
	if p.Min != "" {
		lo = "[" + p.Min
		if p.MinExclusive {
			lo = "(" + p.Min
		}
	}
	if p.Max != "" {
		hi = p.Max + "]"
	}
	return " " + lo + ", " + hi
}
