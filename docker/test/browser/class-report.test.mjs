// Browser test of the class report: `coursekit grade` on a class of 15 learners writes
// OUT/class.html, and Debian's headless Chromium (playwright-core) opens it from disk with every
// network request refused, as an instructor opens it offline.
//
// The class (right cards, each typical mistake once, a copy, the course's example numbers, a blank
// card, a notebook never run, a tampered one, a duplicate, a broken file, a file named like markup)
// is written by the Go test TestClassReport (-class-fixture DIR); the real CLI grades it here.
// It asserts: no request leaves the page (ECharts is inlined); every chart holds a drawn canvas
// with an ECharts instance; no JS error and no dialog (the markup file name must not run); that
// name shows as text; the typical mistakes and the findings are named; Chinese draws with real
// glyphs. Screenshots: out/class-report/class-report.png (whole page) and one per chart.
//
// Run: make test-class-report   (needs `npm ci` in docker/test/browser and apt packages chromium fonts-noto-cjk)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..', '..');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';
const shotsDir = path.join(repo, 'out', 'class-report');
const go = process.env.GO || 'go';
const xssName = '<img src=x onerror=alert(1)>.ipynb';

// The same launch flags as browser.test.mjs.
const CHROMIUM_FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];

let work, browser, page, classHTML, gradeOut;
const jsErrors = [];
const requests = [];
const dialogs = [];

before(async () => {
  assert.ok(fs.existsSync(chromiumPath), `${chromiumPath} missing: run 'bash docker/host-setup.sh test' as root (apt-get install chromium)`);
  const zh = execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' }).trim();
  assert.ok(zh.length > 0, 'no CJK font installed (fc-list :lang=zh is empty): apt-get install fonts-noto-cjk');

  work = fs.mkdtempSync(path.join(os.tmpdir(), 'class-report-test-'));
  const fixture = path.join(work, 'class');
  fs.mkdirSync(fixture);
  execFileSync(go, ['test', '-count=1', '-run', '^TestClassReport$', './coursekit/grade/', '-args', '-class-fixture', fixture],
    { cwd: repo, stdio: ['ignore', 'pipe', 'inherit'] });
  const bin = path.join(work, 'coursekit');
  execFileSync(go, ['build', '-o', bin, './coursekit/cmd/coursekit'], { cwd: repo, stdio: 'inherit' });
  const out = path.join(work, 'graded');
  gradeOut = execFileSync(bin, ['grade', '--quiet', '--key-file', path.join(fixture, 'key'), '--roster', path.join(fixture, 'roster.csv'),
    '--out', out, path.join(fixture, 'submitted')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  classHTML = path.join(out, 'class.html');
  assert.ok(fs.existsSync(classHTML), `coursekit grade wrote no class.html:\n${gradeOut}`);

  fs.rmSync(shotsDir, { recursive: true, force: true });
  fs.mkdirSync(shotsDir, { recursive: true });
  browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_FLAGS });
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, locale: 'zh-CN' });
  page = await context.newPage();
  page.on('pageerror', (e) => jsErrors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') jsErrors.push(m.text()); });
  page.on('dialog', (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  // Offline: the page itself is a file; anything else it asks for is refused and recorded.
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === pathToFileURL(classHTML).href) return route.continue();
    requests.push(url);
    return route.abort();
  });
  await page.goto(pathToFileURL(classHTML).href, { waitUntil: 'load' });
});

after(async () => {
  await browser?.close().catch(() => {});
  if (work && !process.env.KEEP_CLASS_REPORT_DIR) fs.rmSync(work, { recursive: true, force: true });
});

test('the page loads nothing from the network and runs no learner markup', async () => {
  assert.equal(await page.title(), '第 01 单元指标口径卡 · 班级报告');
  assert.deepEqual(requests, [], 'the page requested something besides itself');
  assert.deepEqual(dialogs, [], 'a dialog opened: learner markup ran');
  assert.ok(await page.getByText(xssName, { exact: false }).count() > 0, 'the markup file name is not shown as text');
  assert.equal(await page.locator('img').count(), 0, 'an <img> element exists: a learner string became markup');
});

