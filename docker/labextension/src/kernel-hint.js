// Shows the kernel's Chinese explanation of a compile error (docker/kernel_proxy.py puts it at
// the top of the failed cell's output as application/vnd.coursekit.hint+json, with text/html
// and text/plain beside it), and adds what only the notebook knows: for a name that is
// `undefined` (declared in a cell that has not run in this kernel), which cell declares it,
// counted from the top, with a button that goes there.
//
// The explanation itself is the kernel's text/html, sanitized (the renderer is safe: it also
// renders in untrusted notebooks, and it never runs anything from the output). The notebook is
// read through the application object that the light-lab plugin hands over (app-ref.js).
import { Widget } from '@lumino/widgets';
import { getApp } from './app-ref.js';

export const MIME_TYPE = 'application/vnd.coursekit.hint+json';

const CSS = `
.coursekit-hint { border-left: 4px solid #d9a400; background: #fff8e1; color: #333; padding: 6px 10px;
  margin: 2px 0; line-height: 1.6; font-family: var(--jp-ui-font-family, sans-serif); }
.coursekit-hint ul { margin: 4px 0; padding-left: 1.4em; }
.coursekit-hint p { margin: 4px 0; }
.coursekit-hint code { background: rgba(0,0,0,0.05); padding: 0 2px; }
.coursekit-hint-where { margin: 4px 0; }
.coursekit-hint-where button { margin-left: 6px; cursor: pointer; }
`;

function addStyle() {
  if (document.getElementById('coursekit-hint-style')) return;
  const s = document.createElement('style');
  s.id = 'coursekit-hint-style';
  s.textContent = CSS;
  document.head.appendChild(s);
}

const ID = '[\\p{L}_][\\p{L}\\p{N}_]*';

function importNames(path) {
  const parts = path.split('/').filter(Boolean);
  let last = parts[parts.length - 1] || '';
  if (/^v\d+$/.test(last) && parts.length > 1) last = parts[parts.length - 2];
  return [last, last.replace(/-/g, ''), last.replace(/^go-/, '')];
}

// The package-level names a GoNB cell declares (var, const, type, func, methods, imports), read
// line by line: what a learner's cell looks like, not every Go program (the kernel has the
// careful reader; this only has to point at the right cell).
export function declaredNames(src) {
  const names = new Set();
  let group = null;
  for (const raw of src.split('\n')) {
    const line = raw.startsWith('//gonb:') ? raw.slice(7) : raw;
    if (/^(%%|%main)(\s|$)/.test(line)) break; // the rest is the body of main()
    if (/^[%!]./.test(line)) continue; // special commands
    if (group) {
      if (/^\)/.test(line)) { group = null; continue; }
      if (group === 'import') {
        const m = line.match(new RegExp(`^\\s+(?:(${ID})\\s+)?"([^"]+)"`, 'u'));
        if (m) (m[1] ? [m[1]] : importNames(m[2])).forEach((n) => names.add(n));
      } else {
        const m = line.match(new RegExp(`^[ \\t](${ID}(?:\\s*,\\s*${ID})*)\\s*(?:=|[\\p{L}_*\\[(]|$)`, 'u'));
        if (m) m[1].split(',').map((s) => s.trim()).slice(0, group === 'type' ? 1 : undefined).forEach((n) => names.add(n));
      }
      continue;
    }
    let m = line.match(/^(var|const|type|import)\s*\(\s*(\/\/.*)?$/);
    if (m) { group = m[1]; continue; }
    m = line.match(new RegExp(`^(?:var|const)\\s+(${ID}(?:\\s*,\\s*${ID})*)`, 'u'));
    if (m) { m[1].split(',').forEach((n) => names.add(n.trim())); continue; }
    m = line.match(new RegExp(`^(?:type|func(?:\\s*\\([^)]*\\))?)\\s+(${ID})`, 'u'));
    if (m) { names.add(m[1]); continue; }
    m = line.match(new RegExp(`^import\\s+(?:(${ID})\\s+)?"([^"]+)"`, 'u'));
    if (m) (m[1] ? [m[1]] : importNames(m[2])).forEach((n) => names.add(n));
  }
  return names;
}

// The notebook panel whose DOM holds node, and the index of the cell that holds it.
function findCell(node) {
  const app = getApp();
  if (!app || !node.isConnected) return null;
  for (const w of app.shell.widgets('main')) {
    const nb = w.content;
    if (!nb || !nb.model || !nb.widgets || !w.node.contains(node)) continue;
    const index = nb.widgets.findIndex((c) => c.node.contains(node));
    return { panel: w, notebook: nb, index };
  }
  return null;
}

