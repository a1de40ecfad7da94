// Browser tests of the lab itself: every notebook under notebooks/ run for real in JupyterLab
// (the venv, extension and configuration of `make lab-setup`), driven by Debian's headless
// Chromium through playwright-core (harness: lab.mjs). They assert:
//   - token auth, and the course's Go kernel as the only kernel (no Python 3 in the launcher);
//   - the lab greets in Chinese;
//   - per notebook: on open the kernel status is known (not "unknown") and the notebook is not
//     marked modified; 00 (the runtime check) runs all its cells here: every code cell ran, no
//     cell failed, every chart drew (a canvas with ink), Chinese text draws with real glyphs, no
//     JavaScript error (06 runs all in deliverable.test.mjs);
//   - per notebook: the copy executed headless (docker/nbrun.py, NOT signed, so untrusted; made
//     once per test run by `make notebooks-executed`) opened without running draws every saved chart,
//     and for the notebooks not run live here, its tables and Chinese glyphs are checked on it;
//   - a restored workspace with several notebooks starts one kernel (the one in view), not one
//     per tab;
// Screenshots go to out/screenshots/. The committed notebooks are never opened for writing.
// The deliverable's own journey is in deliverable.test.mjs, idle-kernel culling in culling.test.mjs,
// hostile chart options in an untrusted notebook in renderer.test.mjs.
//
// Run: make test-browser   (needs `make lab-setup`, `npm ci`, and apt packages chromium fonts-noto-cjk)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import * as L from './lab.mjs';

// BROWSER_TEST_NOTEBOOKS points the test at another folder, to check that it fails on bad notebooks.
const notebooksDir = path.resolve(process.env.BROWSER_TEST_NOTEBOOKS || path.join(L.repo, 'notebooks'));
const notebooks = L.findNotebooks(notebooksDir).map((p) => path.relative(notebooksDir, p));
// The headless-executed copies (docker/nbrun.py, NOT signed, so untrusted) from make notebooks-executed.
const executedDir = path.resolve(process.env.NB_EXECUTED || path.join(L.repo, 'out', 'notebooks'));
const sha = (p) => createHash('sha256').update(fs.readFileSync(p)).digest('hex');
const committed = Object.fromEntries(notebooks.map((nb) => [nb, sha(path.join(notebooksDir, nb))]));

let lab, browser;
before(async () => {
  assert.ok(notebooks.length > 0, `no notebooks under ${notebooksDir}`);
  fs.rmSync(L.shotsDir, { recursive: true, force: true }); // no stale pictures from earlier runs
  fs.mkdirSync(L.shotsDir, { recursive: true });
  lab = await L.startLab({ notebooksDir });
  browser = await L.openBrowser(lab);
});
after(async () => {
  await browser?.close().catch(() => {});
  await lab?.stop();
});

test('JupyterLab refuses requests without the token and offers only the gonb kernel', async () => {
  const anon = await fetch(`${lab.base}/api/kernelspecs`);
  assert.equal(anon.status, 403, 'a request without the token must be refused');
  const specs = await (await lab.api('/api/kernelspecs')).json();
  assert.deepEqual(Object.keys(specs.kernelspecs), ['gonb'], 'the course offers its Go kernel only');
  assert.equal(specs.default, 'gonb');
});

test('the lab greets in Chinese and its launcher offers only the Go kernel', { timeout: 5 * 60_000 }, async () => {
  const { page, errors } = await L.loadLab(browser, lab);
  try {
    await page.evaluate(() => window.jupyterapp.commands.execute('launcher:create'));
    await page.waitForSelector('.jp-LauncherCard', { timeout: 60_000 });
    const ui = await page.evaluate(() => ({
      menu: document.querySelector('#jp-menu-panel, .lm-MenuBar-content')?.innerText || '',
      lang: document.documentElement.lang,
      notebookCards: [...document.querySelectorAll('.jp-Launcher-section')]
        .filter((s) => s.querySelector('.jp-Launcher-sectionTitle')?.innerText.match(/笔记本|Notebook/))
        .flatMap((s) => [...s.querySelectorAll('.jp-LauncherCard')].map((c) => c.innerText.trim())),
      consoleCards: [...document.querySelectorAll('.jp-LauncherCard')].map((c) => c.getAttribute('data-category') + ':' + c.innerText.trim()),
    }));
    await page.screenshot({ path: path.join(L.shotsDir, 'lab-launcher.png') });
    assert.ok(ui.menu.includes('文件') && ui.menu.includes('帮助') && !/\bFile\b/.test(ui.menu), `menu bar is not in Chinese: ${ui.menu}`);
    assert.deepEqual(ui.notebookCards, ['Go (gonb)'], `launcher notebook cards: ${JSON.stringify(ui.consoleCards)}`);
    assert.ok(!ui.consoleCards.some((c) => /Python/i.test(c)), `a Python kernel in the launcher: ${JSON.stringify(ui.consoleCards)}`);
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
  } finally {
    await page.close();
  }
});

