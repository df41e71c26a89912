package plot

import (
	"fmt"
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is one curve of [Curves]: for example the error rate (Y) of a
// method against the embedding dimension (X), with the standard deviation
// over folds as YErr.
type Series struct {
	// Name is the legend entry; series with an empty name get none.
	Name string
	// X and Y are the coordinates of the points, the same non-zero length.
	X, Y []float64
	// YErr, if not nil, has one non-negative half-width per point, drawn
	// as the error bar Y ± YErr.
	YErr []float64
}

// CurveOptions control [Curves] and [CurvesPanel]. The zero value is usable.
type CurveOptions struct {
	// Title is drawn above the axes.
	Title string
	// XLabel and YLabel name the axes (for example "dimension" and "error
	// rate").
	XLabel, YLabel string
	// Width and Height are the figure size in pixels at 96 dpi (0: 800 ×
	// 600). The legend takes a strip on the right.
	Width, Height int
	// YMin and YMax fix the y range when YMin < YMax (for example 0 and 1
	// for rates); otherwise it fits the data and error bars.
	YMin, YMax float64
}

// Curves writes a line plot of series to path (format from the
// extension): each series is a line through its points, marked with
// glyphs, with optional error bars, and named in a legend on the right.
// Series i uses the colour and shape of [ClassStyle](i); from the 11th
// series on the lines are also dashed, so up to 30 series stay distinct.
// X values need not be sorted; points are joined in the order given.
func Curves(path string, series []Series, opt CurveOptions) error {
	if _, err := outputFormat(path); err != nil {
		return err
	}
	p, err := CurvesPanel(series, opt)
	if err != nil {
		return err
	}
	return p.save(path, opt.Width, opt.Height)
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}}

// CurvesPanel builds the plot [Curves] draws, for use in a [Grid].
// opt.Width and opt.Height are ignored there.
func CurvesPanel(series []Series, opt CurveOptions) (*Panel, error) {
	if len(series) == 0 {
		return nil, fmt.Errorf("plot: curves: no series")
	}
	for i, s := range series {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("plot: curves: series %d (%q): %w", i, s.Name, err)
		}
	}
	if math.IsNaN(opt.YMin) || math.IsNaN(opt.YMax) || math.IsInf(opt.YMin, 0) || math.IsInf(opt.YMax, 0) {
		return nil, fmt.Errorf("plot: curves: YMin = %v, YMax = %v; want finite values", opt.YMin, opt.YMax)
	}

	p := newPlot(opt.Title, opt.XLabel, opt.YLabel)
	p.Add(plotter.NewGrid())
	panel := &Panel{plot: p}
	for i, s := range series {
		xys := make(plotter.XYs, len(s.X))
		for k := range xys {
			xys[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		line, pts, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("plot: curves: series %d (%q): %w", i, s.Name, err)
		}
		col, shape := ClassStyle(i)
		line.LineStyle.Color = col
		line.LineStyle.Width = vg.Points(1.5)
		line.LineStyle.Dashes = dashes[(i/len(palette))%len(dashes)]
		pts.GlyphStyle = draw.GlyphStyle{Color: col, Radius: vg.Points(3), Shape: shape}
		p.Add(line, pts)
		if s.YErr != nil {
			errs := make(plotter.YErrors, len(s.YErr))
			for k, e := range s.YErr {
				errs[k].Low, errs[k].High = e, e
			}
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{xys, errs})
			if err != nil {
				return nil, fmt.Errorf("plot: curves: series %d (%q): %w", i, s.Name, err)
			}
			bars.LineStyle.Color = col
			bars.LineStyle.Width = vg.Points(1)
			p.Add(bars)
		}
		if s.Name != "" {
			panel.addLegend(s.Name, line, pts)
		}
	}
	if opt.YMin < opt.YMax {
		p.Y.Min, p.Y.Max = opt.YMin, opt.YMax
	}
	if integralX(series) {
		p.X.Tick.Marker = integerTicks{}
	}
	return panel, nil
}

// check validates one series.
func (s Series) check() error {
	if len(s.X) == 0 || len(s.Y) == 0 {
		return fmt.Errorf("empty (X has %d values, Y has %d)", len(s.X), len(s.Y))
	}
	if len(s.X) != len(s.Y) {
		return fmt.Errorf("X has %d values but Y has %d", len(s.X), len(s.Y))
	}
	if s.YErr != nil && len(s.YErr) != len(s.Y) {
		return fmt.Errorf("YErr has %d values but Y has %d", len(s.YErr), len(s.Y))
	}
	for _, v := range []struct {
		name string
		vals []float64
	}{{"X", s.X}, {"Y", s.Y}, {"YErr", s.YErr}} {
		for k, x := range v.vals {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s[%d] is %v; values must be finite", v.name, k, x)
			}
			if v.name == "YErr" && x < 0 {
				return fmt.Errorf("YErr[%d] = %v; error bars must be ≥ 0", k, x)
			}
		}
	}
	return nil
}

// integralX reports whether every X of every series is a whole number
// (dimensions, counts), whose axis is then labelled at whole numbers only.
func integralX(series []Series) bool {
	for _, s := range series {
		for _, x := range s.X {
			if x != math.Trunc(x) {
				return false
			}
		}
	}
	return true
}

// integerTicks labels an axis at whole numbers: at a step of 1, 2 or 5
// times a power of ten giving at most about eight labels, with unlabelled
// minor ticks between them when the step allows.
type integerTicks struct{}

// Ticks implements gonum/plot's Ticker.
func (integerTicks) Ticks(lo, hi float64) []gplot.Tick {
	step := 1.0
	for i := 1; (hi-lo)/step > 8; i++ { // 2, 5, 10, 20, 50, 100, …
		step = []float64{1, 2, 5}[i%3] * math.Pow(10, float64(i/3))
	}
	minor := step / 5
	if minor < 1 {
		minor = 1
	}
	var ticks []gplot.Tick
	for v := math.Ceil(lo/minor) * minor; v <= hi; v += minor {
		t := gplot.Tick{Value: v}
		if math.Mod(v, step) == 0 {
			t.Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
		ticks = append(ticks, t)
	}
	return ticks
}
