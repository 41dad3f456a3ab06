package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// Key returns the job's content key: the SHA-256 of everything that
// determines its result — scene, scene hash, overrides, swept values,
// experiment, measured frames, solver, steps, substeps, solver
// tolerance and Coherent (when set), body, angle weight and build — and not of its
// ID, its sweep or whether it asks for the trajectory. Spec.Jobs and Calibrate use "<experiment>-<solver>-" and
// the first 16 hex digits of it as the job's ID, so a result is found by
// what the job runs, whichever command made it: `sim calibrate` after
// `sim sweep` of the same spec reuses the sweep's results.
func (j *Job) Key() string {
	h := sha256.New()
	str := func(s string) {
		writeUint(h, uint64(len(s)))
		h.Write([]byte(s))
	}
	str("gorigid job key v1")
	str(j.Scene)
	str(j.SceneHash)
	keys := sortedKeys(j.Set)
	writeUint(h, uint64(len(keys)))
	for _, k := range keys {
		str(k)
		str(j.Set[k])
	}
	writeUint(h, uint64(len(j.Params)))
	for _, v := range j.Params {
		writeUint(h, math.Float64bits(v))
	}
	str(j.Experiment)
	writeUint(h, uint64(len(j.Measured)))
	for _, f := range j.Measured {
		writeUint(h, uint64(int64(f.Step)))
		writeUint(h, math.Float64bits(f.Time))
		for _, q := range f.Q {
			writeUint(h, math.Float64bits(q))
		}
	}
	str(j.Solver)
	writeUint(h, uint64(int64(j.Steps)))
	writeUint(h, uint64(int64(max(j.Substeps, 1))))
	if j.Tolerance != 0 {
		// Only when set, so the keys of jobs at the solver's default
		// tolerance (and their recorded results) are those of before.
		str("tolerance")
		writeUint(h, math.Float64bits(j.Tolerance))
	}
	if j.Coherent != nil {
		// Only when set, as the tolerance.
		if *j.Coherent {
			str("coherent")
		} else {
			str("coherent off")
		}
	}
	writeUint(h, uint64(int64(j.Body)))
	writeUint(h, math.Float64bits(j.AngleLength))
	str(j.Build)
	return hex.EncodeToString(h.Sum(nil))
}

func writeUint(h hash.Hash, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
}

// contentID is the ID Spec.Jobs and Calibrate give a job (Key).
func contentID(j *Job) string {
	return j.Experiment + "-" + j.Solver + "-" + j.Key()[:16]
}
