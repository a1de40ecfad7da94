// Browser test: an idle kernel is stopped after the configured timeout, also while its notebook
// stays open, and running a cell afterwards starts a new kernel that runs it (a lab of its own
// with COURSE_KERNEL_IDLE_TIMEOUT=20; docker/jupyter/jupyter_server_config.py).
//
// Under load this test once ended with "Target page, context or browser has been closed" while
// waiting for the page to notice the culled kernel. So it watches the browser: a browser or page
// that closes or crashes is recorded with the time, the machine's memory and load, and the
// kernel log, and the test fails saying which it was, not with a bare Playwright error. It polls
// the page on a timer rather than on animation frames (which a loaded headless renderer delays).
//
// Run: make test-browser   (or, alone and repeated: make test-culling CULLING_REPEAT=20)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import * as L from './lab.mjs';

const IDLE_S = 20;
const notebooksDir = path.join(L.repo, 'notebooks');
const rel = '00-runtime-check.ipynb';
const kernels = async (lab) => (await (await lab.api('/api/kernels')).json());

// What the machine looked like when something closed: memory, load, the lab's last lines.
function machine() {
  const mem = fs.readFileSync('/proc/meminfo', 'utf8').match(/MemAvailable:\s+(\d+)/);
  return `MemAvailable ${mem ? Math.round(mem[1] / 1024) : '?'} MiB, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`;
}

let lab, browser;
const events = [];
const note = (what) => events.push(`${new Date().toISOString()} ${what} (${machine()})`);

before(async () => {
  fs.mkdirSync(L.shotsDir, { recursive: true });
  lab = await L.startLab({ notebooksDir, env: { COURSE_KERNEL_IDLE_TIMEOUT: String(IDLE_S) } });
  browser = await L.openBrowser(lab);
  browser.on('close', () => note('the browser closed'));
});
after(async () => {
  await browser?.close().catch(() => {});
  await lab?.stop();
});

// until polls fn every 250 ms until it returns a truthy value or the deadline passes; a closed
// page or browser ends it with what was recorded about why.
async function until(page, what, fn, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (page.isClosed()) assert.fail(`${what}: the page closed:\n${events.join('\n')}\nlab log:\n${lab.logTail(30)}`);
    let v;
    try {
      v = await fn();
    } catch (e) {
      if (page.isClosed() || /closed|crash/i.test(String(e))) {
        assert.fail(`${what}: ${e.message}\n${events.join('\n') || '(no close or crash event recorded)'}\nlab log:\n${lab.logTail(30)}`);
      }
      throw e;
    }
    if (v) return v;
    assert.ok(Date.now() < deadline, `${what}: not within ${ms / 1000} s (${machine()})`);
    await L.sleep(250);
  }
}

test('an idle kernel is stopped after the configured timeout, and a new cell starts a new one', { timeout: 10 * 60_000 }, async () => {
  const { page } = await L.openNotebook(browser, lab, rel);
  page.on('close', () => note('the page closed'));
  page.on('crash', () => note('the page crashed'));
  try {
    const [k] = await kernels(lab);
    assert.ok(k, 'the open notebook has a kernel');
    const lastActivity = Date.parse(k.last_activity);
    // Culled while its notebook stays open (cull_connected), once idle for IDLE_S.
    const gone = await until(page, 'the idle kernel is stopped', async () => ((await kernels(lab)).length === 0 ? Date.now() : 0), (IDLE_S + 120) * 1000);
    assert.ok(gone - lastActivity >= IDLE_S * 1000, `stopped after ${(gone - lastActivity) / 1000} s, before the ${IDLE_S} s timeout`);
    assert.match(lab.logTail(200), /Culling kernel/i, 'the server log says it culled the kernel');
    // The learner comes back (the page has noticed by then that the kernel is gone) and runs a
    // cell: a new kernel starts and runs it.
    await until(page, 'the page notices the kernel is gone', () => page.evaluate(() => window.__notebook.sessionContext.hasNoKernel), 120_000);
    await page.evaluate(() => { window.__notebook.content.activeCellIndex = window.__notebook.content.widgets.findIndex((w) => w.model.type === 'code'); });
    await L.runCommand(page, 'notebook:run-cell');
    const report = await until(page, 'a cell run after culling runs', async () => {
      const r = await L.modelReport(page);
      return r.cells.some((c) => c.executionCount !== null) && r.status === 'idle' ? r : null;
    }, 180_000);
    assert.ok(report.cells.some((c) => c.executionCount !== null), 'a cell run after culling did not run');
    assert.equal((await kernels(lab)).length, 1, 'a new kernel runs it');
    await page.screenshot({ path: path.join(L.shotsDir, 'lab-after-culling.png') });
  } finally {
    await page.close().catch(() => {});
  }
});
