package lab

import (
	"bytes"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Helpers the studies share: exact CSV number formatting, CSV files
// written atomically, and line plots rendered to PNG.

// fmtFloat formats v exactly (strconv 'g', -1).
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// writeCSVFile writes header and rows to path through a temporary file
// (writeFileAtomic).
// Cells must not contain commas, quotes or newlines (the studies write
// names and numbers only).
func writeCSVFile(path string, header []string, rows [][]string) error {
	var b strings.Builder
	b.WriteString(strings.Join(header, ","))
	b.WriteByte('\n')
	for _, r := range rows {
		if len(r) != len(header) {
			return fmt.Errorf("%s: row has %d cells, header %d", path, len(r), len(header))
		}
		b.WriteString(strings.Join(r, ","))
		b.WriteByte('\n')
	}
	return writeFileAtomic(path, []byte(b.String()))
}

// series is one curve of a line plot.
type series struct {
	Label string
	X, Y  []float64
}

// linePlot describes a figure of curves sharing axes.
type linePlot struct {
	Title, XLabel, YLabel string
	// LogY draws the y axis logarithmically; values ≤ LogFloor (> 0) are
	// drawn at LogFloor, since a log axis cannot show 0.
	LogY     bool
	LogFloor float64
	Series   []series
}

// palette: distinguishable colours (Okabe–Ito), then dashes repeat them.
var palette = []color.Color{
	color.RGBA{0, 0, 0, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 158, 115, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 114, 178, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{240, 228, 66, 255},
}

// png renders the plot at 8 × 5 inches.
func (lp *linePlot) png() ([]byte, error) {
	p := plot.New()
	p.Title.Text = lp.Title
	p.X.Label.Text = lp.XLabel
	p.Y.Label.Text = lp.YLabel
	p.Add(plotter.NewGrid())
	if lp.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = decadeTicks{}
	}
	for i, s := range lp.Series {
		xy := make(plotter.XYs, len(s.X))
		for k := range s.X {
			y := s.Y[k]
			if !num.Finite(y) {
				// Checked before the log floor, which would hide NaN and −Inf.
				return nil, fmt.Errorf("plot %q: series %q: y[%d] = %v", lp.Title, s.Label, k, y)
			}
			if lp.LogY && !(y > lp.LogFloor) {
				y = lp.LogFloor
			}
			xy[k] = plotter.XY{X: s.X[k], Y: y}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("plot %q: series %q: %w", lp.Title, s.Label, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.2)
		if i >= len(palette) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	// Bottom right: the curves of drift and error studies rise from the
	// left and stay above it.
	if lp.LogY {
		decadeRange(&p.Y)
	} else {
		flatRange(&p.Y)
	}
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(6)
	p.Legend.YOffs = vg.Points(6)
	return encodePNG(p, 8*vg.Inch, 5*vg.Inch)
}

// encodePNG renders p as a PNG of width × height.
func encodePNG(p *plot.Plot, width, height vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(width, height, "png")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decadeRange widens a log axis to whole decades at both ends, at least
// one decade wide. Flat curves (Min = Max) get the decade around their
// value; an axis without positive finite data (no points) gets [1, 10].
// gonum pads a zero-width axis by ±1, which puts a log axis below 0, so a
// log axis must never be left zero-width.
func decadeRange(a *plot.Axis) {
	lo, hi := a.Min, a.Max
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) {
		a.Min, a.Max = 1, 10
		return
	}
	elo := math.Floor(math.Log10(lo))
	ehi := math.Max(math.Ceil(math.Log10(hi)), elo+1)
	a.Min, a.Max = math.Pow10(int(elo)), math.Pow10(int(ehi))
	// At the ends of float64 the decade is not representable: 10⁻³²⁴
	// rounds to 0 and 10³⁰⁹ overflows.
	if a.Min == 0 {
		a.Min = lo
	}
	if math.IsInf(a.Max, 1) {
		a.Max = math.MaxFloat64
	}
}

// flatRange gives a linear axis whose data are flat (Min = Max) a width of
// |v| (at least 1) around the value v: gonum pads such an axis by ±1, which
// is no width at all near ±MaxFloat64 and makes its ticker panic.
func flatRange(a *plot.Axis) {
	if a.Min != a.Max {
		return
	}
	v := a.Min
	d := math.Max(1, math.Abs(v)/2)
	a.Min, a.Max = v-d, v+d
	if math.IsInf(a.Max, 1) {
		a.Max = v
	}
	if math.IsInf(a.Min, -1) {
		a.Min = v
	}
}

// decadeTicks labels each power of ten (exact 'g' formatting: 0.001, 1e-05)
// and marks 2…9 times it without labels. A range that is not positive and
// finite (which a log axis should never ask for) gets no ticks; the loop
// runs over at most the 633 decades of float64.
type decadeTicks struct{}

func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi >= lo) || math.IsInf(hi, 1) {
		return nil
	}
	var ticks []plot.Tick
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		v := math.Pow10(e)
		if v >= lo && v <= hi {
			ticks = append(ticks, plot.Tick{Value: v, Label: fmtFloat(v)})
		}
		for m := 2.0; m < 10; m++ {
			if mv := m * v; mv >= lo && mv <= hi {
				ticks = append(ticks, plot.Tick{Value: mv})
			}
		}
	}
	return ticks
}

