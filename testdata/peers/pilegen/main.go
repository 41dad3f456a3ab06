// Command pilegen writes a registered scene of boxes on a ground plane
// (randompile, piles, dominoes, brickwall, pyramid) for the peer programs
// of testdata/peers, in one of three formats chosen by -format:
//
//   - boxes (the default): one line per box for ode_pile and ode_scene,
//     "sx sy sz mass x y z qw qx qy qz vx vy vz wx wy wz mu" (sides and
//     positions in m, mass in kg, orientation as a unit quaternion,
//     velocity in m/s, angular velocity in rad/s, friction μ);
//   - mjcf: a MuJoCo model (MJCF XML) for mujoco_scene: one free body per
//     box with the box's mass and body-frame inertia, the scene's time
//     step, gravity and friction, the Newton solver, a ground plane;
//   - scene: gorigid's own scene file (scenes.Export) for gostep.
//
// All three come from the same registered scene with the same parameter
// overrides, so every engine steps the same boxes.
//
//	go run ./testdata/peers/pilegen randompile boxes=100 > pile.txt
//	go run ./testdata/peers/pilegen -format mjcf pyramid base=10 > pyramid55.xml
//	go run ./testdata/peers/pilegen -format scene pyramid base=10 > pyramid55.json
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "pilegen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("pilegen", flag.ContinueOnError)
	format := fs.String("format", "boxes", "output format: boxes, mjcf or scene")
	if err := fs.Parse(args); err != nil {
		return err
	}
	args = fs.Args()
	if len(args) < 1 {
		return fmt.Errorf("usage: pilegen [-format boxes|mjcf|scene] SCENE [NAME=VALUE…]")
	}
	set := map[string]string{}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: want NAME=VALUE", a)
		}
		set[k] = v
	}
	if *format == "scene" {
		return scenes.Export(args[0], set, stdout)
	}
	sc, err := scenes.Lookup(args[0])
	if err != nil {
		return err
	}
	w, err := sc.Build(set)
	if err != nil {
		return err
	}
	boxes, mu, err := collect(w)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(stdout)
	switch *format {
	case "boxes":
		writeBoxes(out, w, boxes)
	case "mjcf":
		if err := writeMJCF(out, w, boxes, mu, args); err != nil {
			return err
		}
	default:
		return fmt.Errorf("-format %q: want boxes, mjcf or scene", *format)
	}
	return out.Flush()
}

// collect returns the box geoms of w in body order and the ground plane's
// friction. It rejects anything but one box centred on each dynamic body
// and a z-up ground plane through the origin, which is all the peer
// programs model.
func collect(w *stepper.World) (boxes []stepper.Geom, groundMu float64, err error) {
	ground := false
	for _, g := range w.Geoms {
		local := g.Local.Pos != (mgl64.Vec3{}) ||
			(g.Local.Rot != (mgl64.Quat{}) && g.Local.Rot != mgl64.QuatIdent())
		switch {
		case g.Shape.Kind == contact.Plane && !ground && !local:
			ground, groundMu = true, g.Material.Friction
		case g.Shape.Kind == contact.Box && !local:
			if len(boxes) > 0 && g.Body <= boxes[len(boxes)-1].Body {
				return nil, 0, fmt.Errorf("body %d has more than one geom", g.Body)
			}
			boxes = append(boxes, g)
		default:
			return nil, 0, fmt.Errorf("geom of body %d is not a box centred on its body or the one ground plane", g.Body)
		}
	}
	if !ground {
		return nil, 0, fmt.Errorf("the scene has no ground plane")
	}
	return boxes, groundMu, nil
}

func writeBoxes(out io.Writer, w *stepper.World, boxes []stepper.Geom) {
	for _, g := range boxes {
		b := w.Bodies[g.Body]
		s := g.Shape.Size
		fmt.Fprintf(out, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
			s[0], s[1], s[2], b.Mass, b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2],
			b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2], g.Material.Friction)
	}
}

