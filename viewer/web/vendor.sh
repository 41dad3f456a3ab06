#!/usr/bin/env bash
# Vendors three.js into viewer/web/vendor/ for `sim view`, which embeds
# it (Go embed) so the viewer works offline and never fetches code at run
# time. The version is pinned here; to upgrade, change THREE_VERSION, run
#
#   bash viewer/web/vendor.sh
#
# and commit the result. It needs npm and the npm registry only:
# `npm pack` downloads the package tarball, which is checked against the
# integrity hash the registry publishes, and the files the page imports
# are copied out with three's MIT license.
set -euo pipefail
THREE_VERSION=0.187.0
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "three@$THREE_VERSION" >/dev/null)
tar -xzf "$tmp/three-$THREE_VERSION.tgz" -C "$tmp"
out="$here/vendor"
mkdir -p "$out"
# three.module.js imports ./three.core.js; OrbitControls.js imports 'three',
# which the page's import map points at three.module.js.
cp "$tmp/package/build/three.module.js" "$tmp/package/build/three.core.js" "$out/"
cp "$tmp/package/examples/jsm/controls/OrbitControls.js" "$out/"
cp "$tmp/package/LICENSE" "$out/LICENSE"
echo "three@$THREE_VERSION" >"$out/VERSION"
echo "vendored three@$THREE_VERSION into $out"
