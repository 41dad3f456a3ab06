// Real-browser test of `sim view` (issue 9), run by .ci/run after go test.
//
//   node .ci/viewer/test.mjs PATH/TO/sim
//
// It runs three small scenes with the given sim binary, starts `sim view`
// on a free loopback port for each, and drives Debian's chromium
// (/usr/bin/chromium) with playwright-core: the canvas must show
// non-background pixels, the slider must move the bodies, playback must
// advance, and a 10⁵-row trajectory must load without stalling the page.
// It saves the viewer's screenshot to docs/viewer.png (VIEWER_SCREENSHOT
// overrides the path) and exits 1 if a check fails.
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

const views = [];
let ctx;
try {
  simRun('brickwall', '--steps', '30', '--out', 'wall.csv', '--stats', 'wall-stats.csv');
  simRun('chain6', '--steps', '400', '--every', '10', '--out', 'chain.json');
  simRun('pendulum', '--steps', '99999', '--out', 'pendulum.csv', '--stats', 'pendulum-stats.csv'); // 10⁵ rows

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
