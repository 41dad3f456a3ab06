package scenes_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/gorigid/gorigid/body"
	"github.com/gorigid/gorigid/scenes"
	"github.com/gorigid/gorigid/stepper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 27, "Names and local frames": bodies nested in a parent and joint
// points and axes in a body's frame, resolved into world coordinates
// before the World is built.

// docsJSON returns the json block of docs/scene-files.md marked
// `<!-- readme-test: the json block above is NAME -->`.
func docsJSON(t testing.TB, name string) string {
	t.Helper()
	data, err := os.ReadFile("../docs/scene-files.md")
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	var block []string
	for i := 0; i < len(lines); i++ {
		if lines[i] == "```json" {
			block = nil
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				block = append(block, lines[i])
			}
			continue
		}
		if lines[i] == "<!-- readme-test: the json block above is "+name+" -->" {
			require.NotEmpty(t, block, "no json block above the %s marker", name)
			return strings.Join(block, "\n") + "\n"
		}
	}
	t.Fatalf("docs/scene-files.md: no json block marked %s", name)
	return ""
}

// near reports the first differences (up to 5) between a and b, walked
// field by field, unexported fields included: floats must agree within
// tol·max(1, |a|, |b|), everything else exactly. It compares built
// Worlds' bodies and joints, whose fields are unexported.
func near(a, b any, tol float64) []string {
	var diffs []string
	seen := map[[2]uintptr]bool{}
	var walk func(path string, x, y reflect.Value)
	walk = func(path string, x, y reflect.Value) {
		if len(diffs) >= 5 {
			return
		}
		if x.Kind() != y.Kind() || x.Type() != y.Type() {
			diffs = append(diffs, fmt.Sprintf("%s: types %v and %v", path, x.Type(), y.Type()))
			return
		}
		switch x.Kind() {
		case reflect.Float32, reflect.Float64:
			u, v := x.Float(), y.Float()
			if !(math.Abs(u-v) <= tol*math.Max(1, math.Max(math.Abs(u), math.Abs(v)))) && !(math.IsNaN(u) && math.IsNaN(v)) && u != v {
				diffs = append(diffs, fmt.Sprintf("%s: %v and %v", path, u, v))
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if x.Int() != y.Int() {
				diffs = append(diffs, fmt.Sprintf("%s: %d and %d", path, x.Int(), y.Int()))
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			if x.Uint() != y.Uint() {
				diffs = append(diffs, fmt.Sprintf("%s: %d and %d", path, x.Uint(), y.Uint()))
			}
		case reflect.Bool:
			if x.Bool() != y.Bool() {
				diffs = append(diffs, fmt.Sprintf("%s: %v and %v", path, x.Bool(), y.Bool()))
			}
		case reflect.String:
			if x.String() != y.String() {
				diffs = append(diffs, fmt.Sprintf("%s: %q and %q", path, x.String(), y.String()))
			}
		case reflect.Pointer, reflect.Interface:
			if x.IsNil() || y.IsNil() {
				if x.IsNil() != y.IsNil() {
					diffs = append(diffs, path+": one is nil")
				}
				return
			}
			if x.Kind() == reflect.Pointer {
				key := [2]uintptr{x.Pointer(), y.Pointer()}
				if seen[key] {
					return
				}
				seen[key] = true
			}
			walk(path, x.Elem(), y.Elem())
		case reflect.Struct:
			for i := 0; i < x.NumField(); i++ {
				walk(path+"."+x.Type().Field(i).Name, x.Field(i), y.Field(i))
			}
		case reflect.Slice, reflect.Array:
			if x.Len() != y.Len() {
				diffs = append(diffs, fmt.Sprintf("%s: lengths %d and %d", path, x.Len(), y.Len()))
				return
			}
			for i := 0; i < x.Len(); i++ {
				walk(fmt.Sprintf("%s[%d]", path, i), x.Index(i), y.Index(i))
			}
		case reflect.Map:
			if x.Len() != y.Len() {
				diffs = append(diffs, fmt.Sprintf("%s: sizes %d and %d", path, x.Len(), y.Len()))
			}
		case reflect.Func:
			// not data
		default:
			diffs = append(diffs, fmt.Sprintf("%s: cannot compare a %v", path, x.Kind()))
		}
	}
	walk("", reflect.ValueOf(a), reflect.ValueOf(b))
	return diffs
}

// sameWorld checks that two Worlds hold the same bodies, geoms and joints
// to tol.
func sameWorld(t *testing.T, want, got *stepper.World, tol float64) {
	t.Helper()
	assert.Empty(t, near(want.Bodies, got.Bodies, tol), "bodies")
	assert.Empty(t, near(want.Geoms, got.Geoms, tol), "geoms")
	assert.Empty(t, near(want.Joints, got.Joints, tol), "joints")
	for i := range want.Joints {
		assert.Equal(t, want.JointName(i), got.JointName(i))
	}
}

// cartWorldCoords is the cart of docs/scene-files.md written in world
// coordinates, as a user without local frames works them out: the ramp's
// rotation R (30° about y) applied by hand to every position in its frame
// and the cart's, and to the axles.
func cartWorldCoords(t *testing.T, nested string) *scenes.SceneSpec {
	s, err := scenes.ReadSpec(strings.NewReader(nested), "cart.json")
	require.NoError(t, err)
	c, sn := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	R := func(v mgl64.Vec3) mgl64.Vec3 { return mgl64.Vec3{c*v[0] + sn*v[2], v[1], -sn*v[0] + c*v[2]} }
	rampPos := mgl64.Vec3{0, 0, 1}
	rampRot := mgl64.Quat{W: math.Cos(math.Pi / 12), V: mgl64.Vec3{0, math.Sin(math.Pi / 12), 0}}
	cart := rampPos.Add(R(mgl64.Vec3{-1.2, 0, 0.3}))
	wheel := func(x float64) mgl64.Vec3 { return cart.Add(R(mgl64.Vec3{x, 0, -0.1})) }
	for i := range s.Bodies {
		b := &s.Bodies[i]
		switch b.Name {
		case "ramp":
			b.Rot = rampRot
		case "cart":
			b.Pos, b.Rot = cart, rampRot
		case "front":
			b.Pos, b.Rot = wheel(0.25), rampRot
		case "rear":
			b.Pos, b.Rot = wheel(-0.25), rampRot
		default:
			t.Fatalf("unexpected body %q", b.Name)
		}
		b.Parent = ""
	}
	for i := range s.Joints {
		j := &s.Joints[i]
		j.Pivot, j.Axis, j.Frame = wheel(map[string]float64{"front": 0.25, "rear": -0.25}[j.A]), R(mgl64.Vec3{0, 1, 0}), ""
	}
	return s
}

// The example: a cart on a tilted ramp written with a nested cart
// and wheels and with axles in the cart's frame loads to the World of the
// same scene written in world coordinates, and rolls down the ramp at the
// rate docs/scene-files.md states.
func TestCartOnRampLocalFrames(t *testing.T) {
	nested := docsJSON(t, "cart.json")
	require.Contains(t, nested, `"parent": "cart"`)
	require.Contains(t, nested, `"frame": "cart"`)
	local, err := scenes.Load(strings.NewReader(nested), "cart.json")
	require.NoError(t, err)

	var file bytes.Buffer
	require.NoError(t, cartWorldCoords(t, nested).Marshal(&file))
	assert.NotContains(t, file.String(), `"parent"`)
	assert.NotContains(t, file.String(), `"frame"`)
	world, err := scenes.Load(&file, "cart-world.json")
	require.NoError(t, err)
	sameWorld(t, world, local, 1e-12)
	// Not vacuous: the cart is off the ramp's centre line and tilted.
	assert.InDelta(t, -0.8892304845413265, local.Bodies[1].Pos[0], 1e-12)
	assert.InDelta(t, 1.8598076211353316, local.Bodies[1].Pos[2], 1e-12)

	// Both roll alike; the cart's speed along the slope after 0.5 s is
	// a t with a = g sin 30° · 5/5.5 (4 kg cart, two 0.5 kg wheels whose
	// ½ m r² adds 0.5 kg of rolling inertia).
	for range 50 {
		_, err = local.Step()
		require.NoError(t, err)
		_, err = world.Step()
		require.NoError(t, err)
	}
	assert.Empty(t, near(world.Bodies, local.Bodies, 1e-9), "after 50 steps")
	a := 9.81 * 0.5 * 5 / 5.5
	assert.InDelta(t, a*0.5, local.Bodies[1].Vel.Len(), 1e-3*a*0.5)
	assert.InDelta(t, 4.46, a, 0.005, "the acceleration the docs state")
}

// WorldFrame writes a nested scene in world coordinates: the file has no
// parent or frame key, builds the World of the nested file bit for bit and
// steps identically; the nested spec is left as it was. A spec with
// nothing to resolve is returned itself.
func TestWorldFrameRoundTrip(t *testing.T) {
	nested := docsJSON(t, "cart.json")
	s, err := scenes.ReadSpec(strings.NewReader(nested), "cart.json")
	require.NoError(t, err)
	before := s.String()
	flat, err := s.WorldFrame()
	require.NoError(t, err)
	assert.Equal(t, before, s.String(), "WorldFrame leaves its receiver alone")
	text := flat.String()
	assert.NotContains(t, text, `"parent"`)
	assert.NotContains(t, text, `"frame"`)
	again, err := flat.WorldFrame()
	require.NoError(t, err)
	assert.Same(t, flat, again, "nothing left to resolve")

	a, err := scenes.Load(strings.NewReader(nested), "cart.json")
	require.NoError(t, err)
	b, err := scenes.Load(strings.NewReader(text), "flat.json")
	require.NoError(t, err)
	sameWorld(t, a, b, 0)
	for range 100 {
		_, err = a.Step()
		require.NoError(t, err)
		_, err = b.Step()
		require.NoError(t, err)
	}
	assert.Empty(t, near(a.Bodies, b.Bodies, 0), "bit for bit after 100 steps")

	// Marshal writes what the spec says: parent and frame survive a
	// read and write.
	var out bytes.Buffer
	require.NoError(t, s.Marshal(&out))
	assert.Contains(t, out.String(), `"parent": "ramp"`)
	assert.Contains(t, out.String(), `"frame": "cart"`)

	// Every built-in scene is in world coordinates already: Export is.
	for _, name := range builtins {
		assert.NotContains(t, string(exportText(t, name, nil)), `"parent"`, name)
	}
}

// Nesting resolves through any depth, whatever the order of the list:
// a grandchild listed before its parent and grandparent is placed by both
// rotations; a nested kinematic body's path is in its parent's frame;
// "world" as parent or frame is the world.
func TestNestedBodies(t *testing.T) {
	const file = `{"version": 1, "settings": {"h": 0.01, "gravity": [0, 0, 0]}, "bodies": [
	  {"name": "c", "parent": "b", "mass": 1, "inertia": [1, 1, 1], "position": [0, 0, 1], "orientation": [0, 0, 0, 1], "velocity": [1, 2, 3]},
	  {"name": "b", "parent": "a", "mass": 1, "inertia": [1, 1, 1], "position": [1, 0, 0], "orientation": [0.8, 0.6, 0, 0]},
	  {"name": "a", "parent": "world", "static": true, "position": [1, 2, 3], "orientation": [0.6, 0, 0, 0.8]},
	  {"name": "k", "parent": "a", "kinematic": true, "position": [0, 1, 0],
	   "path": [{"time": 0, "position": [0, 1, 0]}, {"time": 1, "position": [0, 2, 0]}]}
	]}`
	w, err := scenes.Load(strings.NewReader(file), "nest.json")
	require.NoError(t, err)
	qa := mgl64.Quat{W: 0.6, V: mgl64.Vec3{0, 0, 0.8}}
	qb := qa.Mul(mgl64.Quat{W: 0.8, V: mgl64.Vec3{0.6, 0, 0}})
	rot := func(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 { return body.QuatMat3(q).Mul3x1(v) }
	pa := mgl64.Vec3{1, 2, 3}
	pb := pa.Add(rot(qa, mgl64.Vec3{1, 0, 0}))
	pc := pb.Add(rot(qb, mgl64.Vec3{0, 0, 1}))
	qc := qb.Mul(mgl64.Quat{W: 0, V: mgl64.Vec3{0, 0, 1}})
	byName := func(n string) *body.Body {
		b, _, err := w.Body(n)
		require.NoError(t, err)
		return b
	}
	assert.Empty(t, near(pa, byName("a").Pos, 1e-12))
	assert.Empty(t, near(pb, byName("b").Pos, 1e-12))
	assert.Empty(t, near(pc, byName("c").Pos, 1e-12))
	assert.Empty(t, near(qc, byName("c").Rot, 1e-12))
	assert.Equal(t, mgl64.Vec3{1, 2, 3}, byName("c").Vel, "velocities stay in the world frame")
	// Not vacuous: c's nested position is far from its local one.
	assert.Greater(t, pc.Sub(mgl64.Vec3{0, 0, 1}).Len(), 1.0)

	// k follows its path in a's frame: y of a is (−0.8, 0.6, 0) in the
	// world (a is turned about z), so after 0.5 s it is 1.5 m along it.
	pk := pa.Add(rot(qa, mgl64.Vec3{0, 1, 0}))
	assert.Empty(t, near(pk, byName("k").Pos, 1e-12))
	for range 50 {
		_, err = w.Step()
		require.NoError(t, err)
	}
	assert.Empty(t, near(pa.Add(rot(qa, mgl64.Vec3{0, 1.5, 0})), byName("k").Pos, 1e-9))
}

// A joint's frame carries every point and axis of every joint type: each
// type written in the frame of a turned and moved body builds the joint
// written with the same vectors in world coordinates.
func TestJointFrames(t *testing.T) {
	const bodies = `"bodies": [
	  {"name": "a", "mass": 1, "inertia": [1, 1, 1], "position": [0.5, -1, 2], "orientation": [0.5, 0.5, 0.5, 0.5]},
	  {"name": "b", "mass": 1, "inertia": [1, 1, 1], "position": [1, 1, 1]},
	  {"name": "c", "mass": 1, "inertia": [1, 1, 1], "position": [2, 0, 1]}]`
	// a's frame: x→y, y→z, z→x (a turn of 120° about (1, 1, 1)).
	pt := func(p [3]float64) mgl64.Vec3 { return mgl64.Vec3{0.5 + p[2], -1 + p[0], 2 + p[1]} }
	ax := func(a [3]float64) mgl64.Vec3 { return mgl64.Vec3{a[2], a[0], a[1]} }
	v := func(x mgl64.Vec3) string { return fmt.Sprintf("[%v, %v, %v]", x[0], x[1], x[2]) }
	p1, p2, a1, a2, a3 := [3]float64{0.1, 0.2, 0.3}, [3]float64{-0.3, 0.5, 0.7}, [3]float64{1, 0, 0}, [3]float64{0, 1, 1}, [3]float64{0, 0, 1}
	for _, c := range []struct{ typ, local, world string }{
		{"ball", `"pivot": [0.1, 0.2, 0.3]`, `"pivot": ` + v(pt(p1))},
		{"fixed", `"pivot": [0.1, 0.2, 0.3]`, `"pivot": ` + v(pt(p1))},
		{"hinge", `"pivot": [0.1, 0.2, 0.3], "axis": [1, 0, 0]`, `"pivot": ` + v(pt(p1)) + `, "axis": ` + v(ax(a1))},
		{"prismatic", `"pivot": [0.1, 0.2, 0.3], "axis": [0, 1, 1]`, `"pivot": ` + v(pt(p1)) + `, "axis": ` + v(ax(a2))},
		{"distance", `"pivot_a": [0.1, 0.2, 0.3], "pivot_b": [-0.3, 0.5, 0.7], "length": 1`,
			`"pivot_a": ` + v(pt(p1)) + `, "pivot_b": ` + v(pt(p2)) + `, "length": 1`},
		{"gear", `"axis_a": [1, 0, 0], "axis_b": [0, 1, 1], "ratio": 2`, `"axis_a": ` + v(ax(a1)) + `, "axis_b": ` + v(ax(a2)) + `, "ratio": 2`},
		{"converter", `"axis_a": [1, 0, 0], "axis_b": [0, 1, 1], "coefficient": 2`,
			`"axis_a": ` + v(ax(a1)) + `, "axis_b": ` + v(ax(a2)) + `, "coefficient": 2`},
		{"differential", `"carrier": "c", "axis_carrier": [0, 0, 1], "axis_a": [1, 0, 0], "axis_b": [0, 1, 1]`,
			`"carrier": "c", "axis_carrier": ` + v(ax(a3)) + `, "axis_a": ` + v(ax(a1)) + `, "axis_b": ` + v(ax(a2))},
	} {
		t.Run(c.typ, func(t *testing.T) {
			load := func(keys string) *stepper.World {
				f := `{"version": 1, "settings": {"h": 0.01}, ` + bodies + `, "joints": [{"type": "` + c.typ +
					`", "body_a": "b", "body_b": "a", ` + keys + `}]}`
				w, err := scenes.Load(strings.NewReader(f), c.typ+".json")
				require.NoError(t, err, f)
				return w
			}
			local, world := load(`"frame": "a", `+c.local), load(c.world)
			assert.Empty(t, near(world.Joints, local.Joints, 1e-12))
			assert.NotEmpty(t, near(load(c.local).Joints, local.Joints, 1e-12), "not vacuous: the frame moves the joint")
			assert.Empty(t, near(load(`"frame": "world", `+c.local).Joints, load(c.local).Joints, 0), `"world" is the default`)
		})
	}
}

// A long cycle of parents is reported once, at its first body, with the
// chain shortened to 8 names.
func TestNestingCycleMessage(t *testing.T) {
	var bodies []string
	for i := range 10 {
		bodies = append(bodies, fmt.Sprintf(`{"name": "b%d", "mass": 1, "inertia": [1, 1, 1], "parent": "b%d"}`, i, (i+1)%10))
	}
	_, err := scenes.Load(strings.NewReader(`{"version": 1, "settings": {"h": 0.01}, "bodies": [`+strings.Join(bodies, ", ")+`]}`), "f.json")
	require.Error(t, err)
	assert.Equal(t, `f.json: bodies[0].parent: "b0" is nested in itself: "b0" → "b1" → "b2" → "b3" → "b4" → "b5" → "b6" → … (3 more) → "b0"; a chain of parents must end at a body that has none`, err.Error())
}
