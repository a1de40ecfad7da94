// Browser test: every notebook under notebooks/, run for real in JupyterLab (from .lab/venv)
// driven by Debian's headless Chromium through playwright-core.
//
// For each notebook it opens a temp copy, runs all cells with the GoNB kernel, and asserts:
// the kernel is GoNB; every code cell ran; no cell has an error (error output, stderr panic /
// exit status, GoNB error HTML); every chart container holds a drawn canvas or svg of non-zero
// size; no page JS errors; Chinese text is in the DOM and the browser draws it with real glyphs.
// It then reopens the copy executed headless by docker/nbrun.py (signed, so trusted) WITHOUT
// running it, and asserts that its saved charts draw too (ECharts travels in the first chart).
// Screenshots go to out/screenshots/. The committed notebooks are never opened for writing.
//
// Run: make test-browser   (needs `make lab-setup`, `npm ci`, and apt packages chromium fonts-noto-cjk)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
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
// BROWSER_TEST_NOTEBOOKS points the test at another folder, to check that it fails on bad notebooks.
const notebooksDir = path.resolve(process.env.BROWSER_TEST_NOTEBOOKS || path.join(repo, 'notebooks'));
const shotsDir = path.join(repo, 'out', 'screenshots');
const CELL_TIMEOUT_MS = 180_000;
// The kernelspec from `make lab-setup`, when not run through make (which sets the same).
process.env.JUPYTER_DATA_DIR ||= path.join(repo, '.lab', 'jupyter');
process.env.JUPYTER_CONFIG_DIR ||= path.join(repo, '.lab', 'config');

// Console messages that are known and harmless. Each needs a reason; anything else fails the test.
// JupyterLab 4.6.6 with news, update checks and the PyPI extension manager turned off logs no
// other console error while opening and running these notebooks.
const HARMLESS_CONSOLE = [
  {
    pattern: /^Failed to load resource: net::ERR_NETWORK_CHANGED$/,
    reason: 'Chromium aborts in-flight requests when the host adds or removes a network interface '
      + '(seen while podman set up a container network for the image test on the same machine); '
      + 'JupyterLab retries them, and any real consequence fails the cell, chart or kernel checks',
  },
];

const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

function findNotebooks(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findNotebooks(p));
    else if (e.name.endsWith('.ipynb')) out.push(p);
  }
  return out;
}

const notebooks = findNotebooks(notebooksDir).map((p) => path.relative(notebooksDir, p));
const sha = (p) => createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const committed = Object.fromEntries(notebooks.map((nb) => [nb, sha(path.join(notebooksDir, nb))]));

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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let work, server, serverLog, base, token, context;

