// Draws coursekit charts in JupyterLab from data: an output whose MIME type is
// application/vnd.coursekit.echarts+json carries an ECharts option (JSON, as an
// object or a string), and this renderer draws it with the ECharts bundled here.
//
// A MIME renderer, unlike a script in a text/html output, does not depend on the
// notebook being trusted, on the order in which outputs were produced, or on an
// earlier output having loaded the library: a saved, copied or partly re-run
// notebook draws the same. It is registered as safe (it also renders in untrusted
// notebooks), so it gives ECharts only the options on the allowlist of
// echarts-options.js: the keys and value types the course's charts use, strings as
// text (tooltip text escaped, but for its line breaks), no toolbox, links, CSS text,
// rich text, images or graphic elements. What it leaves out is counted on the
// output's element (data-coursekit-dropped, and the first paths in
// data-coursekit-dropped-keys), never logged.
import * as echarts from 'echarts';
import { Widget } from '@lumino/widgets';
import { allowOption } from './echarts-options.js';

export const MIME_TYPE = 'application/vnd.coursekit.echarts+json';

const DEFAULT_HEIGHT = '420px';

// cssLength accepts "420px", "60vh", "100%" and plain numbers (pixels), nothing else.
function cssLength(v, fallback) {
  if (typeof v === 'number' && isFinite(v) && v > 0) return `${v}px`;
  if (typeof v === 'string' && /^\d+(\.\d+)?(px|vh|em|rem|%)$/.test(v)) return v;
  return fallback;
}

class EChartsOutput extends Widget {
  constructor(options) {
    super();
    this._mimeType = options.mimeType;
    this._chart = null;
    this._option = null;
    this._observer = null;
    this.addClass('coursekit-echarts');
    this.node.style.width = '100%';
    this.node.style.overflow = 'hidden';
  }

  renderModel(model) {
    const meta = (model.metadata && model.metadata[this._mimeType]) || {};
    this.node.style.height = cssLength(meta.height, DEFAULT_HEIGHT);
    this._dispose();
    this.node.textContent = '';
    this.node.removeAttribute('data-coursekit-dropped');
    this.node.removeAttribute('data-coursekit-dropped-keys');
    try {
      let option = model.data[this._mimeType];
      if (typeof option === 'string') option = JSON.parse(option);
      if (option === null || typeof option !== 'object' || Array.isArray(option)) {
        throw new Error('the payload is not an ECharts option object');
      }
      const allowed = allowOption(option);
      this._option = allowed.option;
      this.node.setAttribute('data-coursekit-dropped', String(allowed.dropped));
      this.node.setAttribute('data-coursekit-dropped-keys', JSON.stringify(allowed.droppedPaths));
    } catch (err) {
      this._option = null;
      this._showError(err);
      return Promise.resolve();
    }
    // The output is usually rendered before it is in the page (no width yet):
    // draw when attached.
    if (this.isAttached) this._draw();
    return Promise.resolve();
  }

  onAfterAttach() {
    if (this._option && !this._chart) this._draw();
    else if (this._chart) this._chart.resize();
    if (!this._observer && typeof ResizeObserver !== 'undefined') {
      this._observer = new ResizeObserver(() => this._chart && this._chart.resize());
      this._observer.observe(this.node);
    }
  }

  onResize() {
    if (this._chart) this._chart.resize();
  }

  dispose() {
    if (this.isDisposed) return;
    this._dispose();
    if (this._observer) this._observer.disconnect();
    this._observer = null;
    super.dispose();
  }

  _draw() {
    this._dispose();
    try {
      this._chart = echarts.init(this.node, null, { renderer: 'canvas' });
      this._chart.setOption(this._option, true);
    } catch (err) {
      this._dispose();
      this._showError(err);
    }
  }

  _showError(err) {
    this.node.style.height = 'auto';
    this.node.textContent = '';
    const p = document.createElement('pre');
    p.className = 'coursekit-echarts-error';
    p.textContent = `图表数据有误，画不出来：${err && err.message ? err.message : err}`;
    this.node.appendChild(p);
  }

  _dispose() {
    if (this._chart) {
      this._chart.dispose();
      this._chart = null;
    }
  }
}

export const rendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  // Ahead of text/html (rank 50 in JupyterLab), so the chart wins over its fallback.
  defaultRank: 40,
  createRenderer: (options) => new EChartsOutput(options),
};

const extension = {
  id: 'coursekit-jupyterlab:echarts',
  rendererFactory,
  rank: 40,
  dataType: 'json',
};

export default extension;
