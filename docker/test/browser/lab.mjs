// Harness for the browser tests: a real JupyterLab (the venv and configuration of
// `make lab-setup`) on a temp copy of the repo, and Debian's headless Chromium driven by
// playwright-core. The lab is in Chinese, so the tests drive it through its command registry
// and models (window.jupyterapp, --LabApp.expose_app_in_browser), never by English labels.
//
//   const lab = await startLab();                 // JupyterLab on 127.0.0.1, token auth
//   const browser = await openBrowser(lab);        // a Chromium profile of its own
//   const { page } = await openNotebook(browser, lab, 'unit01/06-deliverable.ipynb');
//   await runAll(page); const report = await modelReport(page);
//   await checkCharts(page, report, 'name');        // every chart drew (canvas with ink)
//   await browser.close(); await lab.stop();

import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
export const repo = path.resolve(here, '..', '..', '..');
export const venv = process.env.LAB_VENV || path.join(repo, '.lab', 'venv');
export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
export const shotsDir = path.join(repo, 'out', 'screenshots');
export const CHART_MIME = 'application/vnd.coursekit.echarts+json';
export const CARD_MIME = 'application/vnd.coursekit.card+json';
export const CELL_TIMEOUT_MS = 240_000;
// The kernelspec and configuration from `make lab-setup`, when not run through make.
process.env.JUPYTER_DATA_DIR ||= path.join(repo, '.lab', 'jupyter');
process.env.JUPYTER_CONFIG_DIR ||= path.join(repo, '.lab', 'config');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Console messages that are known and harmless. Each needs a reason; anything else fails a test.
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

export function findNotebooks(dir) {
  const out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.')) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findNotebooks(p));
    else if (e.name.endsWith('.ipynb')) out.push(p);
  }
  return out;
}

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

export function shotName(...parts) {
  return parts.join('-').replace(/[\\/]/g, '__').replace(/\.ipynb/g, '').replace(/[^\w.\-_]/g, '_') + '.png';
}