before(async () => {
  assert.ok(notebooks.length > 0, `no notebooks under ${notebooksDir}`);
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} missing: apt-get install chromium`);
  const jupyter = path.join(venv, 'bin', 'jupyter');
  assert.ok(fs.existsSync(jupyter), `${jupyter} missing: run make lab-setup`);
  // A CJK font must be installed, or Chinese draws as empty boxes.
  const zh = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  assert.ok(zh.length > 0, 'no CJK font installed (fc-list :lang=zh is empty): apt-get install fonts-noto-cjk');

  // A temp tree that mirrors the repo: notebooks/ is a copy (JupyterLab may write
  // checkpoints or autosave into it), every other top-level entry is a symlink, so
  // relative paths from a notebook (../data, ../coursekit) still resolve.
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-test-'));
  const root = path.join(work, 'repo');
  fs.mkdirSync(root);
  for (const e of fs.readdirSync(repo)) {
    if (e === 'notebooks' || e === '.git') continue;
    fs.symlinkSync(path.join(repo, e), path.join(root, e));
  }
  fs.cpSync(notebooksDir, path.join(root, 'notebooks'), { recursive: true });

  fs.rmSync(shotsDir, { recursive: true, force: true }); // no stale pictures from earlier runs
  fs.mkdirSync(shotsDir, { recursive: true });
  token = randomBytes(24).toString('hex');
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  serverLog = path.join(work, 'jupyterlab.log');
  const logFd = fs.openSync(serverLog, 'w');
  process.env.JUPYTER_RUNTIME_DIR = path.join(work, 'runtime'); // this server's own cookie secret and files
  server = spawn(jupyter, [
    'lab', '--no-browser',
    '--ServerApp.ip=127.0.0.1', `--ServerApp.port=${port}`, '--ServerApp.port_retries=0',
    `--IdentityProvider.token=${token}`,
    `--ServerApp.root_dir=${path.join(root, 'notebooks')}`,
    '--LabApp.expose_app_in_browser=True',
    '--LabApp.news_url=None',
    '--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate',
    `--LabServerApp.workspaces_dir=${path.join(work, 'workspaces')}`,
    `--LabServerApp.user_settings_dir=${path.join(work, 'settings')}`,
    '--LabApp.extension_manager=readonly',
    ...(process.getuid?.() === 0 ? ['--allow-root'] : []), // CI runs as root
  ], { cwd: root, env: process.env, stdio: ['ignore', logFd, logFd], detached: true });

  const deadline = Date.now() + 60_000;
  for (;;) {
    assert.ok(server.exitCode === null, `JupyterLab exited early:\n${fs.readFileSync(serverLog, 'utf8')}`);
    try {
      const res = await fetch(`${base}/api/status`, { headers: { Authorization: `token ${token}` } });
      if (res.ok) break;
    } catch { /* not up yet */ }
    assert.ok(Date.now() < deadline, `JupyterLab did not start:\n${fs.readFileSync(serverLog, 'utf8')}`);
    await sleep(250);
  }

  const userData = fs.mkdtempSync(path.join(work, 'chromium-profile-'));
  context = await chromium.launchPersistentContext(userData, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 2200 },
    locale: 'zh-CN',
  });
});

after(async () => {
  await context?.close().catch(() => {});
  if (server && server.exitCode === null) {
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
    for (let i = 0; i < 40 && server.exitCode === null; i++) await sleep(250);
    if (server.exitCode === null) try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ }
  }
  if (work && !process.env.KEEP_BROWSER_TEST_DIR) fs.rmSync(work, { recursive: true, force: true });
});

test('JupyterLab refuses requests without the token and offers the gonb kernel', async () => {
  const anon = await fetch(`${base}/api/kernelspecs`);
  assert.equal(anon.status, 403, 'a request without the token must be refused');
  const res = await fetch(`${base}/api/kernelspecs`, { headers: { Authorization: `token ${token}` } });
  const specs = await res.json();
  assert.ok(specs.kernelspecs.gonb, `no gonb kernelspec: ${Object.keys(specs.kernelspecs)}`);
});

// On a failure, keep a screenshot and show the end of the server log.
async function failureEvidence(page, rel) {
  const shot = path.join(shotsDir, `${rel.replace(/[\\/]/g, '__').replace(/\.ipynb$/, '')}-FAILED.png`);
  await page.screenshot({ path: shot }).catch(() => {});
  const log = fs.existsSync(serverLog) ? fs.readFileSync(serverLog, 'utf8').trim().split('\n').slice(-15).join('\n') : '';
  console.log(`# failure screenshot: ${shot}\n# JupyterLab log tail:\n${log.replace(/^/gm, '#   ')}`);
}

// Opens a notebook, waits for its kernel, and returns the page and collected JS errors.
async function openNotebook(rel) {
  const page = await context.newPage();
  const jsErrors = [];
  page.on('pageerror', (e) => jsErrors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (HARMLESS_CONSOLE.some((h) => h.pattern.test(text))) return;
    jsErrors.push(`console.error: ${text}`);
  });
  let kernel;
  try {
    // Load the app, then open the notebook through the document manager: that returns the
    // notebook widget itself, which does not depend on which widget has the focus.
    await page.goto(`${base}/lab?reset&token=${token}`, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.jupyterapp?.commands, null, { timeout: 120_000 });
    kernel = await page.evaluate(async (nbPath) => {
      let step = 'app start';
      const open = async () => {
        const app = window.jupyterapp;
        await app.started;
        await app.restored;
        step = 'docmanager:open';
        const w = await app.commands.execute('docmanager:open', { path: nbPath, factory: 'Notebook' });
        window.__notebook = w;
        app.shell.activateById(w.id);
        step = 'notebook context';
        await w.context.ready;
        step = 'kernel session';
        await w.sessionContext.ready;
        const k = w.sessionContext.session?.kernel;
        if (!k) return null;
        step = 'kernel info';
        const info = await k.info;
        return { name: k.name, implementation: info.implementation, language: info.language_info?.name };
      };
      const stuck = new Promise((_, reject) => setTimeout(() => reject(new Error(`stuck at ${step} for 120 s`)), 120_000));
      return Promise.race([open(), stuck]);
    }, rel.split(path.sep).join('/'));
  } catch (e) {
    await failureEvidence(page, rel);
    throw e;
  }
  return { page, jsErrors, kernel };
}

