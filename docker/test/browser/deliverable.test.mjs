// Browser tests of the deliverable (notebooks/unit01/06-deliverable.ipynb) as a learner and an
// instructor meet it, in a real JupyterLab and Debian's Chromium (harness: lab.mjs):
//   (a) run it, edit the card cell, re-run it and the cells below, save, close the browser,
//       reopen: every chart draws (and the saved file stays under 2 MB);
//   (b) the saved file copied outside Jupyter (so untrusted) draws every chart;
//   (c) the original and a byte-identical copy side by side both draw;
//   (d) the learner walk's compile error: a missing comma in the filled card, then 运行所有单元格:
//       the card's output starts with a Chinese explanation naming the line; the cells that do
//       not use the card run (the attempts chart draws); the ones that do (path map, card table,
//       self-check) do not run on the previous card and say why; with the comma back everything
//       runs; after a restart, a cell run alone gets "undefined: unit" explained with the cell
//       that declares it (and a button that goes there);
//   (e) a copy released by `coursekit assign`: its text names the learner's own trace, and the
//       "compute from my trace" cells give that trace's numbers (as `coursekit card` does);
//       a card with the course trace's numbers gets the hint that says so.
// Screenshots go to out/screenshots/. Figures (file size, time to the first drawn chart on
// reopen) are printed as "# figure:" lines.
//
// Run: make test-browser   (or: node --test docker/test/browser/deliverable.test.mjs after make lab-setup)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as L from './lab.mjs';

const DELIVERABLE = 'unit01/06-deliverable.ipynb';
const REFERENCE_CARD = fs.readFileSync(path.join(L.repo, 'docker', 'test', 'testdata', 'reference-card.go.txt'), 'utf8');
const MAX_SAVED_BYTES = 2 * 1024 * 1024;
const HINT_MIME = 'application/vnd.coursekit.hint+json';

let lab, browser;
before(async () => {
  lab = await L.startLab();
  fs.mkdirSync(L.shotsDir, { recursive: true });
  browser = await L.openBrowser(lab);
});
after(async () => {
  await browser?.close().catch(() => {});
  await lab?.stop();
});

// withPage runs fn and, if it throws, keeps a screenshot and the server log tail.
async function withPage(name, fn) {
  let page;
  try {
    await fn((p) => { page = p; });
  } catch (e) {
    await L.failureEvidence(page, lab, name);
    throw e;
  }
}