// Where name is declared: the nearest declaring code cell above `index`, else the first below.
export function declaringCell(cells, index, name) {
  let above = -1;
  let below = -1;
  cells.forEach((c, i) => {
    if (i === index || c.type !== 'code' || !declaredNames(c.source).has(name)) return;
    if (i < index) above = i;
    else if (below < 0) below = i;
  });
  return above >= 0 ? above : below;
}

function firstLine(src) {
  const line = src.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('//') && l !== '%%') || '';
  return line.length > 40 ? `${line.slice(0, 40)}…` : line;
}

class HintOutput extends Widget {
  constructor(options) {
    super();
    this._mimeType = options.mimeType;
    this._sanitizer = options.sanitizer;
    this._payload = null;
    this.addClass('coursekit-hint-output');
    addStyle();
  }

  renderModel(model) {
    let payload = model.data[this._mimeType];
    if (typeof payload === 'string') {
      try { payload = JSON.parse(payload); } catch { payload = {}; }
    }
    this._payload = payload && typeof payload === 'object' ? payload : {};
    const html = model.data['text/html'];
    const text = model.data['text/plain'];
    this.node.textContent = '';
    if (typeof html === 'string' && html) {
      const div = document.createElement('div');
      div.innerHTML = this._sanitizer ? this._sanitizer.sanitize(html) : '';
      if (!div.firstElementChild) div.textContent = typeof text === 'string' ? text : '';
      this.node.appendChild(div);
    } else {
      const pre = document.createElement('pre');
      pre.textContent = typeof text === 'string' ? text : '';
      this.node.appendChild(pre);
    }
    if (this.isAttached) this._addWhere();
    return Promise.resolve();
  }

  onAfterAttach() {
    // The output is attached before its cell is laid out: look a moment later.
    requestAnimationFrame(() => this._addWhere());
  }

  _addWhere() {
    const names = Array.isArray(this._payload?.undefined) ? this._payload.undefined.filter((n) => typeof n === 'string') : [];
    if (!names.length || this.node.querySelector('.coursekit-hint-where')) return;
    const found = findCell(this.node);
    if (!found) return;
    const { panel, notebook } = found;
    const cells = [];
    for (let i = 0; i < notebook.model.cells.length; i++) {
      const c = notebook.model.cells.get(i);
      cells.push({ type: c.type, source: c.sharedModel.getSource() });
    }
    // Right under the kernel's paragraph about undefined names, else at the end of the hint.
    let after = this.node.querySelector('.coursekit-hint-undefined');
    const box = this.node.querySelector('.coursekit-hint') || this.node;
    for (const name of names) {
      const at = declaringCell(cells, found.index, name);
      const p = document.createElement('p');
      p.className = 'coursekit-hint-where';
      const code = document.createElement('code');
      code.textContent = name;
      if (at < 0) {
        p.append('这本笔记本里没有单元格声明 ', code,
          '：多半是拼写或大小写写错了；如果它在另一本笔记本里，要在这一本里也声明一次。');
      } else {
        const head = document.createElement('code');
        head.textContent = firstLine(cells[at].source);
        p.append(`在这本笔记本里，声明 `, code, ` 的是从上往下数第 ${at + 1} 个单元格（以 `, head,
          ' 开头）：先运行它，再运行这一个。');
        p.dataset.cell = String(at + 1);
        const go = document.createElement('button');
        go.className = 'jp-Button jp-mod-styled jp-mod-accept coursekit-hint-jump';
        go.textContent = '跳到那个单元格';
        go.onclick = () => {
          getApp()?.shell.activateById(panel.id);
          notebook.activeCellIndex = at;
          notebook.mode = 'command';
          if (typeof notebook.scrollToItem === 'function') notebook.scrollToItem(at, 'center').catch(() => {});
          notebook.activate();
        };
        p.appendChild(go);
      }
      if (after) after.after(p);
      else box.appendChild(p);
      after = after && p;
    }
  }
}

export const rendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  // Ahead of text/html (rank 50 in JupyterLab), so this wins over its fallback.
  defaultRank: 40,
  createRenderer: (options) => new HintOutput(options),
};

export default {
  id: 'coursekit-jupyterlab:kernel-hint',
  rendererFactory,
  rank: 40,
  dataType: 'json',
};
