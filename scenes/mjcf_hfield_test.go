package scenes

import (
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writePNG writes img to dir/name.
func writePNG(t *testing.T, dir, name string, img image.Image) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMJCFHfieldFiles: hfield assets read from files as MuJoCo reads them.
// A 5 × 3 grey PNG becomes 3 rows of 5 heights, the image's top row at +y
// (rows reversed), each pixel p ↦ (p − min)/(max − min) exactly; a
// 16-bit PNG keeps its high byte and a colour PNG its red channel (with a
// warning), giving the same field; MuJoCo's binary form (int32 nrow, ncol,
// float32 samples, row 0 at −y) gives it too. A box dropped on the PNG
// field's plateau (size z 0.5 m, geom at z = 0.1) rests at 0.1 + 0.5 +
// 0.1 m within 1e-3 m, as on the inline field.
func TestMJCFHfieldFiles(t *testing.T) {
	dir := t.TempDir()
	// Pixels: rows top to bottom; 255 is the plateau.
	pix := [3][5]uint8{{255, 255, 255, 255, 255}, {255, 255, 255, 255, 40}, {0, 255, 255, 255, 90}}
	grey := image.NewGray(image.Rect(0, 0, 5, 3))
	grey16 := image.NewGray16(image.Rect(0, 0, 5, 3))
	rgb := image.NewNRGBA(image.Rect(0, 0, 5, 3))
	bin := binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 3), 5)
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			p := pix[y][x]
			grey.SetGray(x, y, color.Gray{Y: p})
			grey16.SetGray16(x, y, color.Gray16{Y: uint16(p)<<8 | 0x7f})
			rgb.SetNRGBA(x, y, color.NRGBA{R: p, G: 255 - p, B: 17, A: 255})
		}
	}
	for r := 0; r < 3; r++ { // binary rows from −y: the image's bottom row first
		for x := 0; x < 5; x++ {
			bin = binary.LittleEndian.AppendUint32(bin, math.Float32bits(float32(pix[2-r][x])))
		}
	}
	writePNG(t, dir, "grey.png", grey)
	writePNG(t, dir, "grey16.png", grey16)
	writePNG(t, dir, "rgb.png", rgb)
	if err := os.WriteFile(filepath.Join(dir, "field.bin"), bin, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file  string
		warns int
	}{{"grey.png", 0}, {"grey16.png", 0}, {"rgb.png", 1}, {"field.bin", 0}} {
		doc := `<mujoco><asset><hfield name="f" file="` + c.file + `" size="2 1 0.5 0.1"/></asset><worldbody>
<geom type="hfield" hfield="f" pos="0 0 0.1"/>
<body name="box" pos="-0.5 0.5 0.9"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
</worldbody></mujoco>`
		s, ws, err := ParseMJCF(strings.NewReader(doc), "h.xml", ImportOptions{SearchPath: []string{dir}})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if len(ws) != c.warns {
			t.Errorf("%s: warnings %v", c.file, ws)
		}
		h := s.WorldShapes[0].Heights
		if len(h) != 3 || len(h[0]) != 5 {
			t.Fatalf("%s: %d × %d heights, want 3 × 5", c.file, len(h), len(h[0]))
		}
		for r := 0; r < 3; r++ {
			for x := 0; x < 5; x++ {
				if want := float64(pix[2-r][x]) / 255; h[r][x] != want {
					t.Errorf("%s: height[%d][%d] = %v, want %v", c.file, r, x, h[r][x], want)
				}
			}
		}
		if c.file == "grey.png" {
			z, v := settle(t, s, 400, "box")
			if math.Abs(z-0.7) > 1e-3 || v > 1e-3 {
				t.Errorf("box at z = %v moving %v m/s, want at rest at 0.7 m", z, v)
			}
		}
	}
	for name, data := range map[string]string{"short.bin": "\x01\x02\x03\x04", "bad.png": "not a png"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ doc, want string }{
		{`<hfield name="f" file="grey.png" nrow="4" size="2 1 0.5 0.1"/>`, `nrow: 4, but file "grey.png" has 3`},
		{`<hfield name="f" file="grey.png" elevation="0 1" size="2 1 0.5 0.1"/>`, `elevation: give the elevation inline or in a file, not both`},
		{`<hfield name="f" file="short.bin" size="2 1 0.5 0.1"/>`, `file "short.bin": binary hfield: 4 bytes, want at least 8`},
		{`<hfield name="f" file="bad.png" size="2 1 0.5 0.1"/>`, `file "bad.png": PNG:`},
	} {
		_, _, err := ParseMJCF(strings.NewReader(`<mujoco><asset>`+c.doc+`</asset></mujoco>`), "e.xml", ImportOptions{SearchPath: []string{dir}})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "e.xml:1: <hfield>") {
			t.Errorf("%s: error %v, want %q", c.doc, err, c.want)
		}
	}
}

// TestMJCFTerrainPile: terrain.xml reads terrain.png next to it (33 × 33,
// the image's top row the field's +y edge, which the image draws higher
// than the −y edge), and its 12 boxes fall onto the terrain and come to
// rest within 4 s: no box below the field's lowest point or off it, the
// energy never rising by more than 1 % of the initial energy, all speeds
// below 1e-2 m/s at the end.
func TestMJCFTerrainPile(t *testing.T) {
	s, ws, err := LoadMJCF(modelDir+"terrain.xml", ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 0 {
		t.Errorf("warnings %v", ws)
	}
	h := s.WorldShapes[0].Heights
	if len(h) != 33 || len(h[0]) != 33 {
		t.Fatalf("%d × %d heights, want 33 × 33", len(h), len(h[0]))
	}
	if !(h[32][16] > h[0][16]) {
		t.Errorf("height at +y %v ≤ at −y %v: rows not reversed", h[32][16], h[0][16])
	}
	w := buildWorld(t, s)
	k0, p0 := w.Energy()
	e0, emin, rise := k0+p0, k0+p0, 0.0
	for n := 0; n < 800; n++ {
		if _, err := w.Step(); err != nil {
			t.Fatalf("step %d: %v", n, err)
		}
		k, p := w.Energy()
		rise = math.Max(rise, k+p-emin)
		emin = math.Min(emin, k+p)
	}
	vmax := 0.0
	for i, b := range w.Bodies {
		vmax = math.Max(vmax, b.Vel.Len())
		if b.Pos[2] < 0 || math.Abs(b.Pos[0]) > 2 || math.Abs(b.Pos[1]) > 2 {
			t.Errorf("box %d at %v: off or under the terrain", i, b.Pos)
		}
	}
	t.Logf("energy %.3g J, largest rise %.3g J, fastest box at the end %.3g m/s", e0, rise, vmax)
	if rise > 0.01*e0 || vmax > 1e-2 {
		t.Errorf("energy rise %.3g J of %.3g J, fastest %.3g m/s; want ≤ 1 %% and < 1e-2 m/s", rise, e0, vmax)
	}
}

// BenchmarkMJCFTerrainPile times one step of terrain.xml's 12 boxes at
// rest on the PNG heightfield (after 800 steps).
func BenchmarkMJCFTerrainPile(b *testing.B) {
	benchRestingStep(b, "terrain.xml", ImportOptions{}, 800)
}
