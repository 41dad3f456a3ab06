// sim view's page: replays a gorigid trajectory with three.js (vendored,
// see vendor.sh). z is up, as in gorigid.
//
// Loading never blocks the page: /api/frames is asked first for a coarse
// pass (about 400 frames spread over the run: the slider works at once),
// then for every frame in chunks the server caps at meta.chunk_values
// numbers. A frame that has not arrived yet is drawn from the nearest
// earlier coarse frame. Runs too large for memCap numbers keep every
// base-th frame only.
import * as THREE from 'three';
import { OrbitControls } from '/vendor/OrbitControls.js';

const $ = (id) => document.getElementById(id);
const POSE = 7;           // x, y, z, qw, qx, qy, qz per body per frame
const memCap = 24e6;      // pose numbers kept in memory at most (96 MB of float32)
const coarseFrames = 400; // frames in the first, decimated pass

const hook = {            // read by the browser test (.ci/viewer) and handy in the console
  ready: false, loaded: false, statsLoaded: false, frames: 0, frame: 0,
  renderCount: 0, maxFrameGapMs: 0, timings: {}, error: null,
  meshes: [],             // {kind, body, triangles, note} of each hull, trimesh and heightfield drawn
};
window.__viewer = hook;
const t0 = performance.now();

function fail(msg) {
  hook.error = String(msg);
  const e = $('error');
  e.textContent = msg;
  e.style.display = 'block';
}

async function getJSON(url) {
  const r = await fetch(url);
  const j = await r.json();
  if (!r.ok) throw new Error(j.error || `${url}: ${r.status}`);
  return j;
}

function bodyColor(i, b) {
  if (b.static) return new THREE.Color(0x8a8f98);
  return new THREE.Color().setHSL((0.08 + i * 0.618034) % 1, 0.55, 0.56);
}

// triGeometry builds an indexed BufferGeometry from a geom's vertices
// (x, y, z each) and faces (three indices each), with vertex normals.
function triGeometry(g) {
  const geo = new THREE.BufferGeometry();
  geo.setAttribute('position', new THREE.Float32BufferAttribute(g.vertices, 3));
  const n = g.vertices.length / 3;
  geo.setIndex(new (n > 65535 ? THREE.Uint32BufferAttribute : THREE.Uint16BufferAttribute)(g.faces, 1));
  geo.computeVertexNormals();
  geo.computeBoundingSphere();
  return geo;
}

// Edge lines drawn on boxes, hulls and triangle meshes: where the faces
// meeting at an edge turn by more than the angle (degrees), so a hull's
// polygons show, not the triangles they were split into.
const edgeAngle = { box: 1, convex: 1, trimesh: 30 };

// meshFor returns a mesh (with edges for boxes, hulls and triangle meshes)
// for one geom or inertia box.
function meshFor(kind, g, color, extent, translucent) {
  const mat = new THREE.MeshStandardMaterial({ color, roughness: 0.75, metalness: 0.05,
    transparent: translucent, opacity: translucent ? 0.75 : 1 });
  let geo;
  switch (kind) {
    case 'convex': // flat faces: one normal per triangle
      mat.flatShading = true;
      geo = triGeometry(g); break;
    case 'trimesh': // static surfaces, seen from either side
      mat.flatShading = true;
      mat.side = THREE.DoubleSide;
      geo = triGeometry(g); break;
    case 'heightfield': // smooth terrain: normals averaged over the grid
      mat.side = THREE.DoubleSide;
      geo = triGeometry(g); break;
    case 'box': geo = new THREE.BoxGeometry(2 * g.half[0], 2 * g.half[1], 2 * g.half[2]); break;
    case 'sphere': geo = new THREE.SphereGeometry(g.radius, 32, 16); break;
    case 'capsule': // three's capsule and cylinder run along y; gorigid's along local z
      geo = new THREE.CapsuleGeometry(g.radius, 2 * g.half_length, 8, 24).rotateX(Math.PI / 2); break;
    case 'cylinder':
      geo = new THREE.CylinderGeometry(g.radius, g.radius, 2 * g.half_length, 32).rotateX(Math.PI / 2); break;
    case 'plane': {
      const size = Math.max(20, 40 * extent);
      const group = new THREE.Group();
      const plane = new THREE.Mesh(new THREE.PlaneGeometry(size, size),
        new THREE.MeshStandardMaterial({ color: 0x3a4048, roughness: 1, side: THREE.DoubleSide }));
      plane.position.z = -1e-4 * extent; // under the grid lines
      group.add(plane);
      // A grid of 10^k m cells over about 8 extents around the origin.
      const cell = Math.pow(10, Math.round(Math.log10(Math.max(extent, 1e-3) / 5)));
      const divisions = Math.min(200, 2 * Math.ceil((4 * extent) / cell));
      const grid = new THREE.GridHelper(divisions * cell, divisions, 0x6c7480, 0x4a5059);
      grid.rotateX(Math.PI / 2); // GridHelper lies in xz
      group.add(grid);
      return group;
    }
    default: return null;
  }
  const mesh = new THREE.Mesh(geo, mat);
  if (edgeAngle[kind]) {
    mesh.add(new THREE.LineSegments(new THREE.EdgesGeometry(geo, edgeAngle[kind]),
      new THREE.LineBasicMaterial({ color: 0x000000, transparent: true, opacity: 0.35 })));
  }
  return mesh;
}