// Checks the host once: Chromium, a CJK font, the venv.
export function checkHost() {
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} missing: apt-get install chromium`);
  assert.ok(fs.existsSync(path.join(venv, 'bin', 'jupyter')), `${venv}/bin/jupyter missing: run make lab-setup`);
  const zh = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  assert.ok(zh.length > 0, 'no CJK font installed (fc-list :lang=zh is empty): apt-get install fonts-noto-cjk');
}

// startLab starts JupyterLab on a temp tree that mirrors the repo: notebooks/ is a copy
// (JupyterLab writes checkpoints and saves into it), every other top-level entry is a symlink,
// so relative paths from a notebook (../data) still resolve. env adds to the server's
// environment (e.g. COURSE_KERNEL_IDLE_TIMEOUT).
export async function startLab({ notebooksDir = path.join(repo, 'notebooks'), env = {}, args = [] } = {}) {
  checkHost();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'browser-test-'));
  const root = path.join(work, 'repo');
  fs.mkdirSync(root);
  for (const e of fs.readdirSync(repo)) {
    if (e === 'notebooks' || e === '.git' || e === 'out') continue;
    fs.symlinkSync(path.join(repo, e), path.join(root, e));
  }
  fs.cpSync(notebooksDir, path.join(root, 'notebooks'), { recursive: true });
  const token = randomBytes(24).toString('hex');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const log = path.join(work, 'jupyterlab.log');
  const logFd = fs.openSync(log, 'w');
  const server = spawn(path.join(venv, 'bin', 'jupyter'), [
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
    ...args,
  ], {
    cwd: root,
    // Its own runtime dir: its own cookie secret and notebook-signing secret.
    env: { ...process.env, JUPYTER_RUNTIME_DIR: path.join(work, 'runtime'), ...env },
    stdio: ['ignore', logFd, logFd],
    detached: true,
  });
  const lab = {
    work, root, notebooks: path.join(root, 'notebooks'), base, token, log, server,
    api: (p, init = {}) => fetch(`${base}${p}`, { ...init, headers: { Authorization: `token ${token}`, ...(init.headers || {}) } }),
    logTail: (n = 15) => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').slice(-n).join('\n') : ''),
    async stop() {
      if (server.exitCode === null) {
        try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
        for (let i = 0; i < 40 && server.exitCode === null; i++) await sleep(250);
        if (server.exitCode === null) try { process.kill(-server.pid, 'SIGKILL'); } catch { /* gone */ }
      }
      if (!process.env.KEEP_BROWSER_TEST_DIR) fs.rmSync(work, { recursive: true, force: true });
    },
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    assert.ok(server.exitCode === null, `JupyterLab exited early:\n${fs.readFileSync(log, 'utf8')}`);
    try {
      if ((await lab.api('/api/status')).ok) break;
    } catch { /* not up yet */ }
    assert.ok(Date.now() < deadline, `JupyterLab did not start:\n${fs.readFileSync(log, 'utf8')}`);
    await sleep(250);
  }
  return lab;
}

// openBrowser starts Chromium with a fresh profile (a new profile is a browser that was closed
// and opened again: nothing survives but what the server saved).
export async function openBrowser(lab) {
  const userData = fs.mkdtempSync(path.join(lab.work, 'chromium-profile-'));
  return chromium.launchPersistentContext(userData, {
    executablePath: chromiumPath,
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1280, height: 2000 },
    locale: 'zh-CN',
  });
}

// watchErrors collects page errors and console errors (less the harmless ones).
export function watchErrors(page) {
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (HARMLESS_CONSOLE.some((h) => h.pattern.test(text))) return;
    errors.push(`console.error: ${text}`);
  });
  return errors;
}

// loadLab opens the JupyterLab page and waits for the app. reset drops the saved workspace.
export async function loadLab(browser, lab, { reset = true, page } = {}) {
  page ||= await browser.newPage();
  const errors = page.__errors || (page.__errors = watchErrors(page));
  await page.goto(`${lab.base}/lab${reset ? '?reset&' : '?'}token=${lab.token}`, { waitUntil: 'domcontentloaded' });
  // With ?reset JupyterLab may replace the page once more while it drops the saved workspace.
  for (let attempt = 1; ; attempt++) {
    try {
      await page.waitForFunction(() => window.jupyterapp?.commands, null, { timeout: 120_000 });
      await page.evaluate(async () => { await window.jupyterapp.started; await window.jupyterapp.restored; });
      return { page, errors };
    } catch (e) {
      if (attempt >= 3 || !/context was destroyed|navigat/i.test(String(e))) throw e;
      await page.waitForLoadState('domcontentloaded');
    }
  }
}

// openNotebook opens a notebook through the document manager (which returns the widget
// itself, whatever has the focus), makes it the current tab and, unless told not to, waits
// for its kernel. options.mode: 'split-right' opens it beside the current one.
export async function openNotebook(browser, lab, rel, { waitKernel = true, page, mode } = {}) {
  let errors;
  ({ page, errors } = page ? { page, errors: page.__errors } : await loadLab(browser, lab));
  const kernel = await page.evaluate(async ({ nbPath, waitKernel, mode }) => {
    let step = 'docmanager:open';
    const open = async () => {
      const app = window.jupyterapp;
      const w = await app.commands.execute('docmanager:open', { path: nbPath, factory: 'Notebook', options: mode ? { mode } : undefined });
      (window.__notebooks ||= {})[nbPath] = w;
      window.__notebook = w;
      app.shell.activateById(w.id);
      step = 'notebook context';
      await w.context.ready;
      step = 'session';
      await w.sessionContext.ready;
      if (!waitKernel) return null;
      step = 'kernel';
      for (;;) {
        const k = w.sessionContext.session?.kernel;
        if (k) {
          step = 'kernel info';
          const info = await k.info;
          return { name: k.name, implementation: info.implementation, language: info.language_info?.name };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const stuck = new Promise((_, reject) => setTimeout(() => reject(new Error(`stuck at ${step} for 180 s`)), 180_000));
    return Promise.race([open(), stuck]);
  }, { nbPath: rel.split(path.sep).join('/'), waitKernel, mode });
  return { page, errors, kernel };
}

// Everything the notebook model says about its code cells, in one object.
export function modelReport(page, nbPath) {
  return page.evaluate((nbPath) => {
    const w = nbPath ? window.__notebooks[nbPath] : window.__notebook;
    const model = w.content.model;
    const cells = [];
    for (let i = 0; i < model.cells.length; i++) {
      const c = model.cells.get(i);
      if (c.type !== 'code') continue;
      cells.push({ index: i, executionCount: c.executionCount, trusted: c.trusted, source: c.sharedModel.getSource(),
        role: c.getMetadata('coursekit')?.role, outputs: c.outputs.toJSON() });
    }
    return { cells, status: w.sessionContext.session?.kernel?.status, dirty: w.context.model.dirty };
  }, nbPath);
}

// runCommand runs a notebook command on the given notebook (widgetId: independent of focus).
export function runCommand(page, command, { nbPath, activeCell } = {}) {
  return page.evaluate(async ({ command, nbPath, activeCell }) => {
    const w = nbPath ? window.__notebooks[nbPath] : window.__notebook;
    if (activeCell !== undefined) w.content.activeCellIndex = activeCell;
    await window.jupyterapp.commands.execute(command, { widgetId: w.id });
  }, { command, nbPath, activeCell });
}

// waitIdle waits until the kernel is idle and `done(report)` holds.
export async function waitIdle(page, done, { nbPath, what = 'cells' } = {}) {
  const deadline = Date.now() + CELL_TIMEOUT_MS;
  let report;
  for (;;) {
    report = await modelReport(page, nbPath);
    if (report.status === 'idle' && done(report)) return report;
    assert.ok(Date.now() < deadline, `${what} did not finish: ${JSON.stringify(report.cells.map((c) => [c.index, c.executionCount]))}`);
    await sleep(250);
  }
}

// runAll runs every cell and waits until each code cell has an execution count.
export async function runAll(page, opts = {}) {
  await runCommand(page, 'notebook:run-all-cells', opts);
  return waitIdle(page, (r) => r.cells.every((c) => c.executionCount !== null), opts);
}

export const text = (v) => (Array.isArray(v) ? v.join('') : v || '');

export function cellProblems(report) {
  const problems = [];
  for (const c of report.cells) {
    let stderr = '';
    for (const o of c.outputs) {
      if (o.output_type === 'error') problems.push(`cell ${c.index}: error ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr') stderr += text(o.text);
      if (text(o.data?.['text/html']).includes('gonb-err-location')) problems.push(`cell ${c.index}: GoNB error HTML`);
    }
    for (const line of stderr.split('\n')) {
      if (/^panic: /.test(line) || /^exit status \d+\s*$/.test(line)) problems.push(`cell ${c.index}: stderr ${line}`);
    }
  }
  return problems;
}

