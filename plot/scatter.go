package plot

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ScatterOptions control [Scatter] and [ScatterPanel]. The zero value is
// usable.
type ScatterOptions struct {
	// Title is drawn above the axes.
	Title string
	// XLabel and YLabel name the axes; empty means "component 1" and
	// "component 2" ("class" on the y axis of 1-D embeddings).
	XLabel, YLabel string
	// Width and Height are the figure size in pixels at 96 dpi (0: 800 ×
	// 600). The legend takes a strip on the right.
	Width, Height int
	// MaxLegend is the largest number of legend entries (classes present,
	// plus one for unlabeled points) for which a legend is drawn, in as
	// many columns as the height needs: 0 means 40 (beyond, ClassStyle
	// repeats and a note in the corner says the legend is left out); a
	// negative value never draws one.
	MaxLegend int
	// PointRadius is the glyph radius in points (1/72 in); 0 chooses 3,
	// 2.5 or 1.8 for up to 500, 2000 or more points.
	PointRadius float64
	// Lines are straight segments drawn over the points (2-D plots), each
	// named in the legend, for example projection directions through the
	// data mean (seed 003 Fig. 1).
	Lines []Line
}

// Line is a named segment from (X0, Y0) to (X1, Y1) of a scatter plot;
// Lines[i] is drawn in the colour of series i + 3 of the palette (after
// the first classes), dashed from the second line on.
type Line struct {
	Name           string
	X0, Y0, X1, Y1 float64
}

// Scatter writes a scatter plot of the rows of Z to path (format from the
// extension, see the package comment).
//
// The first two columns of Z are the x and y coordinates; further columns
// are ignored. A 1-D embedding (Z with one column) is drawn as a strip
// chart: x is the embedding and y is the class index plus a small uniform
// jitter in ±0.3 (deterministic), with the class names as y tick labels, so
// the overlap of classes along the line is visible.
//
// y gives the class of each row (0..C-1, or -1 for unlabeled points drawn
// in grey behind the others); nil draws every point alike. classNames[c]
// names class c in the legend and may be nil (names "0", "1", ...);
// otherwise it must name every label used. Class c is drawn in the colour
// and shape of [ClassStyle](c), distinct for up to 40 classes. The legend
// (on the right, in columns) is drawn when there are at most
// opt.MaxLegend entries and it takes at most half the width; otherwise a
// note in the top right corner says why it is left out.
func Scatter(path string, Z *mat.Dense, y []int, classNames []string, opt ScatterOptions) error {
	if _, err := outputFormat(path); err != nil {
		return err
	}
	p, err := ScatterPanel(Z, y, classNames, opt)
	if err != nil {
		return err
	}
	return p.save(path, opt.Width, opt.Height)
}

