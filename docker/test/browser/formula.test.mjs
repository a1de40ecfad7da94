// Browser test: the course's LaTeX formulas render in JupyterLab (MathJax, offline).
//
// The last test renders every formula of every notebook (see below).
//
// Opens notebooks/unit01/02-client-timeline.ipynb, 03-one-trace-four-conclusions.ipynb,
// 10-lab-capacity.ipynb (the Wilson interval) and the glossary of 00-runtime-check.ipynb (temp copies, not run) in a real JupyterLab started by the shared harness (lab.mjs), and for the markdown cell that defines each formula asserts:
// MathJax typeset it (mjx-container elements of non-zero size), no TeX source is left as text
// (no "$$", "\frac", "\lceil"), and the page logged no error. A screenshot of each cell goes to
// out/screenshots/formula-*.png. The committed notebooks are never opened for writing.
//
// Run: make test-browser (it runs every docker/test/browser/*.test.mjs of the lab)

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startLab, openBrowser, loadLab, shotsDir, findNotebooks, repo, shotName, sleep, text } from './lab.mjs';

// Each case: a notebook and a piece of the TeX source that picks the formula cell.
// display is how many of them must be display formulas ($$ … $$); the glossary has inline ones only.
const CASES = [
  { nb: 'unit01/02-client-timeline.ipynb', tex: '\\mathrm{TPOT} = \\frac', shot: 'formula-02-ttft-itl-e2e-tpot.png', display: 1 },
  { nb: 'unit01/03-one-trace-four-conclusions.ipynb', tex: 'P_p = x_{(\\lceil p\\,n \\rceil)}', shot: 'formula-03-ratios-nearest-rank.png', display: 1 },
  { nb: 'unit01/10-lab-capacity.ipynb', tex: '\\sqrt{\\frac{\\hat p', shot: 'formula-10-wilson-interval.png', display: 1 },
  { nb: '00-runtime-check.ipynb', tex: '### 3.3 术语表', shot: 'formula-00-glossary.png', display: 0 },
];

let lab, context;

before(async () => {
  fs.mkdirSync(shotsDir, { recursive: true });
  lab = await startLab();
  context = await openBrowser(lab);
});

after(async () => {
  await context?.close().catch(() => {});
  await lab?.stop();
});