// Everything the notebook model says about its cells, in one object.
function modelReport(page) {
  return page.evaluate(() => {
    const w = window.__notebook;
    const cells = [];
    const model = w.content.model;
    for (let i = 0; i < model.cells.length; i++) {
      const c = model.cells.get(i);
      if (c.type !== 'code') continue;
      cells.push({ index: i, executionCount: c.executionCount, outputs: c.outputs.toJSON() });
    }
    return { cells, status: w.sessionContext.session?.kernel?.status };
  });
}

function cellProblems(report) {
  const problems = [];
  for (const c of report.cells) {
    let stderr = '';
    for (const o of c.outputs) {
      if (o.output_type === 'error') problems.push(`cell ${c.index}: error ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') stderr += Array.isArray(o.text) ? o.text.join('') : o.text;
      const html = o.data?.['text/html'];
      const h = Array.isArray(html) ? html.join('') : html || '';
      if (h.includes('gonb-err-location')) problems.push(`cell ${c.index}: GoNB error HTML`);
    }
    for (const line of stderr.split('\n')) {
      if (/^panic: /.test(line) || /^exit status \d+\s*$/.test(line)) problems.push(`cell ${c.index}: stderr ${line}`);
    }
  }
  return problems;
}

// Number of charts a cell's outputs carry (each nb.Chart output has one guarded runner).
function chartsIn(cell) {
  let n = 0;
  for (const o of cell.outputs) {
    const html = o.data?.['text/html'];
    const h = Array.isArray(html) ? html.join('') : html || '';
    n += h.split('function run(echarts)').length - 1;
  }
  return n;
}

const CHART_SELECTOR = '.jp-OutputArea-output div.container > div.item';

// For every cell whose outputs carry charts: scroll the cell into view (JupyterLab renders
// off-screen cells lazily), wait until each of its chart containers holds a drawn canvas or
// svg of non-zero size with an ECharts instance, and screenshot each chart.
async function checkCharts(page, rel, report, tag) {
  const results = [];
  for (const cell of report.cells) {
    const want = chartsIn(cell);
    if (!want) continue;
    const state = await page.evaluate(async ({ index, want, selector }) => {
      const nb = window.__notebook.content;
      if (typeof nb.scrollToItem === 'function') await nb.scrollToItem(index, 'start');
      else nb.widgets[index].node.scrollIntoView();
      const measure = (el) => {
        const g = el.querySelector('canvas, svg');
        if (!g) return { ok: false, why: 'no canvas/svg', text: el.textContent.slice(0, 200) };
        const r = g.getBoundingClientRect();
        let inked = false;
        if (g.tagName === 'CANVAS' && g.width > 0 && g.height > 0) {
          const d = g.getContext('2d').getImageData(0, 0, g.width, g.height).data;
          for (let k = 3; k < d.length; k += 4) if (d[k] !== 0) { inked = true; break; }
        } else if (g.tagName.toLowerCase() === 'svg') {
          inked = g.querySelectorAll('path, rect, text').length > 0;
        }
        const instance = !!(window.echarts && window.echarts.getInstanceByDom(el));
        return { ok: r.width > 0 && r.height > 0 && inked && instance, tag: g.tagName,
          width: r.width, height: r.height, inked, instance };
      };
      const deadline = Date.now() + 20000;
      for (;;) {
        nb.widgets[index].node.scrollIntoView();
        const items = [...nb.widgets[index].node.querySelectorAll(selector)];
        const charts = items.map(measure);
        if (items.length === want && charts.every((c) => c.ok)) return { ok: true, charts };
        if (Date.now() > deadline) return { ok: false, found: items.length, charts };
        await new Promise((r) => setTimeout(r, 100));
      }
    }, { index: cell.index, want, selector: CHART_SELECTOR });
    assert.ok(state.ok, `${rel}: cell ${cell.index} should show ${want} drawn chart(s): ${JSON.stringify(state)}`);
    for (let k = 0; k < want; k++) {
      const el = await page.evaluateHandle(({ index, k, selector }) =>
        window.__notebook.content.widgets[index].node.querySelectorAll(selector)[k], { index: cell.index, k, selector: CHART_SELECTOR });
      const name = `${rel.replace(/[\\/]/g, '__').replace(/\.ipynb$/, '')}${tag}-cell${cell.index}-chart${k}.png`;
      await el.asElement().screenshot({ path: path.join(shotsDir, name) });
    }
    results.push(...state.charts);
  }
  return results;
}

async function checkChinese(page, rel) {
  const cjk = await page.evaluate(() => {
    const text = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)')?.innerText || document.body.innerText;
    const sample = (text.match(/[\u4e00-\u9fff]/g) || []).slice(0, 2);
    // Two different characters drawn with the page's font: tofu boxes would be identical.
    const draw = (ch) => {
      const c = document.createElement('canvas');
      c.width = 40; c.height = 40;
      const ctx = c.getContext('2d');
      ctx.font = '32px sans-serif';
      ctx.fillText(ch, 2, 34);
      return Array.from(ctx.getImageData(0, 0, 40, 40).data).join(',');
    };
    return { count: (text.match(/[\u4e00-\u9fff]/g) || []).length, distinct: draw('缺') !== draw('失') && draw('缺') !== draw('口') };
  });
  assert.ok(cjk.count > 0, `${rel}: no Chinese text in the page`);
  assert.ok(cjk.distinct, `${rel}: Chinese characters draw as identical boxes (no CJK font?)`);
}

for (const rel of notebooks) {
  test(`run all cells: ${rel}`, { timeout: 10 * 60_000 }, async () => {
    const { page, jsErrors, kernel } = await openNotebook(rel);
    try {
      assert.deepEqual(kernel && { name: kernel.name, implementation: kernel.implementation, language: kernel.language },
        { name: 'gonb', implementation: 'gonb', language: 'go' }, `${rel}: kernel is not GoNB: ${JSON.stringify(kernel)}`);

      // widgetId names the notebook, so the command does not depend on the focus.
      await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells', { widgetId: window.__notebook.id }));
      // Wait until every code cell has an execution count and the kernel is idle.
      const deadline = Date.now() + CELL_TIMEOUT_MS;
      let report;
      for (;;) {
        report = await modelReport(page);
        if (report.status === 'idle' && report.cells.every((c) => c.executionCount !== null)) break;
        assert.ok(Date.now() < deadline, `${rel}: cells did not finish: ${JSON.stringify(report.cells.map((c) => [c.index, c.executionCount]))}`);
        await sleep(200);
      }
      assert.deepEqual(cellProblems(report), [], `${rel}: cells failed`);

      const charts = await checkCharts(page, rel, report, '');
      await checkChinese(page, rel);
      await page.evaluate(() => window.__notebook.content.node.scrollTo(0, 0));
      await sleep(200);
      await page.screenshot({ path: path.join(shotsDir, `${rel.replace(/[\\/]/g, '__').replace(/\.ipynb$/, '')}.png`) });
      await sleep(300); // let late async errors surface
      assert.deepEqual(jsErrors, [], `${rel}: JavaScript errors in the page`);
      console.log(`# ${rel}: ${report.cells.length} code cells ran, ${charts.length} chart(s) drawn`);
    } catch (e) {
      await failureEvidence(page, rel);
      throw e;
    } finally {
      await page.close();
    }
  });

  test(`reopen the headless-executed copy without running: ${rel}`, { timeout: 5 * 60_000 }, async () => {
    // The same notebook executed headless by nbrun.py, signed so JupyterLab trusts it.
    const executed = path.join(work, 'repo', 'notebooks', '_executed', path.dirname(rel));
    const r = spawnSync(path.join(venv, 'bin', 'python'),
      [path.join(repo, 'docker', 'nbrun.py'), '--trust', '--out', executed, path.join(notebooksDir, rel)],
      { encoding: 'utf8', env: process.env });
    assert.equal(r.status, 0, `nbrun.py failed:\n${r.stdout}\n${r.stderr}`);
    const { page, jsErrors } = await openNotebook(path.join('_executed', rel));
    try {
      const report = await modelReport(page);
      assert.ok(report.cells.every((c) => c.executionCount !== null), `${rel}: the executed copy has unexecuted cells`);
      assert.deepEqual(cellProblems(report), [], `${rel}: executed copy has failing cells`);
      await checkCharts(page, rel, report, '-reopened');
      await sleep(300);
      assert.deepEqual(jsErrors, [], `${rel}: JavaScript errors in the page`);
    } catch (e) {
      await failureEvidence(page, rel.replace(/\.ipynb$/, '-reopened'));
      throw e;
    } finally {
      await page.close();
    }
  });
}

test('the committed notebooks were not modified', () => {
  for (const nb of notebooks) {
    assert.equal(sha(path.join(notebooksDir, nb)), committed[nb], `${nb} changed during the test`);
  }
  const stray = fs.readdirSync(notebooksDir).filter((e) => e === '.ipynb_checkpoints' || e === '_executed');
  assert.deepEqual(stray, [], 'the test wrote into notebooks/');
});
