// Browser test: the course's LaTeX formulas render in JupyterLab (MathJax, offline).
//
// Opens notebooks/unit01/02-client-timeline.ipynb, 03-one-trace-four-conclusions.ipynb and the
// glossary of 00-runtime-check.ipynb (temp copies, not run) in a real JupyterLab from .lab/venv, driven by Debian's headless
// Chromium through playwright-core, and for the markdown cell that defines each formula asserts:
// MathJax typeset it (mjx-container elements of non-zero size), no TeX source is left as text
// (no "$$", "\frac", "\lceil"), and the page logged no error. A screenshot of each cell goes to
// out/screenshots/formula-*.png. The committed notebooks are never opened for writing.
//
// Run: make test-formula   (needs `make lab-setup`, `npm ci`, and apt packages chromium fonts-noto-cjk)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const venv = process.env.LAB_VENV || path.join(repo, '.lab', 'venv');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const shotsDir = path.join(repo, 'out', 'screenshots');
process.env.JUPYTER_DATA_DIR ||= path.join(repo, '.lab', 'jupyter');
process.env.JUPYTER_CONFIG_DIR ||= path.join(repo, '.lab', 'config');

// Each case: a notebook and a piece of the TeX source that picks the formula cell.
// display is how many of them must be display formulas ($$ … $$); the glossary has inline ones only.
const CASES = [
  { nb: 'unit01/02-client-timeline.ipynb', tex: '\\mathrm{TPOT} = \\frac', shot: 'formula-02-ttft-itl-e2e-tpot.png', display: 1 },
  { nb: 'unit01/03-one-trace-four-conclusions.ipynb', tex: 'P_p = x_{(\\lceil p\\,n \\rceil)}', shot: 'formula-03-ratios-nearest-rank.png', display: 1 },
  { nb: '00-runtime-check.ipynb', tex: '### 3.3 术语表', shot: 'formula-00-glossary.png', display: 0 },
];

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let work, server, serverLog, base, token, context;

before(async () => {
  const jupyter = path.join(venv, 'bin', 'jupyter');
  assert.ok(fs.existsSync(jupyter), `${jupyter} missing: run make lab-setup`);
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} missing: apt-get install chromium`);
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'formula-test-'));
  const root = path.join(work, 'notebooks');
  fs.cpSync(path.join(repo, 'notebooks'), root, { recursive: true });
  fs.mkdirSync(shotsDir, { recursive: true });
  token = randomBytes(24).toString('hex');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  serverLog = path.join(work, 'jupyterlab.log');
  const logFd = fs.openSync(serverLog, 'w');
  process.env.JUPYTER_RUNTIME_DIR = path.join(work, 'runtime');
  server = spawn(jupyter, [
    'lab', '--no-browser', '--ServerApp.ip=127.0.0.1', `--ServerApp.port=${port}`, '--ServerApp.port_retries=0',
    `--IdentityProvider.token=${token}`, `--ServerApp.root_dir=${root}`, '--LabApp.expose_app_in_browser=True',
    '--LabApp.news_url=None', '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate',
    `--LabServerApp.workspaces_dir=${path.join(work, 'workspaces')}`,
    `--LabServerApp.user_settings_dir=${path.join(work, 'settings')}`, '--LabApp.extension_manager=readonly',
    ...(process.getuid?.() === 0 ? ['--allow-root'] : []),
  ], { cwd: root, env: process.env, stdio: ['ignore', logFd, logFd], detached: true });
  const deadline = Date.now() + 90_000;
  for (;;) {
    assert.ok(server.exitCode === null, `JupyterLab exited early:\n${fs.readFileSync(serverLog, 'utf8')}`);
    try {
      const res = await fetch(`${base}/api/status`, { headers: { Authorization: `token ${token}` } });
      if (res.ok) break;
    } catch { /* not up yet */ }
    assert.ok(Date.now() < deadline, `JupyterLab did not start:\n${fs.readFileSync(serverLog, 'utf8')}`);
    await sleep(250);
  }
  context = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(work, 'profile-')), {
    executablePath: chromiumPath, headless: true, viewport: { width: 1280, height: 1400 }, locale: 'zh-CN',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await context?.close().catch(() => {});
  if (server && server.exitCode === null) {
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* gone */ }
    for (let i = 0; i < 40 && server.exitCode === null; i++) await sleep(250);
    if (server.exitCode === null) try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ }
  }
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

for (const c of CASES) {
  test(`LaTeX renders in ${c.nb}`, async () => {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${base}/lab?reset&token=${token}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.jupyterapp?.commands, null, { timeout: 120_000 });
    // Open the notebook without a kernel (nothing is run), select the formula cell and scroll to it.
    const index = await page.evaluate(async ({ nbPath, tex }) => {
      const app = window.jupyterapp;
      await app.started;
      await app.restored;
      const w = await app.commands.execute('docmanager:open', { path: nbPath, factory: 'Notebook', kernel: { name: null } });
      await w.context.ready;
      const model = w.content.model;
      for (let i = 0; i < model.cells.length; i++) {
        const cell = model.cells.get(i);
        if (cell.type === 'markdown' && cell.sharedModel.getSource().includes(tex)) {
          w.content.activeCellIndex = i;
          await w.content.scrollToItem(i, 'start');
          window.__formulaCell = w.content.widgets[i];
          return i;
        }
      }
      return -1;
    }, { nbPath: c.nb, tex: c.tex });
    assert.ok(index >= 0, `${c.nb}: no markdown cell holds ${c.tex}`);
    const cellNode = page.locator('.jp-Notebook .jp-Cell').nth(index);
    await cellNode.scrollIntoViewIfNeeded();
    await cellNode.locator('mjx-container').first().waitFor({ state: 'visible', timeout: 60_000 });
    const seen = await cellNode.evaluate((el) => {
      const maths = [...el.querySelectorAll('mjx-container')];
      const boxes = maths.map((m) => m.getBoundingClientRect()).map((r) => [r.width, r.height]);
      const rendered = el.querySelector('.jp-RenderedMarkdown');
      // The visible text without MathJax's own nodes: what a reader sees as plain text.
      const clone = rendered.cloneNode(true);
      clone.querySelectorAll('mjx-container').forEach((m) => m.remove());
      return { count: maths.length, boxes, text: clone.innerText, display: maths.filter((m) => m.getAttribute('display') === 'true').length };
    });
    assert.ok(seen.count >= 2, `${c.nb}[${index}]: ${seen.count} typeset formulas`);
    assert.ok(seen.display >= c.display, `${c.nb}[${index}]: ${seen.display} display formulas ($$ … $$) typeset, want ${c.display}`);
    for (const [w, h] of seen.boxes) assert.ok(w > 4 && h > 4, `${c.nb}[${index}]: a formula of size ${w}×${h}`);
    for (const raw of ['$$', '\\frac', '\\lceil', '\\mathrm']) {
      assert.ok(!seen.text.includes(raw), `${c.nb}[${index}]: TeX source ${raw} left as text:\n${seen.text}`);
    }
    await cellNode.screenshot({ path: path.join(shotsDir, c.shot) });
    assert.deepEqual(errors, [], `page errors: ${errors.join('\n')}`);
    await page.close();
  });
}