// Live in the lab: the runtime check (00) runs every cell here, as a learner's first step does;
// the deliverable (06) runs, is edited and re-run in deliverable.test.mjs. Every other notebook
// runs once per test run, headless with the same kernel and proxy (make notebooks-executed), and
// its executed copy is what the browser checks below: charts, tables, glyphs, no JavaScript error.
const LIVE = new Set(notebooks.filter((n) => n.includes('00-runtime-check')));

for (const rel of notebooks) {
  const live = LIVE.has(rel);
  test(live ? `run all cells: ${rel}` : `open (kernel status, not modified): ${rel}`, { timeout: 10 * 60_000 }, async () => {
    const { page, errors, kernel } = await L.openNotebook(browser, lab, rel);
    try {
      assert.deepEqual(kernel, { name: 'gonb', implementation: 'gonb', language: 'go' }, `${rel}: kernel is not GoNB`);
      // Before the first cell: a known status, and an unedited notebook is not "modified".
      await L.sleep(1500); // what a learner sees a moment after opening
      const opened = await page.evaluate(() => {
        const w = window.__notebook;
        return { status: w.sessionContext.kernelDisplayStatus, dirty: w.context.model.dirty,
          tabDirty: document.querySelector(`.lm-TabBar-tab[data-id="${w.id}"]`)?.classList.contains('jp-mod-dirty') ?? null };
      });
      assert.equal(opened.status, 'idle', `${rel}: kernel status before the first cell`);
      assert.equal(opened.dirty, false, `${rel}: the unedited notebook is marked modified on open`);
      assert.notEqual(opened.tabDirty, true, `${rel}: the tab shows the modified mark`);
      if (!live) {
        assert.deepEqual(errors, [], `${rel}: JavaScript errors in the page`);
        return;
      }
      const report = await L.runAll(page);
      assert.deepEqual(L.cellProblems(report), [], `${rel}: cells failed`);
      const charts = await L.checkCharts(page, report, rel);
      await L.shootTables(page, rel);
      await L.checkChinese(page, rel);
      await page.evaluate(() => window.__notebook.content.node.scrollTo(0, 0));
      await L.sleep(200);
      await page.screenshot({ path: path.join(L.shotsDir, L.shotName(rel)) });
      await L.sleep(300); // let late async errors surface
      assert.deepEqual(errors, [], `${rel}: JavaScript errors in the page`);
      console.log(`# ${rel}: ${report.cells.length} code cells ran, ${charts.length} chart(s) drawn`);
    } catch (e) {
      await L.failureEvidence(page, lab, rel);
      throw e;
    } finally {
      // Closing the tab shuts its kernel down (kernelShutdown in docker/jupyter/overrides.json).
      await page.evaluate(() => window.jupyterapp.commands.execute('application:close-all')).catch(() => {});
      await page.close();
    }
  });

  test(`reopen the headless-executed copy (untrusted) without running: ${rel}`, { timeout: 5 * 60_000 }, async () => {
    // The copy `make notebooks-executed` executed headless (each notebook runs once per test run).
    const source = path.join(executedDir, rel);
    assert.ok(fs.existsSync(source), `${source} is missing: run make notebooks-executed (make test-browser does)`);
    fs.mkdirSync(path.join(lab.notebooks, '_executed', path.dirname(rel)), { recursive: true });
    fs.copyFileSync(source, path.join(lab.notebooks, '_executed', rel));
    const { page, errors } = await L.openNotebook(browser, lab, path.join('_executed', rel), { waitKernel: false });
    try {
      const report = await L.modelReport(page);
      assert.ok(report.cells.every((c) => c.executionCount !== null), `${rel}: the executed copy has unexecuted cells`);
      assert.deepEqual(L.cellProblems(report), [], `${rel}: executed copy has failing cells`);
      assert.ok(report.cells.filter((c) => c.outputs.length).every((c) => c.trusted === false), `${rel}: the copy should be untrusted`);
      const charts = await L.checkCharts(page, report, `${rel}-reopened`);
      if (!live) {
        // What the live run checks, on the saved outputs: tables, glyphs, the whole page.
        await L.shootTables(page, rel);
        await L.checkChinese(page, rel);
        await page.evaluate(() => window.__notebook.content.node.scrollTo(0, 0));
        await L.sleep(200);
        await page.screenshot({ path: path.join(L.shotsDir, L.shotName(rel)) });
      }
      await L.sleep(300);
      assert.deepEqual(errors, [], `${rel}: JavaScript errors in the page`);
      console.log(`# ${rel} (executed copy): ${report.cells.length} code cells, ${charts.length} chart(s) drawn`);
    } catch (e) {
      await L.failureEvidence(page, lab, `${rel}-reopened`);
      throw e;
    } finally {
      await page.close();
    }
  });
}

