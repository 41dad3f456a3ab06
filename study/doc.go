// Package study holds experiments of the papers gorigid implements as
// functions that return Go values, so that a Go user gets the numbers the
// command line's `sim study` writes as CSV and PNG.
//
// ContactStabilization is the contact experiment of M. B. Cline and D. K.
// Pai, "Post-Stabilization for Rigid Body Simulation with Contact and
// Constraints" (ICRA 2003), §VI.B, Figs. 8–10: a box pushed around a plane
// by a scripted force field (impacts, resting, sliding, tipping onto edges
// and corners: one and several contact points) and a pile of five boxes,
// each run under every stabilization mode of the stepper, recording the
// deepest penetration after every step.
package study
