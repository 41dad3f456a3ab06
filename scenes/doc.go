// Package scenes builds gorigid's built-in scenes through the public API
// only: each is a function of documented parameters (units on every field)
// returning a ready stepper.World, with a Default…Params holding the
// papers' values.
//
//   - Pendulum: one link on a hinge (analytic small-amplitude period).
//   - Chain: the 6-link chain of post-stabilization-lcp.md, links 100 mm,
//     pinned at one end, released horizontal.
package scenes