test('every chart is drawn by ECharts', async () => {
  const charts = await page.evaluate(async () => {
    const els = [...document.querySelectorAll('figure div[id]')];
    const deadline = Date.now() + 20000;
    const measure = (el) => {
      const c = el.querySelector('canvas');
      if (!c) return { id: el.id, ok: false, why: 'no canvas' };
      const r = c.getBoundingClientRect();
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let inked = false;
      for (let k = 3; k < d.length; k += 4) if (d[k] !== 0) { inked = true; break; }
      const instance = !!(window.echarts && window.echarts.getInstanceByDom(el));
      return { id: el.id, ok: r.width > 0 && r.height > 0 && inked && instance, width: r.width, height: r.height, inked, instance };
    };
    for (;;) {
      const got = els.map(measure);
      if (got.every((g) => g.ok) || Date.now() > deadline) return got;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  assert.deepEqual(charts.map((c) => c.id), ['class_scores', 'class_pass_rates', 'class_mistakes']);
  for (const c of charts) assert.ok(c.ok, `chart ${c.id} is not drawn: ${JSON.stringify(c)}`);
  for (const c of charts) {
    await page.locator(`#${c.id}`).screenshot({ path: path.join(shotsDir, `${c.id}.png`) });
  }
  assert.deepEqual(jsErrors, [], 'JS errors on the page');
});

test('the report names the mistakes, findings, duplicates, ungradable files and the queue', async () => {
  const text = await page.evaluate(() => document.body.innerText);
  for (const want of [
    '删掉了失败的尝试', '把没有首字的尝试当成 TTFT = 0', 'P95 用了线性插值', 'TTFT 恰好等于门槛的没算合格', '用了课程示例 trace',
    '疑似抄袭', '锁定单元格被改动', '重复提交（1 人）', 'first-try.ipynb', '无法评分的文件（3 份）', '自检没有运行', '人工阅读队列（',
  ]) assert.ok(text.includes(want), `the page does not say ${JSON.stringify(want)}`);
  // Chinese is drawn with real glyphs, not boxes.
  const distinct = await page.evaluate(() => {
    const draw = (ch) => {
      const c = document.createElement('canvas');
      c.width = 40; c.height = 40;
      const ctx = c.getContext('2d');
      ctx.font = '32px "Noto Sans CJK SC", sans-serif';
      ctx.fillText(ch, 2, 34);
      return Array.from(ctx.getImageData(0, 0, 40, 40).data).join(',');
    };
    return draw('缺') !== draw('失') && draw('缺') !== draw('口');
  });
  assert.ok(distinct, 'Chinese characters draw as identical boxes (no CJK font?)');
  await page.screenshot({ path: path.join(shotsDir, 'class-report.png'), fullPage: true });
  await page.locator('#class_learners').screenshot({ path: path.join(shotsDir, 'class-learners.png') });
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(shotsDir, 'class-report-top.png') });
  console.log(`# screenshots in ${path.relative(repo, shotsDir)}/`);
});

test('the report names everyone, and the per-learner table sorts by a clicked column', async () => {
  const text = await page.evaluate(() => document.body.innerText);
  const hostileName = '<img src=x onerror=alert(3)>';
  for (const want of [
    `没有提交的 1 人：olga（${hostileName}）`, 'unknown-1：' + xssName, '文字题答案完全相同（5 组）', 'alice、ivan',
    '<script>alert(2)</script>',
  ]) assert.ok(text.includes(want), `the page does not say ${JSON.stringify(want)}`);
  const table = page.locator('#class_learners');
  const column = (i) => table.evaluate((t, i) => [...t.tBodies[0].rows].map((r) => r.cells[i].textContent), i);
  const ids = await column(0);
  assert.equal(ids.length, 16, `the table has ${ids.length} rows, want 15 learners and the unknown file`);
  for (const id of ['alice', 'ivan', 'ken', 'nick', 'olga', 'unknown-1']) assert.ok(ids.includes(id), `no row for ${id}`);
  assert.ok((await column(1)).includes(hostileName), 'the hostile roster name is not shown as text');
  assert.equal(await page.locator('img').count(), 0, 'a learner string became an <img>');
  // Score: ascending, then descending; blank scores stay last both ways.
  const scores = async () => (await column(2)).map((s) => (s === '' ? null : parseFloat(s)));
  const sortedBy = (xs, dir) => {
    const n = xs.filter((x) => x !== null);
    const blanks = xs.slice(n.length);
    return blanks.every((x) => x === null) && n.every((x, k) => k === 0 || dir * (x - n[k - 1]) >= 0);
  };
  await table.locator('th', { hasText: '得分' }).click();
  const up = await scores();
  assert.ok(sortedBy(up, 1), `not ascending by score: ${up}`);
  await table.locator('th', { hasText: '得分' }).click();
  const down = await scores();
  assert.ok(sortedBy(down, -1), `not descending by score: ${down}`);
  assert.ok(down[0] > up[0], 'sorting the other way changed nothing');
  await table.locator('th', { hasText: '学习者' }).click();
  const byID = await column(0);
  assert.deepEqual(byID, [...byID].sort((a, b) => a.localeCompare(b, 'zh-CN')), 'not sorted by id');
  assert.deepEqual(dialogs, [], 'a dialog opened: learner markup ran');
  assert.deepEqual(jsErrors, [], 'JS errors on the page');
});