const kernels = async (l = lab) => (await (await l.api('/api/kernels')).json());

test('a restored workspace with several notebooks starts one kernel, for the notebook in view', { timeout: 10 * 60_000 }, async () => {
  const three = notebooks.filter((n) => n.startsWith('unit01')).slice(0, 3);
  assert.equal(three.length, 3);
  const { page } = await L.loadLab(browser, lab);
  try {
    for (const rel of three) await L.openNotebook(browser, lab, rel, { page, waitKernel: false });
    await L.sleep(2000); // the workspace is saved as tabs open
    // The server restarted, or the kernels were culled: the saved workspace has three tabs and
    // no kernel is running.
    for (const s of await (await lab.api('/api/sessions')).json()) {
      await lab.api(`/api/sessions/${s.id}`, { method: 'DELETE' });
    }
    assert.deepEqual(await kernels(), []);
    await L.loadLab(browser, lab, { reset: false, page });
    const restored = await page.evaluate(() => {
      const panels = [...window.jupyterapp.shell.widgets('main')].filter((w) => w.sessionContext);
      return { tabs: panels.length, current: window.jupyterapp.shell.currentWidget?.context?.path };
    });
    assert.equal(restored.tabs, 3, 'the workspace should restore the three tabs');
    // Give every tab the time it would need to start a kernel, then count.
    const deadline = Date.now() + 60_000;
    while ((await kernels()).length === 0 && Date.now() < deadline) await L.sleep(250);
    await L.sleep(5000);
    const running = await kernels();
    await page.screenshot({ path: path.join(L.shotsDir, 'lab-restored-workspace.png') });
    assert.equal(running.length, 1, `three restored tabs started ${running.length} kernel(s)`);
    const current = await page.evaluate(() => window.jupyterapp.shell.currentWidget.sessionContext.session?.kernel?.id);
    assert.equal(current, running[0].id, 'the running kernel belongs to the notebook in view');
    // Switching to another tab starts its kernel then.
    await page.evaluate(() => {
      const panels = [...window.jupyterapp.shell.widgets('main')].filter((w) => w.sessionContext);
      const other = panels.find((w) => w !== window.jupyterapp.shell.currentWidget);
      window.jupyterapp.shell.activateById(other.id);
    });
    const until = Date.now() + 60_000;
    while ((await kernels()).length < 2 && Date.now() < until) await L.sleep(250);
    assert.equal((await kernels()).length, 2, 'the notebook brought into view starts its kernel');
  } finally {
    await page.evaluate(() => window.jupyterapp.commands.execute('application:close-all')).catch(() => {});
    await page.close();
  }
});

test('the committed notebooks were not modified', () => {
  for (const nb of notebooks) {
    assert.equal(sha(path.join(notebooksDir, nb)), committed[nb], `${nb} changed during the test`);
  }
  const stray = fs.readdirSync(notebooksDir).filter((e) => e === '.ipynb_checkpoints' || e === '_executed');
  assert.deepEqual(stray, [], 'the test wrote into notebooks/');
});
