// Package viewer serves a replay viewer for gorigid trajectories: an
// HTTP handler with an embedded web page (three.js, vendored) that draws a
// scene's bodies moving along a trajectory file, with an optional chart of
// the run's step statistics. It is what `sim view` serves; a Go program
// can serve it too, or mount its handler under its own server.
//
// The trajectory (CSV or JSON, the formats trajectory.RunFiles writes) and
// the optional step statistics are read once into memory; poses are kept
// as float32 (7 per body per frame: x, y, z, qw, qx, qy, qz), which is
// plenty for drawing and halves the memory of float64. The page never
// downloads a file whole: it asks /api/frames for a decimated pass first
// (a few hundred frames spread over the run, so the slider works at once)
// and then for the full-resolution frames in chunks of at most
// Options.ChunkValues numbers each, so a 10⁵-row trajectory arrives as a
// dozen small JSON documents while the page keeps drawing.
//
// Endpoints (all GET, JSON), besides the page at /:
//
//	/api/scene   the scene's bodies and geoms (shape kind, sizes, local pose; triangles of hulls, meshes, heightfields)
//	/api/meta    frame and body counts, time range, position bounds, stats summary
//	/api/frames  ?from=F&to=T&stride=S: frames F, F+S, … < T (clamped to one chunk; "next" continues)
//	/api/stats   ?from=F&to=T&stride=S: statistics rows, aggregated over each stride
//
// Hulls (contact.Convex), triangle meshes (contact.TriMesh) and
// heightfields (contact.Heightfield) are sent as vertices and triangles in
// the geom's frame, at most Options.MaxTriangles (DefaultMaxTriangles) in
// all: a heightfield beyond what is left is sent on a coarser grid, a hull
// or mesh as its bounding box, and the page shows a note.
//
// The viewer has no authentication. Serve it on a loopback address, and
// wrap it in LoopbackOnly there, which refuses requests that name another
// host (a page on another origin reaching it through DNS rebinding).
package viewer
