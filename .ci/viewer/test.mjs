// Real-browser test of `sim view` (issue 9), run by .ci/run after go test.
//
//   node .ci/viewer/test.mjs PATH/TO/sim
//
// It runs five small scenes and an imported MJCF model with the given sim
// binary, starts `sim view` on a free loopback port for each, and drives
// Debian's chromium (/usr/bin/chromium) with playwright-core: the canvas
// must show non-background pixels, the slider must move the bodies,
// playback must advance, a 10⁵-row trajectory must load without stalling
// the page, hulls, a triangle mesh and heightfields must be drawn, and a
// heightfield over the triangle cap must be drawn coarser with a note.
// It saves the viewer's screenshots to docs/viewer.png and, of the mesh
// scene, docs/viewer-meshes.png (VIEWER_SCREENSHOT overrides the first
// path, the second goes beside it) and exits 1 if a check fails.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const sim = path.resolve(process.argv[2] || '');
if (!process.argv[2] || !fs.existsSync(sim)) {
  console.error('usage: node .ci/viewer/test.mjs PATH/TO/sim (build it with go build -o PATH/TO/sim ./cmd/sim)');
  process.exit(2);
}
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const shotPath = process.env.VIEWER_SCREENSHOT || path.join(repo, 'docs', 'viewer.png');
const meshShotPath = path.join(path.dirname(shotPath), 'viewer-meshes.png'); // the mesh scene, beside it
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-view-test-'));

