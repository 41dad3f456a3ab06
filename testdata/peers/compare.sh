#!/usr/bin/env bash
# compare.sh builds gorigid's, ODE's and MuJoCo's step programs
# (testdata/peers: gostep, ode_scene.c, mujoco_scene.c), writes each scene
# of issue 25's table with pilegen in the three formats, runs the engines
# interleaved (gorigid, ODE, MuJoCo, gorigid, …) ROUNDS times per scene and
# prints the table: per-step process CPU, collision included, step 1,
# steady (median of the second half of a run) and mean, each the median
# over the rounds with the rounds' range, the largest brick displacement
# after the run, and gorigid's ratio to each peer (ratio of the medians).
#
# Run from the repository root:
#
#	testdata/peers/compare.sh              # 5 rounds, every scene
#	ROUNDS=3 SCENES="wall30 pyr55" testdata/peers/compare.sh
#	ENGINES=go testdata/peers/compare.sh   # gorigid's column alone
#	REPORT=1 OUT=/tmp/peers.abc testdata/peers/compare.sh   # the table of an earlier run again
#
# Needs Go, a C compiler, Debian's libode-dev (ODE 0.16) and
# libmujoco-dev (MuJoCo 2.2.2); an engine whose library is missing is
# left out. The per-round results stay in $OUT (a new temporary
# directory unless set): results.tsv has one line per run.
set -euo pipefail

ROUNDS=${ROUNDS:-5}
OUT=${OUT:-$(mktemp -d /tmp/peers.XXXXXX)}
# scene key | pilegen arguments | steps | engines (ODE is left out of the
# two large pyramids: one dWorldStep of the 210-brick pyramid takes
# minutes here, see README.md)
ALL="pile100|randompile boxes=100|600|go ode mj
wall30|brickwall|300|go ode mj
pyr55|pyramid base=10|120|go ode mj
pyr210|pyramid base=20|60|go mj
pyr496|pyramid base=31|40|go mj"
SCENES=${SCENES:-pile100 wall30 pyr55 pyr210 pyr496}
ENGINES=${ENGINES:-go ode mj}

mkdir -p "$OUT"
root=$(pwd)
[ -f "$root/go.mod" ] && [ -d "$root/testdata/peers" ] || { echo "compare.sh: run from the repository root" >&2; exit 1; }

if [ "${REPORT:-0}" != 1 ]; then
go build -o "$OUT/gostep" ./testdata/peers/gostep
go build -o "$OUT/pilegen" ./testdata/peers/pilegen
have_ode=0 have_mj=0
if pkg-config --exists ode 2>/dev/null &&
	cc -O2 -o "$OUT/ode_scene" testdata/peers/ode_scene.c $(pkg-config --cflags --libs ode) -lm; then
	have_ode=1
fi
if [ -f /usr/include/mujoco/mujoco.h ] &&
	cc -O2 -o "$OUT/mujoco_scene" testdata/peers/mujoco_scene.c -lmujoco -lm; then
	have_mj=1
fi

{
echo "# gorigid $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(go version | cut -d' ' -f3), GOMAXPROCS ${GOMAXPROCS:-default}, $(nproc) cores"
[ $have_ode = 1 ] && echo "# ODE $(pkg-config --modversion ode)" || echo "# ODE: libode-dev not installed, left out"
[ $have_mj = 1 ] && echo "# MuJoCo $(dpkg-query -W -f '${Version}' libmujoco-dev 2>/dev/null || echo '?')" || echo "# MuJoCo: libmujoco-dev not installed, left out"
echo "# load at start: $(cut -d' ' -f1-3 /proc/loadavg); $ROUNDS rounds; results in $OUT"
} | tee "$OUT/header.txt"

# field prints the value of key=value in the line of $1 that starts with $2.
field() { awk -v p="$2" -v k="$3" '$1 == p { for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' "$1"; }