// ScatterPanel builds the plot [Scatter] draws, for use in a [Grid].
// opt.Width and opt.Height are ignored there.
func ScatterPanel(Z *mat.Dense, y []int, classNames []string, opt ScatterOptions) (*Panel, error) {
	if Z == nil || Z.IsEmpty() {
		return nil, fmt.Errorf("plot: scatter: Z is empty (0 rows)")
	}
	n, d := Z.Dims()
	if y != nil && len(y) != n {
		return nil, fmt.Errorf("plot: scatter: y has %d labels for %d rows of Z", len(y), n)
	}
	k := min(d, 2)
	for i := range n {
		for j := range k {
			if v := Z.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("plot: scatter: Z row %d, column %d is %v; values must be finite", i+1, j+1, v)
			}
		}
	}
	nc := 0 // number of classes
	for i, c := range y {
		if c < -1 {
			return nil, fmt.Errorf("plot: scatter: y[%d] = %d, want -1 (unlabeled) or a class 0..C-1", i, c)
		}
		nc = max(nc, c+1)
	}
	if classNames != nil && len(classNames) < nc {
		return nil, fmt.Errorf("plot: scatter: classNames has %d names but y uses class %d", len(classNames), nc-1)
	}
	nc = max(nc, len(classNames))
	name := func(c int) string {
		if c < len(classNames) && classNames[c] != "" {
			return classNames[c]
		}
		return strconv.Itoa(c)
	}
	label := func(i int) int {
		if y == nil {
			return 0
		}
		return y[i]
	}

	// Points per class; index 0 holds the unlabeled ones.
	groups := make([]plotter.XYs, nc+1)
	if y == nil {
		groups = make([]plotter.XYs, 2)
	}
	jitter := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		c := label(i)
		pt := plotter.XY{X: Z.At(i, 0)}
		if d >= 2 {
			pt.Y = Z.At(i, 1)
		} else {
			pt.Y = 0.6*jitter.Float64() - 0.3
			if y != nil {
				pt.Y += float64(c)
			}
		}
		groups[c+1] = append(groups[c+1], pt)
	}

	xlabel, ylabel := opt.XLabel, opt.YLabel
	if xlabel == "" {
		xlabel = "component 1"
	}
	switch {
	case d == 1:
		// A strip chart: the y axis spreads the classes, whatever label
		// a caller meant for a second coordinate.
		ylabel = ""
		if y != nil {
			ylabel = "class"
		}
	case ylabel == "":
		ylabel = "component 2"
	}
	p := newPlot(opt.Title, xlabel, ylabel)
	if d == 1 {
		p.Y.Tick.Marker = classTicks{nc: nc, unlabeled: len(groups[0]) > 0, name: name, labelled: y != nil}
	}
	radius := vg.Points(opt.PointRadius)
	if opt.PointRadius <= 0 {
		switch {
		case n <= 500:
			radius = vg.Points(3)
		case n <= 2000:
			radius = vg.Points(2.5)
		default:
			radius = vg.Points(1.8)
		}
	}

	// Unlabeled points are drawn first (behind) but listed last.
	panel := &Panel{plot: p}
	var unlabeled *plotter.Scatter
	for g, pts := range groups {
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: scatter: %w", err)
		}
		c := g - 1
		if c < 0 {
			s.GlyphStyle = draw.GlyphStyle{Color: unlabeledColor, Radius: radius * 0.8, Shape: draw.CircleGlyph{}}
			unlabeled = s
		} else {
			col, shape := ClassStyle(c)
			s.GlyphStyle = draw.GlyphStyle{Color: col, Radius: radius, Shape: shape}
			panel.addLegend(name(c), s)
		}
		p.Add(s)
	}
	if unlabeled != nil {
		panel.addLegend("unlabeled", unlabeled)
	}
	for i, ln := range opt.Lines {
		for _, v := range []float64{ln.X0, ln.Y0, ln.X1, ln.Y1} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("plot: scatter: line %q has a non-finite end point", ln.Name)
			}
		}
		l, err := plotter.NewLine(plotter.XYs{{X: ln.X0, Y: ln.Y0}, {X: ln.X1, Y: ln.Y1}})
		if err != nil {
			return nil, fmt.Errorf("plot: scatter: line %q: %w", ln.Name, err)
		}
		l.LineStyle.Color, _ = ClassStyle(i + 3)
		l.LineStyle.Width = vg.Points(2)
		if i > 0 {
			l.LineStyle.Dashes = []vg.Length{vg.Points(6), vg.Points(3 * float64(i))}
		}
		p.Add(l)
		panel.addLegend(ln.Name, l)
	}
	maxLegend := opt.MaxLegend
	if maxLegend == 0 {
		maxLegend = 40 // ORL's 40 persons, in two columns
	}
	switch {
	case y == nil:
		panel.legend = nil
	case len(panel.legend) > maxLegend && maxLegend > 0:
		panel.note = fmt.Sprintf("no legend: %d entries (at most %d)", len(panel.legend), maxLegend)
		panel.legend = nil
	case len(panel.legend) > maxLegend:
		panel.legend = nil
	}
	return panel, nil
}

// classTicks labels the y axis of a 1-D strip chart with class names.
type classTicks struct {
	nc                  int
	unlabeled, labelled bool
	name                func(int) string
}

func (t classTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !t.labelled {
		return nil
	}
	var ticks []gplot.Tick
	if t.unlabeled {
		ticks = append(ticks, gplot.Tick{Value: -1, Label: "unlabeled"})
	}
	for c := range t.nc {
		lab := t.name(c)
		if t.nc > 40 { // too crowded: label every tenth class
			if c%10 != 0 {
				lab = ""
			}
		}
		ticks = append(ticks, gplot.Tick{Value: float64(c), Label: lab})
	}
	return ticks
}
