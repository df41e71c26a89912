// Package plot draws the figures of dimred with gonum.org/v1/plot: 2-D
// scatter plots of embeddings coloured by class ([Scatter]), curves such as
// error rate against dimension with optional error bars ([Curves]), and
// multi-panel figures of either kind ([Grid]).
//
// The output format follows the file extension: .png (the default use),
// .svg and .pdf, and also .eps, .jpg/.jpeg, .tif/.tiff. Sizes are given in
// pixels at 96 dots per inch, so a PNG is exactly Width × Height pixels and
// vector formats get the same physical size (Width/96 inches). Fonts are
// compiled in (Liberation), so nothing is read or downloaded at run time.
//
// Inputs are checked before anything is drawn; bad input (empty or
// non-finite data, mismatched lengths, unknown extensions) gives an error
// naming the offending input and no file is written.
package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// DPI is the resolution at which pixel sizes are converted to lengths.
const DPI = 96

// Default figure sizes in pixels.
const (
	DefaultWidth  = 800
	DefaultHeight = 600
	maxPixels     = 20000 // per side
)

// palette is the cycle of class and series colours: matplotlib's "tab10"
// with its grey replaced by black, so that grey stays reserved for
// unlabeled points.
var palette = []color.Color{
	rgb(0x1f77b4), // blue
	rgb(0xff7f0e), // orange
	rgb(0x2ca02c), // green
	rgb(0xd62728), // red
	rgb(0x9467bd), // purple
	rgb(0x8c564b), // brown
	rgb(0xe377c2), // pink
	rgb(0x000000), // black
	rgb(0xbcbd22), // olive
	rgb(0x17becf), // cyan
}

// shapes is the cycle of glyph shapes, filled ones (the easiest to see)
// first.
var shapes = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.RingGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.CrossGlyph{},
	draw.PlusGlyph{},
}

// unlabeledColor is the colour of unlabeled (-1) points.
var unlabeledColor = color.NRGBA{R: 0xaa, G: 0xaa, B: 0xaa, A: 0xb0}

// ClassStyle returns the colour and glyph shape of class (or series) c ≥ 0,
// as used by [Scatter] and [Curves], so other figures can match them.
// Colours cycle through matplotlib's 10 "tab10" colours (grey replaced by
// black: grey is reserved for unlabeled points) and shapes through 8 glyphs;
// since lcm(10, 8) = 40, the pair is unique for up to 40 classes, and
// neighbouring classes differ in both.
func ClassStyle(c int) (color.Color, draw.GlyphDrawer) {
	c = max(c, 0)
	return palette[c%len(palette)], shapes[c%len(shapes)]
}

func rgb(v uint32) color.Color {
	return color.NRGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Panel is one finished plot (axes, data and an optional legend drawn to
// the right of the axes), made by [ScatterPanel] or [CurvesPanel] and
// drawn alone by [Scatter] and [Curves] or side by side by [Grid].
type Panel struct {
	plot   *gplot.Plot
	legend []legendEntry // nil: no legend
	// note, when set, is drawn small in the top right corner: why a
	// legend the plot would have had is not drawn.
	note string
}

// legendEntry is one legend line: a name and the thumbnails drawn
// before it.
type legendEntry struct {
	name   string
	thumbs []gplot.Thumbnailer
}

// addLegend appends an entry to the panel's legend.
func (p *Panel) addLegend(name string, thumbs ...gplot.Thumbnailer) {
	p.legend = append(p.legend, legendEntry{name, thumbs})
}

// draw draws the panel into c, the legend (if any) in a strip on the
// right: in as many columns of equal length as the canvas height needs
// (ORL's 40 classes take two on an 800 × 600 figure). A legend that
// would take more than half the width is left out, and a note in the top
// right corner says so.
func (p *Panel) draw(c draw.Canvas) {
	pad := vg.Points(8)
	if len(p.legend) == 0 {
		p.plot.Draw(draw.Crop(c, 0, -pad, 0, 0)) // glyphs at the edge keep a margin
		p.drawNote(c, p.note)
		return
	}
	top := pad
	if p.plot.Title.Text != "" {
		top += p.plot.Title.TextStyle.Height(p.plot.Title.Text) + p.plot.Title.Padding
	}
	width := c.Max.X - c.Min.X
	cols := legendColumns(p.legend, c.Max.Y-c.Min.Y-top-pad, c)
	lw := pad
	for _, l := range cols {
		r := l.Rectangle(c)
		lw += r.Max.X - r.Min.X + pad
	}
	if lw+pad > width/2 { // never let the legend take more than half
		p.plot.Draw(draw.Crop(c, 0, -pad, 0, 0))
		p.drawNote(c, fmt.Sprintf("legend left out: %d entries do not fit", len(p.legend)))
		return
	}
	p.plot.Draw(draw.Crop(c, 0, -(lw + pad), 0, 0))
	x := width - lw
	for _, l := range cols {
		r := l.Rectangle(c)
		l.Draw(draw.Crop(c, x, -(width - x - (r.Max.X - r.Min.X)), 0, -top))
		x += r.Max.X - r.Min.X + pad
	}
}

// legendColumns splits the entries into columns of equal length (the
// last may be shorter), as few as fit the height h.
func legendColumns(entries []legendEntry, h vg.Length, c draw.Canvas) []*gplot.Legend {
	one := newLegend()
	one.Add(entries[0].name, entries[0].thumbs...)
	r := one.Rectangle(c)
	rowH := r.Max.Y - r.Min.Y + one.Padding
	rows := max(1, int((h+one.Padding)/rowH))
	ncol := (len(entries) + rows - 1) / rows
	rows = (len(entries) + ncol - 1) / ncol
	var cols []*gplot.Legend
	for start := 0; start < len(entries); start += rows {
		l := newLegend()
		for _, e := range entries[start:min(start+rows, len(entries))] {
			l.Add(e.name, e.thumbs...)
		}
		cols = append(cols, l)
	}
	return cols
}

// drawNote writes note (if any) small and grey in the top right corner
// of c.
func (p *Panel) drawNote(c draw.Canvas, note string) {
	if note == "" {
		return
	}
	sty := text.Style{Color: color.Gray{Y: 0x60}, Font: sans(9), XAlign: draw.XRight, YAlign: draw.YTop, Handler: p.plot.Title.TextStyle.Handler}
	c.FillText(sty, vg.Point{X: c.Max.X - vg.Points(4), Y: c.Max.Y - vg.Points(2)}, note)
}

// sans returns Liberation Sans (compiled into gonum/plot) at size points.
func sans(size float64) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)}
}