// writeMJCF writes the scene as a MuJoCo model. MuJoCo takes the larger
// friction of two geoms in contact, gorigid their geometric mean and the
// ODE programs the smaller; the scenes of issue 25 have one μ, so all
// agree. The contact softness (solref, solimp) is MuJoCo's default; the
// solver is Newton with its default iterations and tolerance, the friction
// cone MuJoCo's default pyramid, condim 3 (sliding friction, no torsion or
// rolling). size reserves room for 10 contacts per box and 4 rows per
// contact (the 210-brick pyramid uses 9), and a stack of 2·njmax·nv
// numbers (the 210-brick pyramid peaks at 0.84·nefc·nv, the 100-box pile
// at 1.9·nefc·nv), so the scenes are not cut short. MuJoCo 2.2.2's
// mjData also holds njmax² entries of efc_AR: the 496-brick pyramid does
// not fit (mj_makeData returns NULL).
func writeMJCF(out io.Writer, w *stepper.World, boxes []stepper.Geom, groundMu float64, args []string) error {
	s := w.Settings
	if s.H <= 0 || math.IsNaN(s.H) {
		return fmt.Errorf("scene time step %v: want > 0", s.H)
	}
	ncon := 10 * (len(boxes) + 1)
	njmax := 4 * ncon
	nv := 6 * len(boxes)
	nstack := 2*njmax*nv + 1<<20
	fmt.Fprintf(out, "<!-- pilegen -format mjcf %s: %d boxes -->\n", strings.Join(args, " "), len(boxes))
	fmt.Fprintf(out, "<mujoco model=%q>\n", args[0])
	fmt.Fprintf(out, "  <option timestep=\"%.17g\" gravity=\"%.17g %.17g %.17g\" solver=\"Newton\" cone=\"pyramidal\" jacobian=\"auto\"/>\n",
		s.H, s.Gravity[0], s.Gravity[1], s.Gravity[2])
	fmt.Fprintf(out, "  <size njmax=\"%d\" nconmax=\"%d\" nstack=\"%d\"/>\n", njmax, ncon, nstack)
	fmt.Fprintf(out, "  <worldbody>\n")
	fmt.Fprintf(out, "    <geom name=\"ground\" type=\"plane\" size=\"0 0 1\" condim=\"3\" friction=\"%.17g 0 0\"/>\n", groundMu)
	var key strings.Builder
	moving := false
	for i, g := range boxes {
		b := w.Bodies[g.Body]
		sz := g.Shape.Size
		I := b.Inertia
		fmt.Fprintf(out, "    <body name=\"b%d\" pos=\"%.17g %.17g %.17g\" quat=\"%.17g %.17g %.17g %.17g\">\n",
			i, b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2])
		fmt.Fprintf(out, "      <freejoint/>\n")
		fmt.Fprintf(out, "      <inertial pos=\"0 0 0\" mass=\"%.17g\" fullinertia=\"%.17g %.17g %.17g %.17g %.17g %.17g\"/>\n",
			b.Mass, I.At(0, 0), I.At(1, 1), I.At(2, 2), I.At(0, 1), I.At(0, 2), I.At(1, 2))
		fmt.Fprintf(out, "      <geom type=\"box\" size=\"%.17g %.17g %.17g\" condim=\"3\" friction=\"%.17g 0 0\"/>\n",
			sz[0]/2, sz[1]/2, sz[2]/2, g.Material.Friction)
		fmt.Fprintf(out, "    </body>\n")
		// A free joint's qvel is the linear velocity in the world frame
		// and the angular velocity in the body frame.
		wl := b.Rot.Conjugate().Rotate(b.AngVel)
		fmt.Fprintf(&key, " %.17g %.17g %.17g %.17g %.17g %.17g", b.Vel[0], b.Vel[1], b.Vel[2], wl[0], wl[1], wl[2])
		moving = moving || b.Vel != (mgl64.Vec3{}) || b.AngVel != (mgl64.Vec3{})
	}
	fmt.Fprintf(out, "  </worldbody>\n")
	if moving {
		fmt.Fprintf(out, "  <keyframe>\n    <key name=\"start\" qvel=\"%s\"/>\n  </keyframe>\n", strings.TrimSpace(key.String()))
	}
	fmt.Fprintf(out, "</mujoco>\n")
	return nil
}