: >"$OUT/results.tsv"
while IFS='|' read -r key args steps engines; do
	case " $SCENES " in *" $key "*) ;; *) continue ;; esac
	# shellcheck disable=SC2086
	"$OUT/pilegen" $args >"$OUT/$key.txt"
	# shellcheck disable=SC2086
	"$OUT/pilegen" -format mjcf $args >"$OUT/$key.xml"
	# shellcheck disable=SC2086
	"$OUT/pilegen" -format scene $args >"$OUT/$key.json"
	for r in $(seq 1 "$ROUNDS"); do
		for e in $engines; do
			case " $ENGINES " in *" $e "*) ;; *) continue ;; esac
			log="$OUT/$key.$e.$r.log"
			case $e in
			go) "$OUT/gostep" "$OUT/$key.json" "$steps" >"$log" 2>&1 || true ;;
			ode) [ $have_ode = 1 ] || continue
				"$OUT/ode_scene" "$steps" <"$OUT/$key.txt" >"$log" 2>/dev/null || true ;;
			mj) [ $have_mj = 1 ] || continue
				"$OUT/mujoco_scene" "$OUT/$key.xml" "$steps" >"$log" 2>&1 || true ;;
			esac
			s1=$(field "$log" cpu_ms step1) st=$(field "$log" cpu_ms steady) mn=$(field "$log" cpu_ms mean)
			d=$(field "$log" hold max_displacement_m)
			if [ -z "$st" ]; then # the run failed: keep its message
				printf '%s\t%s\t%s\tfail\t%s\n' "$key" "$e" "$r" "$(grep -m1 -v '^$' "$log" | tr '\t' ' ')" >>"$OUT/results.tsv"
			else
				printf '%s\t%s\t%s\tok\t%s\t%s\t%s\t%s\n' "$key" "$e" "$r" "$s1" "$st" "$mn" "$d" >>"$OUT/results.tsv"
			fi
		done
	done
done <<<"$ALL"

echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/header.txt"
else
	cat "$OUT/header.txt"
fi
echo
echo "Per-step process CPU (ms), collision included; median of the rounds [range]; hold = largest brick displacement after the run (m, the largest of the rounds)."
echo
awk -F'\t' -v all="$ALL" '
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
	lo = a[1]; hi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function num(x) { return x >= 100 ? sprintf("%.0f", x) : sprintf("%.3g", x) }
function cell(k, e,   m, l, h, m2, l2, h2) {
	if (!((k, e) in st)) return ((k, e) in fail) ? "fails: " fail[k, e] : "—"
	m = med(st[k, e]); l = lo; h = hi
	m2 = med(mn[k, e]); l2 = lo; h2 = hi
	M[k, e] = m; MM[k, e] = m2
	return num(m) " [" num(l) "–" num(h) "] / " num(m2) " [" num(l2) "–" num(h2) "]"
}
function ratio(k, p) {
	if (!((k, "go") in M) || !((k, p) in M)) return "—"
	return sprintf("%.2g / %.2g", M[k, "go"] / M[k, p], MM[k, "go"] / MM[k, p])
}
BEGIN {
	n = split(all, lines, "\n")
	for (i = 1; i <= n; i++) { split(lines[i], f, "|"); order[i] = f[1]; desc[f[1]] = f[2] " (" f[3] " steps)" }
	nk = n
}
$4 == "ok" {
	st[$1, $2] = st[$1, $2] " " $6; mn[$1, $2] = mn[$1, $2] " " $7; s1[$1, $2] = s1[$1, $2] " " $5
	if (!(($1, $2) in hold) || $8 + 0 > hold[$1, $2] + 0) hold[$1, $2] = $8
	seen[$1] = 1
}
$4 == "fail" { msg = $5; sub(/^[^ ]+: [^ ]+: /, "", msg); fail[$1, $2] = msg; seen[$1] = 1 }
END {
	print "| scene | gorigid steady / mean | hold | ODE steady / mean | hold | MuJoCo steady / mean | hold | gorigid/ODE steady / mean | gorigid/MuJoCo steady / mean |"
	print "|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in seen)) continue
		g = cell(k, "go"); o = cell(k, "ode"); m = cell(k, "mj")
		printf "| %s: %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, desc[k], g, hold[k, "go"], o, hold[k, "ode"], m, hold[k, "mj"], ratio(k, "ode"), ratio(k, "mj")
	}
	print ""
	print "Step 1 (ms, median of the rounds):"
	for (i = 1; i <= nk; i++) {
		k = order[i]
		if (!(k in seen)) continue
		line = "  " k ":"
		if ((k, "go") in s1) line = line " gorigid " num(med(s1[k, "go"]))
		if ((k, "ode") in s1) line = line ", ODE " num(med(s1[k, "ode"]))
		if ((k, "mj") in s1) line = line ", MuJoCo " num(med(s1[k, "mj"]))
		print line
	}
}' "$OUT/results.tsv"