// newPlot returns a gonum plot with dimred's title and label styles.
func newPlot(title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sans(14)
	p.Title.Padding = vg.Points(6)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.X.Label.TextStyle.Font = sans(12)
	p.Y.Label.TextStyle.Font = sans(12)
	p.X.Tick.Label.Font = sans(10)
	p.Y.Tick.Label.Font = sans(10)
	return p
}

// newLegend returns an empty legend for the right-hand strip.
func newLegend() *gplot.Legend {
	l := gplot.NewLegend()
	l.Top, l.Left = true, true
	l.TextStyle.Font = sans(11)
	l.Padding = vg.Points(2)
	l.ThumbnailWidth = vg.Points(16)
	return &l
}

// formats maps accepted file extensions to gonum/plot format names.
var formats = map[string]string{
	".png": "png", ".svg": "svg", ".pdf": "pdf", ".eps": "eps",
	".jpg": "jpg", ".jpeg": "jpg", ".tif": "tif", ".tiff": "tif",
}

// outputFormat checks path and returns its format name.
// CheckPath reports an error unless path names a file of a format the
// plots can be written in (by its extension), so that a command can refuse
// it before a long computation.
func CheckPath(path string) error {
	_, err := outputFormat(path)
	return err
}

func outputFormat(path string) (string, error) {
	if path == "" {
		return "", fmt.Errorf("plot: empty output path")
	}
	ext := strings.ToLower(filepath.Ext(path))
	f, ok := formats[ext]
	if !ok {
		return "", fmt.Errorf("plot: output %q: unsupported extension %q, want .png, .svg or .pdf (or .eps, .jpg, .tif)", path, ext)
	}
	return f, nil
}

// size checks and defaults a pixel size.
func size(what string, w, h int) (int, int, error) {
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	if w < 0 || h < 0 || w > maxPixels || h > maxPixels {
		return 0, 0, fmt.Errorf("plot: %s size %d×%d pixels, want 1..%d per side (0: default)", what, w, h, maxPixels)
	}
	return w, h, nil
}

// px converts pixels to a length at DPI.
func px(n int) vg.Length { return vg.Length(n) * vg.Inch / DPI }

// render draws with fn on a w×h pixel canvas of path's format and writes
// the file; nothing is written if drawing fails.
func render(path, format string, w, h int, fn func(draw.Canvas)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: drawing %q failed: %v", path, r)
		}
	}()
	c, err := draw.NewFormattedCanvas(px(w), px(h), format)
	if err != nil {
		return fmt.Errorf("plot: output %q: %w", path, err)
	}
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	fn(dc)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return fmt.Errorf("plot: encoding %q: %w", path, err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// save writes a single panel to path.
func (p *Panel) save(path string, w, h int) error {
	format, err := outputFormat(path)
	if err != nil {
		return err
	}
	w, h, err = size("figure", w, h)
	if err != nil {
		return err
	}
	return render(path, format, w, h, p.draw)
}