// The code cell whose source declares the card (the card cell contract: one composite literal).
const cardCell = (report) => {
  const c = report.cells.find((x) => x.role === 'card') || report.cells.find((x) => /var myCard = card\.Card\{/.test(x.source));
  assert.ok(c, 'no card cell');
  return c.index;
};
const selfCheckCell = (report) => {
  const c = report.cells.find((x) => x.role === 'selfcheck') || report.cells.find((x) => /nb\.SelfCheck\(/.test(x.source));
  assert.ok(c, 'no self-check cell');
  return c;
};
const hasReport = (cell) => cell.outputs.some((o) => o.data && (L.CARD_MIME in o.data || L.text(o.data['text/html']).includes('coursekit-selfcheck')));

let savedPath;

test('(a) deliverable: edit the card, re-run below, save, close the browser, reopen: every chart draws', { timeout: 15 * 60_000 }, async () => {
  await withPage('06-a', async (keep) => {
    const { page, errors, kernel } = await L.openNotebook(browser, lab, DELIVERABLE);
    keep(page);
    assert.equal(kernel?.implementation, 'gonb');
    let report = await L.runAll(page);
    assert.deepEqual(L.cellProblems(report), [], 'cells failed on the first run');
    const card = cardCell(report);
    await L.setCellSource(page, card, REFERENCE_CARD);
    await L.runCommand(page, 'notebook:run-all-below', { activeCell: card });
    report = await L.waitIdle(page, (r) => r.cells.filter((c) => c.index >= card)
      .every((c) => c.executionCount !== null && c.executionCount > report.cells.find((x) => x.index === c.index).executionCount),
    { what: 'run-all-below from the card cell' });
    assert.deepEqual(L.cellProblems(report), [], 'cells failed on the re-run');
    const sc = selfCheckCell(report);
    assert.ok(hasReport(sc), 'the self-check shows a report for the edited card');
    await L.checkCharts(page, report, '06-a-after-rerun');
    await L.saveNotebook(page);
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
  });
  await browser.close();

  savedPath = path.join(lab.notebooks, DELIVERABLE);
  const bytes = fs.statSync(savedPath).size;
  console.log(`# figure: saved 06 with outputs: ${bytes} bytes (${(bytes / 1024).toFixed(0)} KiB)`);
  assert.ok(bytes < MAX_SAVED_BYTES, `the saved deliverable is ${bytes} bytes, over 2 MB`);

  browser = await L.openBrowser(lab); // a new profile: nothing of the old browser survives
  await withPage('06-a-reopened', async (keep) => {
    const t0 = Date.now();
    const { page, errors } = await L.openNotebook(browser, lab, DELIVERABLE, { waitKernel: false });
    keep(page);
    const report = await L.modelReport(page);
    const want = report.cells.reduce((n, c) => n + L.chartsIn(c), 0);
    assert.ok(want >= 2, `the saved deliverable should carry the path map and the attempts chart, found ${want} chart(s)`);
    const charts = await L.checkCharts(page, report, '06-a-reopened', { since: t0 });
    assert.equal(charts.length, want);
    const first = Math.min(...charts.map((c) => c.drawnAfterMs));
    console.log(`# figure: reopened 06: first chart drawn ${first} ms after the page started loading (${charts.length} charts)`);
    assert.ok(hasReport(selfCheckCell(report)), 'the saved self-check report is still there');
    await page.screenshot({ path: path.join(L.shotsDir, '06-a-reopened.png') });
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
    await page.close();
  });
});

test('(b) the saved deliverable copied outside Jupyter (untrusted): every chart draws', { timeout: 10 * 60_000 }, async () => {
  assert.ok(savedPath, 'needs (a)');
  // Downloaded, re-saved or submitted elsewhere: not byte-identical, so not trusted here.
  const nb = JSON.parse(fs.readFileSync(savedPath, 'utf8'));
  nb.metadata.copied_by_test = 'a copy made outside Jupyter';
  fs.writeFileSync(path.join(path.dirname(savedPath), '06-copy.ipynb'), JSON.stringify(nb, null, 1));
  await withPage('06-b', async (keep) => {
    const { page, errors } = await L.openNotebook(browser, lab, 'unit01/06-copy.ipynb', { waitKernel: false });
    keep(page);
    const report = await L.modelReport(page);
    const withOutputs = report.cells.filter((c) => c.outputs.length > 0);
    assert.ok(withOutputs.length > 0 && withOutputs.every((c) => c.trusted === false), 'the copy must open untrusted');
    const want = report.cells.reduce((n, c) => n + L.chartsIn(c), 0);
    const charts = await L.checkCharts(page, report, '06-b-untrusted-copy');
    assert.ok(want >= 2 && charts.length === want, `${charts.length} of ${want} charts drew`);
    await page.screenshot({ path: path.join(L.shotsDir, '06-b-untrusted-copy.png') });
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
    await page.close();
  });
});

test('(c) the original and a byte-identical copy side by side: both draw', { timeout: 10 * 60_000 }, async () => {
  assert.ok(savedPath, 'needs (a)');
  fs.copyFileSync(savedPath, path.join(path.dirname(savedPath), '06-same.ipynb'));
  await withPage('06-c', async (keep) => {
    const first = await L.openNotebook(browser, lab, DELIVERABLE, { waitKernel: false });
    const { page, errors } = first;
    keep(page);
    await L.openNotebook(browser, lab, 'unit01/06-same.ipynb', { waitKernel: false, page, mode: 'split-right' });
    for (const nbPath of [DELIVERABLE, 'unit01/06-same.ipynb']) {
      const report = await L.modelReport(page, nbPath);
      const want = report.cells.reduce((n, c) => n + L.chartsIn(c), 0);
      const charts = await L.checkCharts(page, report, `06-c-side-by-side-${path.basename(nbPath)}`, { nbPath });
      assert.ok(want >= 2 && charts.length === want, `${nbPath}: ${charts.length} of ${want} charts drew`);
    }
    await page.screenshot({ path: path.join(L.shotsDir, '06-c-side-by-side.png') });
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
    await page.close();
  });
});

test('(d) a missing comma in the card, then 运行所有单元格: explained in Chinese, independent charts draw, the self-check says why it did not run', { timeout: 15 * 60_000 }, async () => {
  const rel = 'unit01/06-compile-error.ipynb';
  fs.copyFileSync(path.join(L.repo, 'notebooks', DELIVERABLE), path.join(lab.notebooks, rel));
  await withPage('06-d', async (keep) => {
    const { page, errors } = await L.openNotebook(browser, lab, rel);
    keep(page);
    let report = await L.runAll(page);
    assert.deepEqual(L.cellProblems(report), [], 'the committed notebook runs');
    const card = cardCell(report);
    const sc = selfCheckCell(report);
    assert.ok(hasReport(sc), 'the first run shows a report for the blank card');
    const byCode = (re) => report.cells.filter((c) => re.test(c.source)).map((c) => c.index);
    const users = byCode(/\bmyCard\b/).filter((i) => i !== card); // path map, card table, self-check
    const attempts = byCode(/tracefig\.Attempts\(/);
    assert.equal(attempts.length, 1, 'one attempts chart cell');
    assert.ok(users.includes(sc.index) && users.length >= 2 && !users.includes(attempts[0]),
      `cells using the card: ${users}, the attempts chart: ${attempts}`);

    // The learner fills the card and forgets a comma; then 运行 → 运行所有单元格.
    const broken = REFERENCE_CARD.replace('Attempts:         10,', 'Attempts:         10');
    assert.notEqual(broken, REFERENCE_CARD);
    const line = broken.split('\n').findIndex((l) => /Attempts:\s+10\s*$/.test(l)) + 1;
    await L.setCellSource(page, card, broken);
    const before = report;
    const count = (r, i) => r.cells.find((x) => x.index === i).executionCount;
    await L.runCommand(page, 'notebook:run-all-cells');
    report = await L.waitIdle(page, (r) => count(r, attempts[0]) > count(before, attempts[0])
      && users.every((i) => r.cells.find((x) => x.index === i).outputs.length > 0),
    { what: 'run all with the broken card' });
    await L.sleep(2000); // anything still queued would run now
    report = await L.waitIdle(page, () => true);
    const cell = (i) => report.cells.find((x) => x.index === i);

    // 1. The card cell: the Chinese explanation first, naming the line as the cell shows it.
    const out = cell(card).outputs;
    const hint = out[0]?.data?.[HINT_MIME] && L.text(out[0].data['text/plain']);
    assert.ok(hint && hint.includes(`第 ${line} 行`) && hint.includes('逗号') && hint.includes('Attempts:'),
      `the card cell's first output explains the missing comma on line ${line}: ${JSON.stringify(out[0]).slice(0, 600)}`);
    assert.ok(out.some((o) => o.output_type === 'error'), 'GoNB\'s error is still there, below');
    const shown = await page.evaluate(async (i) => {
      const nb = window.__notebook.content;
      await nb.scrollToItem(i, 'start');
      const first = nb.widgets[i].node.querySelector('.jp-OutputArea-output');
      return first ? first.innerText : '';
    }, card);
    assert.ok(shown.startsWith('编译没有通过') && shown.includes(`第 ${line} 行`),
      `the top of the card's output reads the explanation: ${shown.slice(0, 300)}`);
    await L.sleep(300);
    const cardOutput = await page.evaluateHandle((i) => window.__notebook.content.widgets[i].node.querySelector('.jp-Cell-outputWrapper'), card);
    await cardOutput.asElement().screenshot({ path: path.join(L.shotsDir, '06-d-card-compile-error.png') });

    // 2. The cells that do not use the card ran, and the attempts chart drew.
    const others = report.cells.filter((c) => c.index !== card && !users.includes(c.index));
    assert.deepEqual(L.cellProblems({ cells: others }), [], 'the cells that do not use the card ran without error');
    assert.ok(count(report, attempts[0]) > count(before, attempts[0]), 'the attempts chart cell ran again');
    await L.checkCharts(page, { cells: [cell(attempts[0])] }, '06-d-independent');

    // 3. The cells that use the card did not run (no report on the previous card) and say why.
    assert.ok(!hasReport(cell(sc.index)), `the self-check must not report on the previous card: ${JSON.stringify(cell(sc.index).outputs).slice(0, 400)}`);
    for (const i of users) {
      const said = cell(i).outputs.filter((o) => o.output_type === 'error').map((o) => L.text(o.traceback)).join('\n');
      const who = i === sc.index ? '自检没有运行' : '这个单元格没有运行';
      assert.ok(said.startsWith(who) && said.includes('指标口径卡单元格') && said.includes(`第 ${line} 行`) && said.includes('myCard'),
        `cell ${i} says why it did not run: ${said}`);
      assert.equal(L.chartsIn(cell(i)), 0, `cell ${i} drew nothing from the old card`);
    }
    const scText = await page.evaluate(async (i) => {
      const nb = window.__notebook.content;
      await nb.scrollToItem(i, 'center');
      return nb.widgets[i].node.querySelector('.jp-OutputArea-output')?.innerText || '';
    }, sc.index);
    assert.ok(scText.includes('自检没有运行'), `the self-check's output reads: ${scText.slice(0, 300)}`);
    await L.sleep(300);
    const scNode = await page.evaluateHandle((i) => window.__notebook.content.widgets[i].node, sc.index);
    await scNode.asElement().screenshot({ path: path.join(L.shotsDir, '06-d-selfcheck-not-run.png') });
    await page.screenshot({ path: path.join(L.shotsDir, '06-d-compile-error.png') });

    // 4. The comma back, run all again: everything runs, the self-check reports on this card.
    await L.setCellSource(page, card, REFERENCE_CARD);
    await L.runCommand(page, 'notebook:run-all-cells');
    report = await L.waitIdle(page, (r) => count(r, sc.index) !== null && hasReport(r.cells.find((x) => x.index === sc.index)),
      { what: 'run all with the fixed card' });
    assert.deepEqual(L.cellProblems(report), [], 'the fixed card runs through');
    assert.ok(hasReport(cell(sc.index)), 'the self-check reports on the fixed card');

    // 5. "undefined: unit" after a restart: the explanation names the cell that declares it.
    await page.evaluate(async () => { await window.__notebook.sessionContext.session.kernel.restart(); });
    await L.runCommand(page, 'notebook:run-cell', { activeCell: attempts[0] });
    report = await L.waitIdle(page, (r) => r.cells.find((x) => x.index === attempts[0]).outputs.some((o) => o.output_type === 'error'),
      { what: 'the attempts chart after a restart' });
    const data = report.cells.find((c) => c.role === 'data').index;
    const where = await page.evaluate(async (i) => {
      const nb = window.__notebook.content;
      await nb.scrollToItem(i, 'start');
      for (let k = 0; k < 50; k++) {
        const p = nb.widgets[i].node.querySelector('.coursekit-hint-where');
        if (p) return { text: nb.widgets[i].node.querySelector('.jp-OutputArea-output').innerText, cell: p.dataset.cell };
        await new Promise((r) => setTimeout(r, 100));
      }
      return { text: nb.widgets[i].node.querySelector('.jp-OutputArea-output')?.innerText || '' };
    }, attempts[0]);
    assert.ok(where.text.includes('unit') && where.text.includes('还没有运行过') && where.text.includes('运行 → 运行所有单元格'),
      `undefined: unit explained: ${where.text.slice(0, 500)}`);
    assert.equal(where.cell, String(data + 1), `it names the data cell (第 ${data + 1} 个单元格): ${where.text}`);
    await L.sleep(300);
    const undefNode = await page.evaluateHandle((i) => window.__notebook.content.widgets[i].node.querySelector('.jp-Cell-outputWrapper'), attempts[0]);
    await undefNode.asElement().screenshot({ path: path.join(L.shotsDir, '06-d-undefined-unit.png') });
    await page.evaluate((i) => window.__notebook.content.widgets[i].node.querySelector('.coursekit-hint-jump').click(), attempts[0]);
    await L.sleep(500);
    assert.equal(await page.evaluate(() => window.__notebook.content.activeCellIndex), data, 'the button goes to the data cell');
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
    await page.close();
  });
});

test('(e) a released copy names the learner\'s own trace and computes from it', { timeout: 15 * 60_000 }, async () => {
  const out = path.join(lab.notebooks, 'released');
  const keyFile = path.join(lab.work, 'key');
  fs.writeFileSync(keyFile, 'browser-test-key-0123456789abcdef');
  const roster = path.join(lab.work, 'roster.csv');
  fs.writeFileSync(roster, 'id\nalice\n');
  execFileSync('go', ['run', './coursekit/cmd/coursekit', 'assign', '--roster', roster, '--key-file', keyFile,
    '--out', out], { cwd: L.repo, stdio: 'pipe' });
  const trace = path.join(out, 'alice', 'trace.jsonl');
  const want = JSON.parse(execFileSync('go', ['run', './coursekit/cmd/coursekit', 'card', '--format', 'json',
    '--slo-ttft', '1s', '--slo-ttft', '500ms', trace], { cwd: L.repo, encoding: 'utf8' }));
  const course = JSON.parse(execFileSync('go', ['run', './coursekit/cmd/coursekit', 'card', '--format', 'json',
    path.join(L.repo, 'data', 'unit01', 'trace.jsonl')], { cwd: L.repo, encoding: 'utf8' }));
  assert.notEqual(want.ttft_ms.p95, course.ttft_ms.p95, 'the variant must differ from the course trace for this test to mean anything');

  await withPage('06-e', async (keep) => {
    const { page, errors } = await L.openNotebook(browser, lab, 'released/alice/06-deliverable.ipynb');
    keep(page);
    let report = await L.runAll(page);
    assert.deepEqual(L.cellProblems(report), [], 'the released copy runs as released');
    // What the learner reads near the top (the instructions, the data cell's note and the
    // "compute from my trace" heading): whose trace this is, and that it differs.
    // Scrolled back to the top first: cells out of view are not laid out (content-visibility),
    // and their innerText is empty; textContent is the rendered text either way.
    await page.evaluate(() => window.__notebook.content.scrollToItem(0, 'start'));
    await L.sleep(300);
    const top = await page.evaluate(() => {
      const nb = window.__notebook.content;
      return nb.widgets.slice(0, 8).map((w) => w.node.textContent).join('\n');
    });
    for (const words of ['alice', 'trace.jsonl', '不同', '用我的 trace 计算']) {
      assert.ok(top.includes(words), `the top of the released copy should say ${words}:\n${top.slice(0, 1500)}`);
    }
    // The "compute from my trace" cells print what `coursekit card` computes on the same trace.
    const own = report.cells.filter((c) => c.role === 'own-trace');
    assert.ok(own.length > 0, 'no "compute from my trace" cells');
    const printed = own.flatMap((c) => c.outputs).filter((o) => o.output_type === 'stream').map((o) => L.text(o.text)).join('');
    // Read the numbers, not the wording (the text around them is the notebook's prose).
    const num = (re) => { const m = printed.match(re); return m ? m.slice(1).map(Number) : null; };
    assert.deepEqual(num(/P95[:：]\s*([\d.]+)\s*ms/), [want.ttft_ms.p95], `P95 printed:\n${printed}`);
    assert.deepEqual(num(/失败率[:：]\s*([\d.]+)\s*\/\s*([\d.]+)/), [want.failure_rate.num, want.failure_rate.den], `failure rate printed:\n${printed}`);
    for (const c of want.conditions) {
      const q = num(new RegExp(`门槛\\s*${c.slo_ttft_ms}\\s*ms[:：]\\s*③?\\s*联合合格[:：]?\\s*(\\d+)\\s*(?:次|/)`));
      assert.deepEqual(q, [c.qualified], `qualified at ${c.slo_ttft_ms} ms printed:\n${printed}`);
    }
    const goodputs = [...printed.matchAll(/goodput[:：]\s*([\d.]+)\s*次\s*\/\s*([\d.]+)\s*s/g)].map((m) => [Number(m[1]), Number(m[2])]);
    assert.deepEqual(goodputs, want.conditions.map((c) => [c.qualified, want.window_s]), `goodput printed:\n${printed}`);
    const tableText = await page.evaluate((i) => window.__notebook.content.widgets[i].node.textContent, own[0].index);
    assert.ok(tableText.includes('首字前超时') && tableText.includes('连接失败'), `attempts table in Chinese:\n${tableText.slice(0, 600)}`);
    await page.evaluate(() => window.__notebook.content.node.scrollTo(0, 0));
    await L.sleep(300);
    await page.screenshot({ path: path.join(L.shotsDir, '06-e-released-top.png') });

    // The course's reference card in the learner's copy: the hint says the numbers are the
    // course trace's, not theirs (and gives no value).
    const card = cardCell(report);
    await L.setCellSource(page, card, REFERENCE_CARD);
    const before = report;
    await L.runCommand(page, 'notebook:run-all-below', { activeCell: card });
    report = await L.waitIdle(page, (r) => {
      const s = selfCheckCell(r);
      return s.executionCount !== selfCheckCell(before).executionCount && hasReport(s);
    }, { what: 'the self-check of the course card' });
    const sc = selfCheckCell(report);
    const html = sc.outputs.map((o) => L.text(o.data?.['text/html'])).join('');
    assert.ok(html.includes('课程 trace') && html.includes('你自己的 trace'), `own-trace hint missing:\n${html.slice(0, 800)}`);
    const hints = html.split('<td').filter((td) => td.includes('你自己的 trace'));
    assert.ok(hints.length > 0, 'no row carries the own-trace hint');
    for (const td of hints) {
      const words = td.replace(/<[^>]*>/g, '').replace('01–05', '');
      assert.ok(!/\d/.test(words.replace(/^[^>]*>/, '')), `the hint must give no value: ${words}`);
    }
    await page.evaluate((i) => window.__notebook.content.scrollToItem(i, 'start'), sc.index);
    await L.sleep(300);
    await page.screenshot({ path: path.join(L.shotsDir, '06-e-own-trace-hint.png') });
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
    await page.close();
  });
});
