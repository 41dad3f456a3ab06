package bpmd

import (
	"fmt"
	"math"
	"reflect"
)

// frameDiff returns "" if a and b are equal field by field (floats bit
// for bit, NaN equal to NaN, nil equal to empty), else the first field
// that differs.
func frameDiff(a, b *Frame) string {
	return diffValue("frame", reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem())
}

func diffValue(path string, a, b reflect.Value) string {
	switch a.Kind() {
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := diffValue(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return fmt.Sprintf("%s: length %d vs %d", path, a.Len(), b.Len())
		}
		for i := 0; i < a.Len(); i++ {
			if d := diffValue(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
	case reflect.Float64:
		x, y := a.Float(), b.Float()
		if math.Float64bits(x) != math.Float64bits(y) && !(math.IsNaN(x) && math.IsNaN(y)) {
			return fmt.Sprintf("%s: %v vs %v", path, x, y)
		}
	default:
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return fmt.Sprintf("%s: %v vs %v", path, a.Interface(), b.Interface())
		}
	}
	return ""
}

func strconvItoa(i int) string { return fmt.Sprint(i) }

func ftoa(x float64) string { return fmt.Sprint(reprFloat(x)) }

// reprFloat formats x as Python's repr does for the values used here.
func reprFloat(x float64) string {
	s := fmt.Sprintf("%v", x)
	if !containsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

func containsAny(s, chars string) bool {
	for _, c := range chars {
		for _, d := range s {
			if c == d {
				return true
			}
		}
	}
	return false
}