let passed = 0, failed = 0;
async function check(name, fn) {
  const t = Date.now();
  try {
    await fn();
    passed++;
    console.log(`ok   ${name} (${Date.now() - t} ms)`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : e}`);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

function simRun(...args) {
  execFileSync(sim, ['run', ...args, '--quiet'], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
}

// startView starts `sim view` on a free port and resolves to {url, proc}
// when it prints its URL.
function startView(...args) {
  return new Promise((resolve, reject) => {
    const proc = spawn(sim, ['view', ...args, '--addr', '127.0.0.1:0'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => reject(new Error(`sim view printed no URL in 30 s: ${out}${err}`)), 30000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve({ url: m[0], proc }); }
    });
    proc.stderr.on('data', (d) => { err += d; });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`sim view exited with ${code}: ${err.trim()}`)); });
  });
}
function stopView(v) {
  if (!v) return Promise.resolve();
  if (v.proc.exitCode !== null || v.proc.signalCode !== null) {
    return Promise.resolve({ code: v.proc.exitCode, sig: v.proc.signalCode });
  }
  return new Promise((resolve) => {
    v.proc.removeAllListeners('exit');
    v.proc.on('exit', (code, sig) => resolve({ code, sig }));
    v.proc.kill('SIGTERM');
  });
}

// openViewer loads url in a new page and waits until everything arrived.
async function openViewer(ctx, url) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.__viewer && (window.__viewer.ready || window.__viewer.error), null, { timeout: 60000 });
  const tReady = Date.now() - t0;
  await page.waitForFunction(() => window.__viewer.loaded || window.__viewer.error, null, { timeout: 120000 });
  const tLoaded = Date.now() - t0;
  const err = await page.evaluate(() => window.__viewer.error);
  assert(!err, `the page reports: ${err}`);
  assert(errors.length === 0, `page errors: ${errors.join('; ')}`);
  return { page, tReady, tLoaded };
}

// clickSlider clicks the time slider at fraction f of its length, as a user would.
async function clickSlider(page, f) {
  const box = await page.locator('#slider').boundingBox();
  await page.mouse.click(box.x + 8 + f * (box.width - 16), box.y + box.height / 2);
}

// meshSceneFile is a scene file with a rock (the hull of 7 points), a
// ball (the hull of a level-1 icosphere's 42 vertices) falling on a
// heightfield terrain (21 × 16 samples over 4 × 3 m), and a triangle-mesh
// pyramid beside it.
function meshSceneFile() {
  const heights = [];
  for (let j = 0; j < 16; j++) {
    const row = [];
    for (let i = 0; i < 21; i++) row.push(0.3 * Math.sin(0.5 * i) * Math.cos(0.4 * j));
    heights.push(row);
  }
  // Level-1 icosphere: the icosahedron's 12 corners and its 30 edge midpoints, on the sphere.
  const t = (1 + Math.sqrt(5)) / 2;
  const ico = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t], [0, 1, -t],
    [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]];
  const pts = [...ico];
  const edge = Math.hypot(2, 0); // the icosahedron's edge length
  for (let a = 0; a < 12; a++) {
    for (let b = a + 1; b < 12; b++) {
      const d = Math.hypot(ico[a][0] - ico[b][0], ico[a][1] - ico[b][1], ico[a][2] - ico[b][2]);
      if (Math.abs(d - edge) < 1e-9) pts.push([0, 1, 2].map((k) => (ico[a][k] + ico[b][k]) / 2));
    }
  }
  const ball = pts.map((p) => { const l = Math.hypot(...p); return p.map((x) => (0.25 * x) / l); });
  return {
    version: 1, settings: { h: 0.01 },
    world_shapes: [
      { type: 'heightfield', size: [4, 3, 1], heights, material: { friction: 0.6 } },
      { type: 'trimesh', position: [2.6, 0, 0],
        vertices: [[-0.5, -0.5, 0], [0.5, -0.5, 0], [0.5, 0.5, 0], [-0.5, 0.5, 0], [0, 0, 0.7]],
        triangles: [[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]] },
    ],
    bodies: [
      { name: 'rock', density: 2600, position: [-0.8, 0.2, 0.8], orientation: [0.9835, 0.1004, 0.1505, 0],
        shapes: [{ type: 'convex', material: { friction: 0.6 },
          points: [[0.12, 0, -0.05], [-0.1, 0.06, -0.05], [-0.04, -0.09, -0.05], [0.12, 0.1, -0.05],
            [0.02, 0.01, 0.09], [0.06, 0.07, 0.02], [-0.07, -0.02, 0.04]] }] },
      { name: 'ball', density: 500, position: [0.6, -0.3, 0.9], shapes: [{ type: 'convex', points: ball, material: { friction: 0.6 } }] },
    ],
  };
}

// bigFieldSceneFile is a scene file with an n × n heightfield of rolling
// hills over 20 × 20 m and one box falling on it.
function bigFieldSceneFile(n) {
  const heights = [];
  for (let j = 0; j < n; j++) {
    const row = new Array(n);
    for (let i = 0; i < n; i++) row[i] = +(Math.sin(i / 40) * Math.cos(j / 55) + 0.2 * Math.sin((i + 2 * j) / 9)).toFixed(4);
    heights.push(row);
  }
  return {
    version: 1, settings: { h: 0.01 },
    world_shapes: [{ type: 'heightfield', size: [20, 20, 1], heights }],
    bodies: [{ name: 'box', mass: 1, position: [0, 0, 2], shapes: [{ type: 'box', size: [0.4, 0.4, 0.4] }] }],
  };
}

const views = [];
let ctx;
try {
  simRun('brickwall', '--steps', '30', '--out', 'wall.csv', '--stats', 'wall-stats.csv');
  simRun('chain6', '--steps', '400', '--every', '10', '--out', 'chain.json');
  simRun('pendulum', '--steps', '99999', '--out', 'pendulum.csv', '--stats', 'pendulum-stats.csv'); // 10⁵ rows
  fs.writeFileSync(path.join(work, 'meshes.json'), JSON.stringify(meshSceneFile()));
  simRun('meshes.json', '--steps', '100', '--out', 'meshes.csv');
  const terrain = path.join(repo, 'testdata', 'models', 'terrain.xml');
  simRun(terrain, '--steps', '40', '--out', 'terrain.csv');
  fs.writeFileSync(path.join(work, 'bigfield.json'), JSON.stringify(bigFieldSceneFile(633)));
  simRun('bigfield.json', '--steps', '20', '--out', 'bigfield.csv');

  const userDataDir = fs.mkdtempSync(path.join(work, 'chromium-profile-'));
  ctx = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1280, height: 720 },
    // What Chromium needs on these machines: no sandbox (root), no GPU
    // (WebGL runs on SwiftShader), and no background connections, which
    // the closed network refuses.
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

  await check('brickwall: the canvas renders the wall, the stats overlay, and the screenshot', async () => {
    const v = await startView('wall.csv', '--scene', 'brickwall', '--stats', 'wall-stats.csv');
    views.push(v);
    const { page } = await openViewer(ctx, v.url);
    const px = await page.evaluate(() => window.__viewer.pixels());
    assert(px.nonBackground > 0.05 * px.total, `only ${px.nonBackground} of ${px.total} pixels differ from the background`);
    assert(px.distinct > 50, `only ${px.distinct} distinct colours: nothing shaded is drawn`);
    assert(await page.locator('#stats').isVisible(), 'the stats overlay is hidden');
    const sum = await page.locator('#s-sum').textContent();
    assert(/^30 steps · \d+ budget hits/.test(sum), `stats summary reads ${JSON.stringify(sum)}`);
    await clickSlider(page, 0.5);
    await page.waitForFunction(() => window.__viewer.frame > 0);
    const frame = await page.evaluate(() => window.__viewer.frame);
    assert(frame >= 10 && frame <= 20, `the slider's middle gave frame ${frame} of 31`);
    const iters = await page.locator('#s-iter').textContent();
    assert(/^\d+ \(\d+\)$/.test(iters), `iterations cell reads ${JSON.stringify(iters)} at frame ${frame}`);
    await page.waitForTimeout(200);
    fs.mkdirSync(path.dirname(shotPath), { recursive: true });
    await page.screenshot({ path: shotPath });
    assert(fs.statSync(shotPath).size > 10000, `${shotPath} is suspiciously small`);
    console.log(`     screenshot: ${path.relative(repo, shotPath)}`);
    await page.close();
  });

  await check('chain6: moving the slider moves the bodies; Play advances', async () => {
    const v = await startView('chain.json', '--scene', 'chain6');
    views.push(v);
    const { page } = await openViewer(ctx, v.url);
    const last = 5;
    const p0 = await page.evaluate((b) => window.__viewer.bodyPosition(b), last);
    const shot0 = await page.locator('#view canvas').screenshot();
    await clickSlider(page, 1);
    await page.waitForFunction(() => window.__viewer.frame > 30);
    const p1 = await page.evaluate((b) => window.__viewer.bodyPosition(b), last);
    const d = Math.hypot(p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]);
    assert(d > 0.1, `the chain's last link moved ${d} m between the slider's ends (from ${p0} to ${p1})`);
    const shot1 = await page.locator('#view canvas').screenshot();
    assert(!shot0.equals(shot1), 'the canvas looks the same at both ends of the slider');
    await clickSlider(page, 0);
    await page.waitForFunction(() => window.__viewer.frame === 0);
    await page.locator('#play').click();
    await page.waitForFunction(() => window.__viewer.frame > 0, null, { timeout: 10000 });
    const p2 = await page.evaluate((b) => window.__viewer.bodyPosition(b), last);
    assert(p2[2] < p0[2], `playing did not move the link down (z ${p0[2]} → ${p2[2]})`);
    await page.close();
  });

  await check('pendulum, 10⁵ rows: loads in chunks without stalling the page', async () => {
    const v = await startView('pendulum.csv', '--scene', 'pendulum', '--stats', 'pendulum-stats.csv');
    views.push(v);
    const { page, tReady, tLoaded } = await openViewer(ctx, v.url);
    const h = await page.evaluate(() => ({ frames: window.__viewer.frames, gap: window.__viewer.maxFrameGapMs, t: window.__viewer.timings }));
    console.log(`     ${h.frames} frames: usable after ${tReady} ms, all frames and stats after ${tLoaded} ms, longest frame gap while loading ${h.gap.toFixed(0)} ms`);
    assert(h.frames === 100000, `${h.frames} frames, want 100000`);
    assert(tReady < 15000, `the page took ${tReady} ms to become usable`);
    assert(h.gap < 1500, `the page stalled ${h.gap} ms while loading`);
    await clickSlider(page, 0.73);
    await page.waitForFunction(() => window.__viewer.frame > 60000);
    const px = await page.evaluate(() => window.__viewer.pixels());
    assert(px.nonBackground > 200, `only ${px.nonBackground} pixels differ from the background: the rod is not drawn`);
    await page.close();
  });

  await check('meshes: a hull, an icosphere hull, a triangle mesh and a heightfield are drawn', async () => {
    const v = await startView('meshes.csv', '--scene', 'meshes.json');
    views.push(v);
    const { page } = await openViewer(ctx, v.url);
    const meshes = await page.evaluate(() => window.__viewer.meshes);
    const byKind = (k) => meshes.filter((m) => m.kind === k);
    // The rock's 7 corners and the level-1 icosphere's 42 are all on
    // their hulls: 2V − 4 triangles each; the heightfield's 21 × 16 grid
    // has 2·20·15 cells' triangles; the pyramid 4.
    assert(JSON.stringify(byKind('convex').map((m) => m.triangles).sort((a, b) => a - b)) === '[10,80]',
      `hull triangles ${JSON.stringify(byKind('convex'))}`);
    assert(byKind('heightfield').length === 1 && byKind('heightfield')[0].triangles === 600,
      `heightfield ${JSON.stringify(byKind('heightfield'))}`);
    assert(byKind('trimesh').length === 1 && byKind('trimesh')[0].triangles === 4, `trimesh ${JSON.stringify(byKind('trimesh'))}`);
    assert(meshes.every((m) => m.note === ''), `notes: ${JSON.stringify(meshes)}`);
    assert(!(await page.locator('#notes').isVisible()), 'the triangle-cap note shows below the cap');
    // At the page's default camera the four meshes cover about 4.5 % of
    // the canvas (the terrain most of it); 2 % fails if one goes missing.
    const px = await page.evaluate(() => window.__viewer.pixels(true));
    assert(px.nonBackground > 0.02 * px.total, `the meshes alone cover only ${px.nonBackground} of ${px.total} pixels`);
    assert(px.distinct > 50, `only ${px.distinct} distinct colours in the meshes alone: nothing shaded is drawn`);
    await page.waitForTimeout(200);
    await page.screenshot({ path: meshShotPath });
    console.log(`     screenshot: ${path.relative(repo, meshShotPath)}`);
    await page.close();
  });

  await check('terrain.xml (MJCF heightfield from a PNG): the terrain is drawn', async () => {
    const v = await startView('terrain.csv', '--scene', terrain);
    views.push(v);
    const { page } = await openViewer(ctx, v.url);
    const meshes = await page.evaluate(() => window.__viewer.meshes);
    assert(meshes.length === 1 && meshes[0].kind === 'heightfield' && meshes[0].triangles === 2 * 32 * 32,
      `meshes ${JSON.stringify(meshes)}, want the 33 × 33 heightfield's 2048 triangles`);
    const px = await page.evaluate(() => window.__viewer.pixels(true));
    // About 6 % of the canvas at the default camera.
    assert(px.nonBackground > 0.03 * px.total, `the terrain alone covers only ${px.nonBackground} of ${px.total} pixels`);
    assert(px.distinct > 30, `only ${px.distinct} distinct colours in the terrain alone: it is not shaded`);
    await page.close();
  });

  await check('a 633 × 633 heightfield: drawn under the triangle cap, with a note, and the page stays usable', async () => {
    const v = await startView('bigfield.csv', '--scene', 'bigfield.json');
    views.push(v);
    const { page, tReady, tLoaded } = await openViewer(ctx, v.url);
    const meshes = await page.evaluate(() => window.__viewer.meshes);
    // 2·632² = 798 848 triangles; stride 2 keeps 317 × 317 samples: 2·316² = 199 712 ≤ 200 000.
    assert(meshes.length === 1 && meshes[0].triangles === 199712, `meshes ${JSON.stringify(meshes)}, want 199712 triangles`);
    const note = await page.locator('#notes').textContent();
    assert(await page.locator('#notes').isVisible(), 'the triangle-cap note is hidden');
    assert(note.includes('heightfield 633 × 633 (798848 triangles) is drawn with a sample stride of 2 (317 × 317 samples, 199712 triangles)'),
      `the note reads ${JSON.stringify(note)}`);
    const t = await page.evaluate(() => window.__viewer.timings);
    console.log(`     199712 triangles: scene and meta after ${t.meta.toFixed(0)} ms, usable after ${tReady} ms, loaded after ${tLoaded} ms`);
    assert(tReady < 15000, `the page took ${tReady} ms to become usable`);
    const px = await page.evaluate(() => window.__viewer.pixels(true));
    assert(px.nonBackground > 0.03 * px.total, `the terrain alone covers only ${px.nonBackground} of ${px.total} pixels`);
    await page.close();
  });
} catch (e) {
  failed++;
  console.log(`FAIL setup: ${e && e.stack ? e.stack : e}`);
} finally {
  if (ctx) await ctx.close().catch(() => {});
  for (const v of views) {
    const r = await stopView(v);
    // Every sim command exits 130 on SIGINT/SIGTERM (issue 18).
    if (r.code !== 130) { failed++; console.log(`FAIL sim view ended with ${r.code ?? r.sig} on SIGTERM, want 130`); }
  }
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`viewer: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
