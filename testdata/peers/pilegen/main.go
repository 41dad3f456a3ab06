// Command pilegen writes a registered scene of boxes on a ground plane
// (randompile, piles, dominoes) as one line per box for the peer programs
// of testdata/peers: "sx sy sz mass x y z qw qx qy qz vx vy vz wx wy wz
// mu" (sides and positions in m, mass in kg, orientation as a unit
// quaternion, velocity in m/s, angular velocity in rad/s, friction μ).
//
//	go run ./testdata/peers/pilegen randompile boxes=100 > pile.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/gorigid/gorigid/contact"
	"github.com/gorigid/gorigid/scenes"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pilegen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 1 {
		return fmt.Errorf("usage: pilegen SCENE [NAME=VALUE…]")
	}
	set := map[string]string{}
	for _, a := range args[1:] {
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("%q: want NAME=VALUE", a)
		}
		set[k] = v
	}
	sc, err := scenes.Lookup(args[0])
	if err != nil {
		return err
	}
	w, err := sc.Build(set)
	if err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	for _, g := range w.Geoms {
		if g.Shape.Kind == contact.Plane {
			continue
		}
		if g.Shape.Kind != contact.Box {
			return fmt.Errorf("geom of body %d is not a box", g.Body)
		}
		b := w.Bodies[g.Body]
		s := g.Shape.Size
		fmt.Fprintf(out, "%.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
			s[0], s[1], s[2], b.Mass, b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2],
			b.Vel[0], b.Vel[1], b.Vel[2], b.AngVel[0], b.AngVel[1], b.AngVel[2], g.Material.Friction)
	}
	return out.Flush()
}