// chartsIn counts the chart outputs of a cell (one per nb.Chart call): outputs of the chart
// MIME type, or (the design before it) HTML outputs that run an ECharts script.
export const chartsIn = (cell) => cell.outputs.filter((o) => o.data
  && (CHART_MIME in o.data || text(o.data['text/html']).includes('function run(echarts)'))).length;

// An element ECharts drew into carries the attribute _echarts_instance_, whoever called init.
const CHART_DOM = '[_echarts_instance_]';

// checkCharts scrolls each cell with charts into view (JupyterLab renders off-screen cells
// lazily), waits until each chart holds a canvas of non-zero size with ink of more than one
// colour (a blank or single-colour canvas fails), and screenshots every chart into shotsDir.
// It returns, per chart, the measurement and when it first drew (ms since `since`).
export async function checkCharts(page, report, tag, { nbPath, since = Date.now() } = {}) {
  const results = [];
  for (const cell of report.cells) {
    const want = chartsIn(cell);
    if (!want) continue;
    const state = await page.evaluate(async ({ index, want, nbPath, since, selector }) => {
      const nb = (nbPath ? window.__notebooks[nbPath] : window.__notebook).content;
      const measure = (el) => {
        const g = el.querySelector('canvas');
        if (!g) return { ok: false, why: 'no canvas', text: el.textContent.slice(0, 200) };
        const r = g.getBoundingClientRect();
        const colours = new Set();
        let inked = 0;
        if (g.width > 0 && g.height > 0) {
          const d = g.getContext('2d').getImageData(0, 0, g.width, g.height).data;
          for (let k = 0; k < d.length; k += 4 * 7) {
            if (d[k + 3] === 0) continue;
            inked++;
            if (colours.size < 16) colours.add(`${d[k]},${d[k + 1]},${d[k + 2]}`);
          }
        }
        return { ok: r.width > 50 && r.height > 50 && inked > 100 && colours.size > 2,
          width: Math.round(r.width), height: Math.round(r.height), inked, colours: colours.size };
      };
      const deadline = Date.now() + 30000;
      let first = null;
      for (;;) {
        if (typeof nb.scrollToItem === 'function') await nb.scrollToItem(index, 'start');
        nb.widgets[index].node.scrollIntoView();
        const items = [...nb.widgets[index].node.querySelectorAll(selector)];
        const charts = items.map(measure);
        if (items.length === want && charts.every((c) => c.ok)) {
          first ??= Date.now() - since;
          return { ok: true, charts, drawnAfterMs: first };
        }
        if (Date.now() > deadline) {
          const outputs = [...nb.widgets[index].node.querySelectorAll('.jp-OutputArea-output')].map((e) => e.innerText.slice(0, 200));
          return { ok: false, found: items.length, charts, outputs };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }, { index: cell.index, want, nbPath, since, selector: CHART_DOM });
    assert.ok(state.ok, `${tag}: cell ${cell.index} should show ${want} drawn chart(s): ${JSON.stringify(state)}`);
    for (let k = 0; k < want; k++) {
      const el = await page.evaluateHandle(({ index, k, nbPath, selector }) =>
        (nbPath ? window.__notebooks[nbPath] : window.__notebook).content.widgets[index].node.querySelectorAll(selector)[k],
      { index: cell.index, k, nbPath, selector: CHART_DOM });
      await el.asElement().screenshot({ path: path.join(shotsDir, shotName(tag, `cell${cell.index}`, `chart${k}`)) });
    }
    results.push(...state.charts.map((c) => ({ ...c, cell: cell.index, drawnAfterMs: state.drawnAfterMs })));
  }
  return results;
}

export async function checkChinese(page, rel) {
  const cjk = await page.evaluate(() => {
    const text = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)')?.innerText || document.body.innerText;
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

// failureEvidence keeps a screenshot and prints the end of the server log.
export async function failureEvidence(page, lab, name) {
  const shot = path.join(shotsDir, shotName(name, 'FAILED'));
  await page?.screenshot({ path: shot }).catch(() => {});
  console.log(`# failure screenshot: ${shot}\n# JupyterLab log tail:\n${lab.logTail().replace(/^/gm, '#   ')}`);
}

// saveNotebook saves the current notebook and waits until it is written.
export async function saveNotebook(page, nbPath) {
  await page.evaluate(async (nbPath) => {
    const w = nbPath ? window.__notebooks[nbPath] : window.__notebook;
    await w.context.save();
  }, nbPath);
}

// setCellSource replaces a cell's source, as typing it would.
export function setCellSource(page, index, source, nbPath) {
  return page.evaluate(({ index, source, nbPath }) => {
    const w = nbPath ? window.__notebooks[nbPath] : window.__notebook;
    w.content.model.cells.get(index).sharedModel.setSource(source);
  }, { index, source, nbPath });
}

export function cellIndexByRole(report, role) {
  const c = report.cells.find((x) => x.role === role);
  assert.ok(c, `no cell with role ${role}`);
  return c.index;
}

// shootTables screenshots every coursekit table of the notebook (nb.Table), for a person to
// look at: headers, alignment, nothing cramped or cut off.
export async function shootTables(page, tag) {
  const cells = await page.evaluate(() => window.__notebook.content.widgets
    .map((w, i) => (w.node.querySelector('.jp-OutputArea-output table.coursekit-table') ? i : -1)).filter((i) => i >= 0));
  for (const i of cells) {
    await page.evaluate(async (i) => {
      const nb = window.__notebook.content;
      if (typeof nb.scrollToItem === 'function') await nb.scrollToItem(i, 'start');
    }, i);
    const el = await page.evaluateHandle((i) => window.__notebook.content.widgets[i].node.querySelector('table.coursekit-table'), i);
    await el.asElement().screenshot({ path: path.join(shotsDir, shotName(tag, `cell${i}`, 'table')) });
  }
  return cells.length;
}
