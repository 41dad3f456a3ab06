package scenes

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/gorigid/gorigid/internal/num"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
)

// maxHfieldSamples bounds the elevation samples an hfield file may hold.
const maxHfieldSamples = 1 << 24

// hfieldFile reads the elevation of an MJCF <hfield file>, as MuJoCo does:
//
//   - PNG: nrow = the image's height, ncol = its width, each sample the
//     pixel's grey level at 8 bits (a 16-bit image keeps its high byte, a
//     colour image its red channel, as MuJoCo's lodepng decoding to
//     8-bit grey), rows reversed so that the image's top row is the
//     field's +y edge and its left column the −x edge (the image seen from
//     above);
//   - any other file: MuJoCo's binary form, little-endian int32 nrow and
//     ncol, then nrow·ncol float32 samples, row 0 at −y.
//
// Samples are returned row-major from −y; the caller normalizes them to
// [0, 1] as for inline elevation. colour reports a colour PNG.
func hfieldFile(path string) (nrow, ncol int, el []float64, colour bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, nil, false, err
	}
	if strings.EqualFold(filepath.Ext(path), ".png") {
		return hfieldPNG(data)
	}
	if len(data) < 8 {
		return 0, 0, nil, false, fmt.Errorf("binary hfield: %d bytes, want at least 8 (int32 nrow, ncol)", len(data))
	}
	nr, nc := int32(binary.LittleEndian.Uint32(data)), int32(binary.LittleEndian.Uint32(data[4:]))
	if nr < 2 || nc < 2 || int64(nr)*int64(nc) > maxHfieldSamples {
		return 0, 0, nil, false, fmt.Errorf("binary hfield: nrow %d, ncol %d: want ≥ 2 each and at most %d samples", nr, nc, maxHfieldSamples)
	}
	n := int(nr) * int(nc)
	if len(data) != 8+4*n {
		return 0, 0, nil, false, fmt.Errorf("binary hfield: %d bytes, want 8 + 4·%d·%d = %d", len(data), nr, nc, 8+4*n)
	}
	el = make([]float64, n)
	for i := range el {
		v := float64(math.Float32frombits(binary.LittleEndian.Uint32(data[8+4*i:])))
		if !num.Finite(v) {
			return 0, 0, nil, false, fmt.Errorf("binary hfield: sample %d (row %d, column %d) is %v", i, i/int(nc), i%int(nc), v)
		}
		el[i] = v
	}
	return int(nr), int(nc), el, false, nil
}

// hfieldPNG decodes a PNG heightfield (see hfieldFile).
func hfieldPNG(data []byte) (nrow, ncol int, el []float64, colour bool, err error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, nil, false, fmt.Errorf("PNG: %w", err)
	}
	if cfg.Width < 2 || cfg.Height < 2 || int64(cfg.Width)*int64(cfg.Height) > maxHfieldSamples {
		return 0, 0, nil, false, fmt.Errorf("PNG: %d × %d pixels: want ≥ 2 each and at most %d pixels", cfg.Width, cfg.Height, maxHfieldSamples)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return 0, 0, nil, false, fmt.Errorf("PNG: %w", err)
	}
	b := img.Bounds()
	nrow, ncol = b.Dy(), b.Dx()
	el = make([]float64, nrow*ncol)
	switch img.ColorModel() {
	case color.GrayModel, color.Gray16Model:
	default:
		colour = true
	}
	for y := 0; y < nrow; y++ {
		r := nrow - 1 - y // the image's top row is the field's +y edge
		for x := 0; x < ncol; x++ {
			el[r*ncol+x] = float64(grey8(img, b.Min.X+x, b.Min.Y+y))
		}
	}
	return nrow, ncol, el, colour, nil
}

// grey8 returns the 8-bit grey level of the pixel: the grey value's high
// byte, or the non-premultiplied red channel's of a colour pixel.
func grey8(img image.Image, x, y int) uint8 {
	switch im := img.(type) {
	case *image.Gray:
		return im.GrayAt(x, y).Y
	case *image.Gray16:
		return uint8(im.Gray16At(x, y).Y >> 8)
	}
	c := color.NRGBA64Model.Convert(img.At(x, y)).(color.NRGBA64)
	return uint8(c.R >> 8)
}

// hfieldAssetFile reads the elevation file of an <hfield> asset, found as
// mesh files are (meshdir, the model's directory, the search path). A
// file that is missing is a warning and gives no samples (the geoms that
// use the asset are then errors); an unreadable one is an error. nrow and
// ncol, if given, must match the file's.
func (m *mjcf) hfieldAssetFile(a *xnode, name, file string) (nr, nc float64, el []float64, err error) {
	for _, k := range []string{"elevation"} {
		if _, ok := a.attr(k); ok {
			return 0, 0, nil, m.errAt(a, "%s: give the elevation inline or in a file, not both", k)
		}
	}
	path, found := resolveMesh(filepath.Join(m.meshdir, file), m.dir, m.opts.SearchPath)
	if !found {
		m.warnOnce("hfieldfile:"+file, a, "hfield file %q not found in the model's directory or the search path: asset %q left out", clip(file), clip(name))
		return 0, 0, nil, nil
	}
	r, c, el, colour, err := hfieldFile(path)
	if err != nil {
		return 0, 0, nil, m.errAt(a, "file %q: %v", clip(file), err)
	}
	if colour {
		m.warnOnce("hfieldcolour:"+file, a, "hfield file %q is a colour image: its red channel is the elevation, as MuJoCo's PNG reader takes it", clip(file))
	}
	for _, d := range []struct {
		attr string
		want int
	}{{"nrow", r}, {"ncol", c}} {
		if v, ok, err := m.efloats(elem{xnode: a}, d.attr, 1); err != nil {
			return 0, 0, nil, err
		} else if ok && v[0] != 0 && v[0] != float64(d.want) {
			return 0, 0, nil, m.errAt(a, "%s: %v, but file %q has %d", d.attr, v[0], clip(file), d.want)
		}
	}
	return float64(r), float64(c), el, nil
}
