package stepper_test

import (
	"testing"

	"github.com/gorigid/gorigid/stepper"
)

// CategoriesCollide is the narrow phase's rule for two geoms' Category
// and Mask: zeros are DefaultCategory and every bit; a pair collides only
// when each one's category meets the other's mask.
func TestCategoriesCollide(t *testing.T) {
	for _, c := range []struct {
		ca, ma, cb, mb uint32
		want           bool
	}{
		{0, 0, 0, 0, true},           // defaults: category 1, every mask bit
		{2, 0, 0, ^uint32(2), false}, // b's mask has every bit but a's
		{2, 0, 0, 1, false},          // b only takes category 1
		{2, 2, 2, 2, true},
		{1, 2, 2, 1, true},
		{1, 2, 2, 4, false}, // b's mask misses a's category
		{0, 1, 4, 0, false}, // a's mask misses b's category 4
	} {
		if got := stepper.CategoriesCollide(c.ca, c.ma, c.cb, c.mb); got != c.want {
			t.Errorf("CategoriesCollide(%d, %#x, %d, %#x) = %v, want %v", c.ca, c.ma, c.cb, c.mb, got, c.want)
		}
	}
}