// logPanel is one log-y panel of a multi-panel figure: solid and dashed
// curves, values ≤ 0 drawn at the smallest positive value in the panel.
type logPanel struct {
	Title, XLabel, YLabel string
	Solid, Dashed         []series
	// Thin curves drawn faintly (every step's curve).
	Thin []series
}

// plot builds the panel; it returns an error for NaN or Inf values.
func (lp *logPanel) plot() (*plot.Plot, error) {
	floor := math.Inf(1)
	for _, group := range [][]series{lp.Solid, lp.Dashed, lp.Thin} {
		for _, s := range group {
			for k, y := range s.Y {
				if !num.Finite(y) {
					return nil, fmt.Errorf("plot %q: series %q: y[%d] = %v", lp.Title, s.Label, k, y)
				}
				if y > 0 {
					floor = math.Min(floor, y)
				}
			}
		}
	}
	if math.IsInf(floor, 1) {
		floor = 1e-300
	}
	p := plot.New()
	p.Title.Text = lp.Title
	p.X.Label.Text = lp.XLabel
	p.Y.Label.Text = lp.YLabel
	p.Add(plotter.NewGrid())
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{}
	add := func(s series, c color.Color, width vg.Length, dashed, legend bool) error {
		xy := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xy[k] = plotter.XY{X: s.X[k], Y: math.Max(s.Y[k], floor)}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("plot %q: series %q: %w", lp.Title, s.Label, err)
		}
		l.Color, l.Width = c, width
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		if legend && s.Label != "" {
			p.Legend.Add(s.Label, l)
		}
		return nil
	}
	for i, s := range lp.Thin {
		c := palette[1+i%(len(palette)-1)]
		r, g, b, _ := c.RGBA()
		faint := color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), 90}
		if err := add(s, faint, vg.Points(0.4), false, false); err != nil {
			return nil, err
		}
	}
	for i, s := range lp.Solid {
		if err := add(s, palette[i%len(palette)], vg.Points(1.4), false, true); err != nil {
			return nil, err
		}
	}
	for i, s := range lp.Dashed { // one colour: a band around the solid curve
		if err := add(s, palette[0], vg.Points(1), true, i == 0); err != nil {
			return nil, err
		}
	}
	decadeRange(&p.Y)
	p.Legend.Top = true
	p.Legend.Left = false
	return p, nil
}

// panelsPNG renders panels[row][col] as one PNG of w × h inches, the
// panels' axes aligned.
func panelsPNG(panels [][]*logPanel, w, h vg.Length) ([]byte, error) {
	plots := make([][]*plot.Plot, len(panels))
	for r, row := range panels {
		plots[r] = make([]*plot.Plot, len(row))
		for c, lp := range row {
			p, err := lp.plot()
			if err != nil {
				return nil, err
			}
			plots[r][c] = p
		}
	}
	return gridPNG(plots, w, h)
}

// gridPNG renders plots[row][col] as one PNG of w × h, axes aligned.
func gridPNG(plots [][]*plot.Plot, w, h vg.Length) ([]byte, error) {
	img := vgimg.New(w, h)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(plots), Cols: len(plots[0]),
		PadX: vg.Points(12), PadY: vg.Points(12),
		PadTop: vg.Points(6), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(12)}
	canvases := plot.Align(plots, tiles, dc)
	for r := range plots {
		for c := range plots[r] {
			plots[r][c].Draw(canvases[r][c])
		}
	}
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
