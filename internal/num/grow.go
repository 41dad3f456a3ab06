package num

// Grow returns s resliced to n items, or, when its capacity is short, a
// new slice of n zero items with Headroom(cap(s), n) of capacity: the
// one rule of the solvers' and the step's buffers (lcp, stepper).
func Grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, Headroom(cap(s), n))
	}
	return s[:n]
}

// Headroom is the capacity a buffer of n items gets when it outgrows one
// of capacity old (Grow). A large buffer's first allocation (old = 0, n
// ≥ FirstLarge) gets an eighth more: its size is step 1's of a large
// world (a structure built at rest, its first solve's factor), and make
// zeroes the whole capacity, so a half more would be cleared for
// nothing. Any other buffer gets half again as much, so a count creeping
// up step by step (the contact rows while a pile settles) does not
// reallocate each step.
func Headroom(old, n int) int {
	if old == 0 && n >= FirstLarge {
		return n + n/8
	}
	return n + n/2
}

// FirstLarge is the size from which a first allocation gets Headroom's
// eighth: below it the zeroing is cheap, and the buffers of a world that
// starts small (a pile dropped, 100 boxes) keep growing by half
// (BenchmarkRandomPile100Mean: 256 keeps its allocations at main's).
const FirstLarge = 256
