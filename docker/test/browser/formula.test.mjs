// Browser test: the course's LaTeX formulas render in JupyterLab (MathJax, offline).
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
import { startLab, openBrowser, loadLab, shotsDir } from './lab.mjs';

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