for (const c of CASES) {
  test(`LaTeX renders in ${c.nb}`, async () => {
    const { page, errors } = await loadLab(context, lab);
    // Open the notebook without a kernel (nothing is run), select the formula cell and scroll to it.
    const index = await page.evaluate(async ({ nbPath, tex }) => {
      const app = window.jupyterapp;
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

// Every formula of every notebook: each markdown cell's $…$ and $$…$$, as the notebook file
// holds them, rendered by the lab's own MathJax. A formula that MathJax cannot parse shows as
// an error node (mjx-merror, data-mjx-error); one the lab did not take for math stays as TeX
// text; a control character (JSON's \t or \f where \text or \frac was meant) breaks both.
// The check is first run on a notebook broken on purpose, so that it cannot pass on nothing.

// formulas lists the math of a markdown source: display ($$…$$) and inline ($…$), outside
// code spans and fenced code, ignoring escaped dollars.
function formulas(source) {
  const plain = source
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`[^`\n]*`/g, ' ')
    .replace(/\\\$/g, ' ');
  const out = [];
  const rest = plain.replace(/\$\$([\s\S]+?)\$\$/g, (_, tex) => { out.push({ tex, display: true }); return ' '; });
  for (const m of rest.matchAll(/\$([^$\n]+?)\$/g)) out.push({ tex: m[1], display: false });
  return out;
}

// controlIn names the control characters of a formula (a newline is fine in a display formula).
const controlIn = (tex) => [...tex].filter((ch) => /[\u0000-\u0009\u000b-\u001f\u007f]/.test(ch))
  .map((ch) => `U+${ch.codePointAt(0).toString(16).padStart(4, '0').toUpperCase()}`);

// checkAllFormulas opens one notebook (no kernel) and returns its problems, one line each.
async function checkAllFormulas(page, nbPath, cells) {
  const problems = [];
  await page.evaluate(async (p) => {
    const w = await window.jupyterapp.commands.execute('docmanager:open', { path: p, factory: 'Notebook', kernel: { name: null } });
    await w.context.ready;
    window.__formulaNb = w;
  }, nbPath);
  for (const { index, maths } of cells) {
    for (const m of maths) {
      const bad = controlIn(m.tex);
      if (bad.length) problems.push(`${nbPath}[${index}]: control character ${bad.join(', ')} in formula ${JSON.stringify(m.tex)}`);
    }
    await page.evaluate(async (i) => {
      const nb = window.__formulaNb.content;
      nb.activeCellIndex = i;
      await nb.scrollToItem(i, 'center');
    }, index);
    // The lab renders a cell when it comes into view and typesets its math after that.
    let seen;
    const deadline = Date.now() + 30_000;
    for (;;) {
      seen = await page.evaluate((i) => {
        const cell = window.__formulaNb.content.widgets[i];
        const rendered = cell?.node.querySelector('.jp-RenderedMarkdown');
        if (!rendered) return null;
        const maths = [...rendered.querySelectorAll('mjx-container')];
        // What a reader sees as prose: without the typeset math and without code, where a
        // backslash is the code's own ("\\S" in a regex).
        const clone = rendered.cloneNode(true);
        clone.querySelectorAll('mjx-container, code, pre').forEach((n) => n.remove());
        return {
          count: maths.length,
          errors: rendered.querySelectorAll('mjx-merror, [data-mjx-error]').length,
          errorText: [...rendered.querySelectorAll('[data-mjx-error]')].map((n) => n.getAttribute('data-mjx-error')),
          empty: maths.filter((n) => { const r = n.getBoundingClientRect(); return r.width < 2 || r.height < 2; }).length,
          text: clone.innerText,
        };
      }, index);
      if (seen && seen.count >= maths.length) break;
      if (Date.now() > deadline) break;
      await sleep(200);
    }
    const where = `${nbPath}[${index}]`;
    if (!seen) { problems.push(`${where}: the markdown cell did not render`); continue; }
    if (seen.count !== maths.length) problems.push(`${where}: ${seen.count} typeset formulas, the source has ${maths.length}`);
    if (seen.errors) problems.push(`${where}: ${seen.errors} MathJax error node(s): ${seen.errorText.join('; ')}`);
    if (seen.empty) problems.push(`${where}: ${seen.empty} formula(s) of no size`);
    const raw = seen.text.match(/\$\$|\\[A-Za-z]+|\$[^$\n]*\\[^$\n]*\$/g);
    if (raw) problems.push(`${where}: TeX source left as text: ${[...new Set(raw)].join(' ')}`);
  }
  return problems;
}

function mathCells(file) {
  const nb = JSON.parse(fs.readFileSync(file, 'utf8'));
  return nb.cells
    .map((c, index) => ({ index, maths: c.cell_type === 'markdown' ? formulas(text(c.source)) : [] }))
    .filter((c) => c.maths.length > 0);
}

test('every formula of every notebook renders without an error', async () => {
  // The check on a notebook broken on purpose: a tab where \text was meant, a brace left open,
  // and a $ pair the lab will not take for math. Each must be reported.
  const broken = {
    cells: [
      { cell_type: 'markdown', id: 'broken-1', metadata: {}, source: ['$$\n\\mathrm{goodput} = \text{合格} \\times 2\n$$\n'] },
      { cell_type: 'markdown', id: 'broken-2', metadata: {}, source: ['见 $\\frac{Q}{T$ 一式。'] },
    ],
    metadata: { kernelspec: { name: 'gonb', display_name: 'Go (gonb)', language: 'go' } },
    nbformat: 4, nbformat_minor: 5,
  };
  const brokenFile = path.join(lab.notebooks, 'zz-broken-formulas.ipynb');
  fs.writeFileSync(brokenFile, JSON.stringify(broken));
  {
    const { page } = await loadLab(context, lab);
    const found = await checkAllFormulas(page, 'zz-broken-formulas.ipynb', mathCells(brokenFile));
    await page.close();
    fs.rmSync(brokenFile);
    assert.ok(found.some((p) => p.includes('[0]: control character U+0009')), `the tab in \\text is not reported:\n${found.join('\n')}`);
    assert.ok(found.some((p) => p.includes('[1]: ') && /MathJax error|TeX source left/.test(p)), `the open brace is not reported:\n${found.join('\n')}`);
  }

  const problems = [];
  let checked = 0;
  for (const file of findNotebooks(path.join(repo, 'notebooks'))) {
    const rel = path.relative(path.join(repo, 'notebooks'), file);
    const cells = mathCells(file);
    if (!cells.length) continue;
    const { page, errors } = await loadLab(context, lab);
    problems.push(...await checkAllFormulas(page, rel, cells));
    checked += cells.reduce((n, c) => n + c.maths.length, 0);
    const last = cells[cells.length - 1].index;
    await page.locator('.jp-Notebook .jp-Cell').filter({ has: page.locator('mjx-container') }).last()
      .screenshot({ path: path.join(shotsDir, shotName('formula-all', rel, String(last))) }).catch(() => {});
    problems.push(...errors.map((e) => `${rel}: ${e}`));
    await page.close();
  }
  assert.ok(checked > 50, `only ${checked} formulas found in the notebooks`);
  assert.deepEqual(problems, [], `formulas that do not render:\n${problems.join('\n')}`);
  console.log(`formulas: ${checked} rendered without an error`);
});
