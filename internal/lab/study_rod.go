package lab

import (
	"context"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	gstudy "github.com/gorigid/gorigid/study"
)

// The rod example of the energy-error paper (§5.1–5.1.1, Fig. 7, Eqs.
// 25–27), computed by study.Rod; the paper's table is the figure:
// summary.csv holds it, with the paper's printed value beside ours.

func init() {
	registerStudy(study{
		Name:         "rod",
		Doc:          "rod on two contacts: Eq. 26 and the energy/FB/residual errors of the paper's iterate (energy-error paper §5.1)",
		DefaultSteps: 1,
		Run:          studyRod,
	})
}

func studyRod(ctx context.Context, o studyOptions) error {
	res, err := gstudy.Rod(ctx, o.lib())
	if err != nil {
		return studyStopped("rod", err)
	}
	cells := make([][]string, len(res.Rows))
	tw := tabwriter.NewWriter(o.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "rod (energy-error paper §5.1): first step's MLCP (Eq. 26), exact solution, and the errors of x = [0, -0.1019] N·s")
	fmt.Fprintln(tw, "  paper's w = [b1, 0]; rows *_axb use w = A x + b; approx: m_eff = 1/a_ii (Eq. 13); exact: Eq. 11")
	fmt.Fprintln(tw, "quantity\tvalue\tunit\tpaper\tnote")
	for i, r := range res.Rows {
		cells[i] = []string{r.Quantity, fmtFloat(r.Value), r.Unit, r.Paper}
		fmt.Fprintf(tw, "%s\t%.6g\t%s\t%s\t%s\n", r.Quantity, r.Value, r.Unit, r.Paper, r.Note)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeCSVFile(filepath.Join(o.Dir, "summary.csv"), []string{"quantity", "value", "unit", "paper"}, cells)
}