function setPose(obj, p, q) {
  obj.position.set(p[0], p[1], p[2]);
  obj.quaternion.set(q[1], q[2], q[3], q[0]); // gorigid [w,x,y,z] → three (x,y,z,w)
}

async function main() {
  const [sceneJ, meta] = await Promise.all([getJSON('/api/scene'), getJSON('/api/meta')]);
  hook.timings.meta = performance.now() - t0;
  const N = meta.frames, B = meta.bodies, F = B * POSE;
  hook.frames = N;
  $('title').textContent = `${meta.scene} — ${meta.trajectory}`;
  $('subtitle').textContent = `${N} frames · ${B} bodies · steps ${meta.first_step}–${meta.last_step} · t ${meta.t0.toFixed(3)}–${meta.t1.toFixed(3)} s`;

  // Renderer, camera, controls.
  let renderer;
  try {
    renderer = new THREE.WebGLRenderer({ antialias: true });
  } catch (e) {
    throw new Error(`WebGL is not available in this browser: ${e.message}`);
  }
  renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
  renderer.setClearColor(0x1d2127);
  $('view').appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  const lo = new THREE.Vector3(...meta.bounds_min), hi = new THREE.Vector3(...meta.bounds_max);
  const center = lo.clone().add(hi).multiplyScalar(0.5);
  const extent = Math.max(hi.clone().sub(lo).length(), 0.3);
  scene.fog = new THREE.Fog(0x1d2127, extent * 4, extent * 12); // fades the far ground
  const camera = new THREE.PerspectiveCamera(40, 1, extent / 1000, extent * 500);
  camera.up.set(0, 0, 1);
  camera.position.copy(center).add(new THREE.Vector3(0.8, -1.7, 0.6).multiplyScalar(extent * 0.85));
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.copy(center);
  controls.update();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x404040, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  sun.position.copy(center).add(new THREE.Vector3(0.6, -0.9, 1.6).multiplyScalar(extent * 3));
  scene.add(sun);

  // Bodies: one group each, the geoms inside at their local poses.
  const groups = sceneJ.bodies.map((b, i) => {
    const g = new THREE.Group();
    g.name = b.name;
    scene.add(g);
    if (b.inertia_box) {
      g.add(meshFor('box', { half: b.inertia_box }, bodyColor(i, b), extent, true));
    }
    return g;
  });
  const meshObjs = new Set(); // the hulls, trimeshes and heightfields and their edges
  for (const geom of sceneJ.geoms) {
    const parent = geom.body >= 0 ? groups[geom.body] : scene;
    const color = geom.body >= 0 ? bodyColor(geom.body, sceneJ.bodies[geom.body]) : new THREE.Color(0x8a8f98);
    const m = meshFor(geom.kind, geom, color, extent, false);
    if (!m) continue;
    setPose(m, geom.pos, geom.q);
    parent.add(m);
    if (geom.faces) {
      m.traverse((o) => meshObjs.add(o));
      hook.meshes.push({ kind: geom.kind, body: geom.body, triangles: geom.faces.length / 3, note: geom.note || '' });
    }
  }
  if (sceneJ.notes && sceneJ.notes.length) { // meshes the triangle cap drew coarser
    const el = $('notes');
    el.textContent = sceneJ.notes.join(' · ');
    el.style.display = 'block';
  }

  let needsRender = true;
  const resize = () => {
    const el = $('view');
    renderer.setSize(el.clientWidth, el.clientHeight, false);
    camera.aspect = el.clientWidth / Math.max(1, el.clientHeight);
    camera.updateProjectionMatrix();
    needsRender = true;
  };
  new ResizeObserver(resize).observe($('view'));
  resize();
  controls.addEventListener('change', () => { needsRender = true; });

  // Frame storage: every base-th frame, filled progressively.
  const base = Math.max(1, Math.ceil((N * F) / memCap));
  const slots = Math.ceil(N / base);
  const coarse = base * Math.max(1, Math.ceil(slots / coarseFrames));
  const poses = new Float32Array(slots * F);
  const steps = new Float64Array(slots), times = new Float64Array(slots);
  const loaded = new Uint8Array(slots);
  let loadedSlots = 0;

  function store(j) {
    const p = j.poses;
    for (let k = 0; k < j.count; k++) {
      const s = (j.from + k * j.stride) / base;
      steps[s] = j.steps[k];
      times[s] = j.times[k] ?? NaN;
      const o = s * F, src = k * F;
      for (let x = 0; x < F; x++) poses[o + x] = p[src + x] ?? NaN;
      if (!loaded[s]) { loaded[s] = 1; loadedSlots++; }
    }
  }
  async function fetchFrames(stride, onChunk) {
    let from = 0;
    for (;;) {
      const j = await getJSON(`/api/frames?from=${from}&to=${N}&stride=${stride}`);
      store(j);
      if (onChunk) onChunk();
      if (j.next === null) return;
      from = j.next;
    }
  }
  const slotFor = (i) => {
    const s = Math.floor(i / base);
    return loaded[s] ? s : (Math.floor(i / coarse) * coarse) / base;
  };

  // Statistics (optional), all rows, progressively.
  const stats = { n: 0, step: [], rows: [], iterations: [], picked: [], budget_hit: [], err_energy: [] };
  const chartBase = document.createElement('canvas');
  const chart = $('chart');
  chartBase.width = chart.width; chartBase.height = chart.height;

  function statsRowFor(step) { // the last row with step ≤ the frame's step
    let a = 0, b = stats.n - 1, r = -1;
    while (a <= b) {
      const m = (a + b) >> 1;
      if (stats.step[m] <= step) { r = m; a = m + 1; } else b = m - 1;
    }
    return r;
  }
  function drawChartBase() {
    const ctx = chartBase.getContext('2d'), W = chartBase.width, H = chartBase.height;
    ctx.clearRect(0, 0, W, H);
    if (!stats.n) return;
    const span = Math.max(1, meta.last_step - meta.first_step);
    const iters = new Float64Array(W), errs = new Float64Array(W), hits = new Uint8Array(W);
    let maxIt = 1, minE = Infinity, maxE = 0;
    for (let r = 0; r < stats.n; r++) {
      const x = Math.min(W - 1, Math.floor(((stats.step[r] - meta.first_step) / span) * W));
      iters[x] = Math.max(iters[x], stats.iterations[r]);
      const e = Math.abs(stats.err_energy[r]);
      if (e > errs[x]) errs[x] = e;
      if (stats.budget_hit[r]) hits[x] = 1;
      maxIt = Math.max(maxIt, stats.iterations[r]);
      if (e > 0) { minE = Math.min(minE, e); maxE = Math.max(maxE, e); }
    }
    const bw = Math.max(1, Math.floor(W / (span + 1))); // bars as wide as a step when steps are few
    for (let x = 0; x < W; x++) {
      if (!iters[x] && !hits[x]) continue;
      const h = Math.max(1, (iters[x] / maxIt) * (H - 4));
      ctx.fillStyle = hits[x] ? '#ff6b5e' : '#4c7bd9';
      ctx.fillRect(x, H - h, Math.max(1, bw - 1), h);
    }
    if (maxE > 0) {
      let l0 = Math.log10(minE), l1 = Math.log10(maxE);
      if (l1 - l0 < 1) { const mid = (l0 + l1) / 2; l0 = mid - 0.5; l1 = mid + 0.5; } // a flat run: mid-height
      ctx.strokeStyle = '#f2c14e'; ctx.lineWidth = 1.5; ctx.beginPath();
      let pen = false;
      for (let x = 0; x < W; x++) {
        if (!(errs[x] > 0)) continue; // no row in this column: join its neighbours
        const y = H - 2 - ((Math.log10(errs[x]) - l0) / (l1 - l0)) * (H - 6);
        if (pen) ctx.lineTo(x, y); else ctx.moveTo(x, y);
        pen = true;
      }
      ctx.stroke();
    }
  }
  function drawChart() {
    const ctx = chart.getContext('2d');
    ctx.clearRect(0, 0, chart.width, chart.height);
    ctx.drawImage(chartBase, 0, 0);
    const span = Math.max(1, meta.last_step - meta.first_step);
    const x = ((curStep - meta.first_step) / span) * chart.width;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(Math.round(x) - 1, 0, 2, chart.height);
  }
  function showStats() {
    if (!meta.stats) return;
    const r = statsRowFor(curStep);
    const exact = r >= 0 && stats.step[r] === curStep;
    const fmt = (v) => (exact ? v : '–');
    $('s-step').textContent = curStep;
    $('s-rows').textContent = fmt(r >= 0 ? stats.rows[r] : 0);
    $('s-iter').textContent = fmt(r >= 0 ? `${stats.iterations[r]} (${stats.picked[r]})` : '');
    const hit = exact && stats.budget_hit[r] !== 0;
    $('s-hit').textContent = exact ? (hit ? 'yes' : 'no') : '–';
    $('s-hit').className = hit ? 'v hit' : 'v';
    $('s-err').textContent = fmt(r >= 0 ? Number(stats.err_energy[r]).toExponential(3) : '');
    drawChart();
  }

  // Playback state.
  const slider = $('slider'), playBtn = $('play');
  let cursor = 0, curFrame = -1, curSlot = -1, curStep = meta.first_step, playing = false;
  const frameDt = N > 1 && meta.t1 > meta.t0 ? (meta.t1 - meta.t0) / (N - 1) : 1 / 60;

  function setFrame(i, force) {
    i = Math.max(0, Math.min(N - 1, Math.floor(i)));
    const s = slotFor(i);
    if (i === curFrame && s === curSlot && !force) return;
    curFrame = i; curSlot = s; hook.frame = i;
    const o = s * F;
    for (let b = 0; b < B; b++) {
      const k = o + b * POSE, g = groups[b];
      const ok = Number.isFinite(poses[k]) && Number.isFinite(poses[k + 1]) && Number.isFinite(poses[k + 2]);
      g.visible = ok;
      if (!ok) continue;
      g.position.set(poses[k], poses[k + 1], poses[k + 2]);
      g.quaternion.set(poses[k + 4], poses[k + 5], poses[k + 6], poses[k + 3]).normalize();
    }
    curStep = steps[s];
    slider.value = String(i);
    const t = times[s];
    $('clock').textContent = `t ${Number.isFinite(t) ? t.toFixed(4) : '?'} s · step ${curStep} · ${i + 1}/${N}`;
    showStats();
    needsRender = true;
  }
  function setPlaying(p) {
    playing = p;
    playBtn.textContent = p ? 'Pause' : 'Play';
    if (p && curFrame >= N - 1) cursor = 0;
    if (p) cursor = Math.max(cursor, curFrame);
  }
  playBtn.addEventListener('click', () => setPlaying(!playing));
  slider.addEventListener('input', () => { setPlaying(false); cursor = Number(slider.value); setFrame(cursor); });
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT') return;
    if (e.code === 'Space') { e.preventDefault(); setPlaying(!playing); }
    if (e.code === 'ArrowRight' || e.code === 'ArrowLeft') {
      if (e.target === slider) return; // the slider steps itself
      e.preventDefault();
      setPlaying(false);
      cursor = curFrame + (e.code === 'ArrowRight' ? 1 : -1) * (e.shiftKey ? 10 : 1);
      setFrame(cursor);
    }
  });

  let last = performance.now(), ticks = 0;
  function tick(now) {
    const gap = now - last;
    last = now;
    // The longest wait between two animation frames while data streams in
    // (after the first render, whose shader compilation is a one-off).
    if (!hook.loaded && ticks++ > 1) hook.maxFrameGapMs = Math.max(hook.maxFrameGapMs, gap);
    if (playing) {
      cursor += ((gap / 1000) * Number($('speed').value)) / frameDt;
      if (cursor >= N - 1) { cursor = N - 1; setPlaying(false); }
      setFrame(cursor);
    }
    if (needsRender) {
      renderer.render(scene, camera);
      hook.renderCount++;
      needsRender = false;
    }
    requestAnimationFrame(tick);
  }

  // Test hooks.
  hook.setFrame = (i) => { setPlaying(false); cursor = i; setFrame(i); renderer.render(scene, camera); hook.renderCount++; };
  hook.bodyPosition = (b) => groups[b].position.toArray();
  hook.pixels = (onlyMeshes) => { // render now and count pixels that differ from the most common colour
    const hidden = []; // with onlyMeshes, everything but the hulls, trimeshes and heightfields is hidden
    if (onlyMeshes) {
      scene.traverse((o) => {
        if ((o.isMesh || o.isLine) && o.visible && !meshObjs.has(o)) { o.visible = false; hidden.push(o); }
      });
    }
    renderer.render(scene, camera);
    for (const o of hidden) o.visible = true;
    needsRender = true;
    const gl = renderer.getContext(), w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
    const px = new Uint8Array(w * h * 4);
    gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
    const count = new Map();
    for (let i = 0; i < px.length; i += 4) {
      const c = (px[i] << 16) | (px[i + 1] << 8) | px[i + 2];
      count.set(c, (count.get(c) || 0) + 1);
    }
    let top = 0;
    for (const v of count.values()) top = Math.max(top, v);
    return { total: w * h, distinct: count.size, nonBackground: w * h - top };
  };

  // Coarse pass, then the page is usable.
  await fetchFrames(coarse);
  hook.timings.coarse = performance.now() - t0;
  slider.max = String(N - 1);
  slider.disabled = false;
  playBtn.disabled = false;
  setFrame(0, true);
  requestAnimationFrame(tick);
  hook.ready = true;

  if (meta.stats) {
    $('stats').style.display = 'block';
    const s = meta.stats;
    $('s-sum').textContent = `${s.rows} steps · ${s.budget_hits} budget hits · ` +
      `${s.mean_iterations.toFixed(2)} iterations/step (max ${s.max_iterations}) · max |energy error| ${s.max_err_energy.toExponential(2)} J`;
  }
  const progress = () => {
    $('load').style.width = `${(100 * loadedSlots) / slots}%`;
    if (slotFor(curFrame) !== curSlot) setFrame(curFrame, true); // the shown frame's own data arrived
  };
  const statsDone = (async () => {
    if (!meta.stats) { hook.statsLoaded = true; return; }
    let from = 0;
    for (;;) {
      const j = await getJSON(`/api/stats?from=${from}`);
      for (const c of ['step', 'rows', 'iterations', 'picked', 'budget_hit', 'err_energy']) {
        for (const v of j[c]) stats[c].push(v ?? NaN);
      }
      stats.n += j.count;
      drawChartBase();
      showStats();
      if (j.next === null) break;
      from = j.next;
    }
    hook.statsLoaded = true;
  })();
  if (coarse > base) await fetchFrames(base, progress);
  progress();
  await statsDone;
  $('load').style.opacity = '0';
  hook.timings.full = performance.now() - t0;
  hook.loaded = true;
}

main().catch((e) => fail(e.message || e));
