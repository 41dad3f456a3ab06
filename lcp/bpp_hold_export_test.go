package lcp

// StrictHold makes s free every row at a bound whose velocity violates
// it by more than t_w, in every mode (holdLight false): the reference the
// rule is compared with.
func StrictHold(s *BPP) { s.strictHold = true }
