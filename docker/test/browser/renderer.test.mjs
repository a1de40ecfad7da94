// Tests of the lab's chart renderer (docker/labextension/src/echarts-renderer.js) and of the
// allowlist it gives ECharts (echarts-options.js). The renderer is registered as safe, so it
// draws charts in untrusted notebooks too; these tests say what that may and may not do:
//   - the allowlist keeps every option of every chart kind of the course (the Go test
//     TestNotebookOptionsFile writes them into testdata/course-chart-options.json), and leaves
//     out what reaches the page as HTML, navigates, downloads or loads a URL (no lab needed);
//   - in a real JupyterLab, every course chart in an untrusted notebook draws exactly the
//     pixels ECharts 5.4.3 draws for its original option, with nothing left out;
//   - a hostile option in an untrusted notebook (the toolbox's data view, save as image,
//     HTML in formatters, rich text, javascript: title links, tooltip CSS, graphic elements,
//     image symbols, baseOption and media, ...) runs nothing, loads nothing, navigates nowhere
//     and downloads nothing, however its charts are hovered and clicked: every element of the
//     chart under which the pointer turns into a hand (toolbox buttons, legend items, data
//     points, links), once each, and the whole toolbox corner are clicked.
// Screenshots go to out/screenshots/ (renderer-*.png).
//
// Run: node --test docker/test/browser/renderer.test.mjs (the environment of `make test-browser`).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import * as L from './lab.mjs';

const FIXTURE = path.join(L.repo, 'docker', 'test', 'browser', 'testdata', 'course-chart-options.json');
const ALLOWLIST = path.join(L.repo, 'docker', 'labextension', 'src', 'echarts-options.js');
const ECHARTS_JS = path.join(L.repo, 'coursekit', 'web', 'echarts.min.js'); // the same ECharts 5.4.3
const courseCharts = JSON.parse(fs.readFileSync(FIXTURE, 'utf8'));

// The allowlist module has no imports: load it as it is, without a bundler.
const allowlist = () => import(`data:text/javascript,${encodeURIComponent(fs.readFileSync(ALLOWLIST, 'utf8'))}`);

// --- the hostile options ---------------------------------------------------------------------------
// A trap server on loopback: any request to it means an option made the page load a URL.
const trapHits = [];
const trap = http.createServer((req, res) => {
  trapHits.push(req.url);
  res.writeHead(404).end();
});
let TRAP;

// Each payload records its name in window.__pwned when it runs.
const run = (name) => `(window.__pwned=window.__pwned||[]).push('${name}')`;
const evil = (name) => `<img src=x onerror="${run(name)}">`;
const js = (name) => `javascript:${run(name)}`;

function hostileOptions() {
  const css = (name) => `x;background:url(${TRAP}/${name})`;
  return {
    // A bar chart with every HTML-reaching and clickable option of the components it draws.
    bar: {
      title: {
        text: `title ${evil('titleText')}`, subtext: `subtext ${evil('subtext')}`, link: js('titleLink'),
        sublink: js('subLink'), target: 'self', subtarget: 'self', triggerEvent: true,
        textStyle: { fontFamily: css('titleFont'), rich: { a: { backgroundColor: { image: `${TRAP}/titleRich` } } } },
      },
      toolbox: {
        show: true, showTitle: true, itemSize: 18, right: 10, top: 5,
        feature: {
          dataView: { show: true, readOnly: false, title: evil('dataViewTitle'),
            lang: [evil('dataViewLang0'), evil('dataViewLang1'), evil('dataViewLang2')] },
          saveAsImage: { show: true, name: `chart ${evil('saveAsImageName')}`, title: evil('saveAsImageTitle') },
          restore: { show: true, title: evil('restoreTitle') },
          dataZoom: { show: true, title: { zoom: evil('dataZoomTitle'), back: evil('dataZoomBack') } },
          magicType: { show: true, type: ['line', 'bar', 'stack'], title: { line: evil('magicTypeTitle') } },
        },
        tooltip: { show: true, formatter: `toolbox ${evil('toolboxTooltip')}`, extraCssText: css('toolboxTooltipCss') },
      },
      tooltip: {
        show: true, trigger: 'item', formatter: `tip ${evil('tooltipFormatter')}<br/>{b}`,
        extraCssText: `background:url(${TRAP}/extraCssText)`, className: `x" onmouseover="${run('className')}`,
        textStyle: { fontFamily: css('tooltipFont') }, backgroundColor: `url(${TRAP}/tooltipBackground)`,
        borderColor: css('tooltipBorder'), enterable: true, appendToBody: true, renderMode: 'html',
      },
      legend: {
        show: true, top: 30, data: [{ name: 's', icon: `image://${TRAP}/legendIcon` }, 'm'],
        formatter: `legend ${evil('legendFormatter')}`,
        tooltip: { show: true, formatter: `legend tooltip ${evil('legendTooltip')}` },
        selector: [{ type: 'all', title: evil('legendSelector') }],
        textStyle: { rich: { a: { backgroundColor: { image: `${TRAP}/legendRich` } } } },
      },
      grid: { top: 90 },
      xAxis: {
        type: 'category', data: ['a', `category ${evil('category')}`, 'c'], name: `axis ${evil('axisName')}`,
        triggerEvent: true, axisLabel: { formatter: `{value} ${evil('axisLabelFormatter')}` },
        axisPointer: { show: true, label: { show: true, formatter: evil('axisPointerLabel') } },
      },
      yAxis: { type: 'value', axisLabel: { formatter: `${evil('yAxisLabelFormatter')} {value}`, rich: {} } },
      series: [
        {
          type: 'bar', name: 's',
          data: [5, { value: 8, name: `point ${evil('dataName')}`, tooltip: { formatter: `item ${evil('itemTooltip')}` } }, 3],
          label: { show: true, formatter: `{img|x} ${evil('labelFormatter')}`,
            rich: { img: { height: 16, backgroundColor: { image: `${TRAP}/richImage` } } } },
          tooltip: { formatter: `series ${evil('seriesTooltip')}` },
          itemStyle: { color: `#5470c6;background:url(${TRAP}/itemColor)`, decal: { symbol: `image://${TRAP}/decal` } },
          markPoint: { data: [{ type: 'max', name: `max ${evil('markPointName')}` }], symbol: `image://${TRAP}/markPoint`,
            label: { formatter: evil('markPointLabel') }, tooltip: { formatter: evil('markPointTooltip') } },
          markLine: { data: [{ yAxis: 6, name: `line ${evil('markLineName')}` }], label: { formatter: `{b} ${evil('markLineLabel')}` },
            tooltip: { formatter: evil('markLineTooltip') } },
        },
        { type: 'line', name: 'm', data: [2, 6, 4], symbol: `image://${TRAP}/symbol`, symbolSize: 14,
          tooltip: { formatter: `line ${evil('lineTooltip')}` } },
      ],
    },
    // Components a course chart never draws: graphic elements, a data zoom with a label
    // formatter, a visual map, aria text, an image background, custom and pie series.
    components: {
      textStyle: { fontFamily: css('globalFont') },
      aria: { enabled: true, label: { description: evil('aria') } },
      graphic: [
        { type: 'image', left: 10, top: 10, style: { image: `${TRAP}/graphicImage`, width: 40, height: 40 }, onclick: run('graphicOnclick') },
        { type: 'text', left: 60, top: 10, cursor: 'pointer', style: { text: `graphic ${evil('graphicText')}`, fontSize: 16 } },
      ],
      dataZoom: [{ type: 'slider', show: true, xAxisIndex: 0, labelFormatter: `${evil('dataZoomLabel')} {value}`,
        handleIcon: `image://${TRAP}/dataZoomHandle`, moveHandleIcon: `image://${TRAP}/dataZoomMoveHandle` }],
      visualMap: { show: true, type: 'continuous', min: 0, max: 10, right: 0, top: 'middle', calculable: true,
        text: [evil('visualMapHigh'), evil('visualMapLow')], formatter: evil('visualMapFormatter'), seriesIndex: 0 },
      brush: { toolbox: ['rect', 'clear'] },
      tooltip: { show: true, trigger: 'axis', formatter: `axis ${evil('axisTooltip')}` },
      xAxis: { type: 'category', data: ['a', 'b', 'c', 'd'] },
      yAxis: { type: 'value' },
      series: [
        { type: 'line', name: 'l', data: [1, 4, 2, 6], symbolSize: 12, label: { show: true, formatter: evil('lineLabel') },
          endLabel: { show: true, formatter: evil('endLabel') }, emphasis: { label: { show: true, formatter: evil('emphasisLabel') } },
          markArea: { data: [[{ name: `area ${evil('markAreaName')}`, xAxis: 'a' }, { xAxis: 'b' }]],
            label: { formatter: `{b} ${evil('markAreaLabel')}` }, tooltip: { formatter: evil('markAreaTooltip') } } },
        { type: 'pie', radius: '15%', center: ['80%', '25%'], data: [{ value: 1, name: `pie ${evil('pieName')}` }, { value: 2, name: 'q' }],
          label: { formatter: `{b} ${evil('pieLabel')}` }, tooltip: { formatter: evil('pieTooltip') } },
      ],
    },
    // An image as the background (a pattern: ECharts loads the URL). Apart from the series of
    // `components`: together they hang ECharts 5.4.3's first render.
    background: {
      backgroundColor: { image: `${TRAP}/backgroundImage`, repeat: 'repeat' },
      xAxis: { type: 'category', data: ['a', 'b', 'c'] },
      yAxis: { type: 'value' },
      series: [{ type: 'line', name: 'g', data: [2, 5, 3] }],
    },
    // Strings where ECharts takes functions (ECharts 5.4.3 throws on them, so the chart
    // draws only if they are left out).
    functions: {
      toolbox: { show: true, feature: { myTool: { show: true, title: evil('myToolTitle'), icon: `image://${TRAP}/toolboxIcon`, onclick: run('toolboxOnclick') } } },
      graphic: [{ type: 'circle', shape: { r: 20 }, left: 20, top: 20, onclick: run('graphicOnclick2') }],
      tooltip: { show: true, formatter: run('tooltipFunction'), valueFormatter: run('valueFormatter'), position: run('position') },
      xAxis: { type: 'category', data: ['a', 'b', 'c'] },
      yAxis: { type: 'value' },
      series: [{ type: 'bar', name: 'f', data: [4, 2, 6] }, { type: 'custom', renderItem: run('renderItem'), data: [1, 2] }],
    },
    // A plain bar chart on top, and a base option (with its media) that ECharts would draw
    // in its place: a toolbox whose data view carries the payload.
    baseOption: {
      xAxis: { type: 'category', data: ['a', 'b', 'c'] },
      yAxis: { type: 'value' },
      series: [{ type: 'bar', name: 'b', data: [3, 7, 5] }],
      baseOption: {
        title: { text: 'base', link: js('baseOptionLink'), target: 'self' },
        toolbox: { show: true, feature: { dataView: { show: true, lang: [evil('baseOptionDataView'), 'x', 'y'] } } },
        xAxis: { type: 'category', data: ['a', 'b', 'c'] },
        yAxis: { type: 'value' },
        series: [{ type: 'bar', data: [1, 2, 3] }],
      },
      media: [{ query: { minWidth: 1 }, option: { toolbox: { show: true, feature: { dataView: { show: true, lang: [evil('mediaDataView'), 'x', 'y'] } } } } }],
      options: [{ title: { text: evil('timelineOptions') } }],
    },
  };
}

// --- notebooks -------------------------------------------------------------------------------------
// A notebook made elsewhere: one code cell per chart output, never run here, not signed.
function writeNotebook(lab, name, charts) {
  const nb = {
    nbformat: 4, nbformat_minor: 5,
    metadata: { kernelspec: { name: 'gonb', display_name: 'Go (gonb)', language: 'go' } },
    cells: charts.map((c, i) => ({
      cell_type: 'code', id: `c${i}`, metadata: {}, source: [`%%\n// ${c.name}\n`], execution_count: i + 1,
      outputs: [{
        output_type: 'display_data',
        metadata: c.height ? { [L.CHART_MIME]: { height: c.height } } : {},
        // nb.Chart sends the option as a JSON string; a notebook may also hold it as an object.
        data: { [L.CHART_MIME]: c.asObject ? c.option : JSON.stringify(c.option), 'text/plain': c.name },
      }],
    })),
  };
  fs.writeFileSync(path.join(lab.notebooks, name), JSON.stringify(nb));
}

// chartState reads what the renderer did with cell index's chart.
function chartState(page, index) {
  return page.evaluate(async (index) => {
    const nb = window.__notebook.content;
    if (typeof nb.scrollToItem === 'function') await nb.scrollToItem(index, 'start');
    nb.widgets[index].node.scrollIntoView();
    const node = nb.widgets[index].node.querySelector('.coursekit-echarts');
    const canvas = node?.querySelector('canvas');
    return {
      dropped: node?.getAttribute('data-coursekit-dropped') ?? null,
      droppedKeys: JSON.parse(node?.getAttribute('data-coursekit-dropped-keys') || 'null'),
      width: canvas ? parseFloat(canvas.style.width) : 0,
      height: canvas ? parseFloat(canvas.style.height) : 0,
      png: canvas ? canvas.toDataURL('image/png') : '',
    };
  }, index);
}

let lab, browser;
before(async () => {
  fs.mkdirSync(L.shotsDir, { recursive: true });
  await new Promise((resolve) => trap.listen(0, '127.0.0.1', resolve));
  TRAP = `http://127.0.0.1:${trap.address().port}`;
});
after(async () => {
  await browser?.close().catch(() => {});
  await lab?.stop();
  trap.close();
});

async function theLab() {
  if (!lab) {
    lab = await L.startLab();
    browser = await L.openBrowser(lab);
    // Every element added to the page with an event-handler attribute (or given one later),
    // and any img, script, iframe, object or embed added inside a chart, from the first moment
    // of every page.
    await browser.addInitScript(() => {
      window.__injected = [];
      const note = (e, what) => {
        if (window.__injected.length < 100) window.__injected.push(`${e.tagName} ${what} ${e.outerHTML.slice(0, 160)}`);
      };
      const look = (el) => {
        if (!(el instanceof Element)) return;
        for (const e of [el, ...el.querySelectorAll('*')]) {
          const handlers = [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => a.name);
          if (handlers.length) note(e, handlers.join(','));
          else if (/^(IMG|SCRIPT|IFRAME|OBJECT|EMBED|LINK|STYLE)$/.test(e.tagName) && e.closest('.coursekit-echarts, [_echarts_instance_]')) note(e, 'in a chart');
        }
      };
      new MutationObserver((muts) => {
        for (const m of muts) {
          if (m.type === 'attributes') {
            if (/^on/i.test(m.attributeName) && m.target.hasAttribute(m.attributeName)) note(m.target, m.attributeName);
          } else m.addedNodes.forEach(look);
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
  }
  return { lab, browser };
}

// --- the allowlist alone ---------------------------------------------------------------------------
test('the allowlist keeps every option of every course chart', async () => {
  const { allowOption, tooltipText } = await allowlist();
  assert.ok(courseCharts.length >= 20, `only ${courseCharts.length} charts in ${FIXTURE}`);
  for (const c of courseCharts) {
    const got = allowOption(c.option);
    assert.deepEqual(got.droppedPaths, [], `${c.name}: the allowlist leaves out course options`);
    assert.equal(got.dropped, 0, c.name);
    // Unchanged, but for tooltip text, which is escaped (with its <br/> kept).
    const want = structuredClone(c.option);
    const escapeTooltips = (v, inTooltip) => {
      if (Array.isArray(v)) v.forEach((x) => escapeTooltips(x, inTooltip));
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (inTooltip && k === 'formatter') v[k] = tooltipText(x);
          else escapeTooltips(x, k === 'tooltip');
        }
      }
    };
    escapeTooltips(want, false);
    assert.deepEqual(got.option, want, `${c.name}: the allowlist changed a course option`);
  }
});

test('the allowlist leaves out what reaches the page as HTML, navigates, downloads or loads a URL', async () => {
  const { allowOption, tooltipText } = await allowlist();
  const hostile = hostileOptions();
  const all = {};
  for (const [name, option] of Object.entries(hostile)) {
    const got = allowOption(option);
    const text = JSON.stringify(got.option);
    all[name] = got;
    assert.doesNotMatch(text, /javascript:|image:\/\/|url\(|127\.0\.0\.1/i, `${name}: a link, image or CSS URL left in ${text}`);
    assert.ok(got.dropped > 0 && got.dropped >= got.droppedPaths.length, `${name}: counted ${got.dropped}`);
  }
  for (const p of ['toolbox', 'title.link', 'title.sublink', 'title.target', 'title.triggerEvent', 'title.textStyle.fontFamily',
    'title.textStyle.rich', 'tooltip.extraCssText', 'tooltip.className', 'tooltip.textStyle', 'tooltip.backgroundColor',
    'tooltip.borderColor', 'tooltip.enterable', 'tooltip.appendToBody', 'tooltip.renderMode', 'legend.data[0]', 'legend.formatter',
    'legend.tooltip', 'legend.selector', 'legend.textStyle', 'xAxis.triggerEvent', 'xAxis.axisLabel.formatter',
    'xAxis.axisPointer', 'yAxis.axisLabel.formatter', 'yAxis.axisLabel.rich', 'series[0].label.rich',
    'series[0].itemStyle.color', 'series[0].itemStyle.decal', 'series[0].markPoint', 'series[0].markLine.tooltip',
    'series[1].symbol']) {
    assert.ok(all.bar.droppedPaths.includes(p), `bar: ${p} is not left out: ${all.bar.droppedPaths}`);
  }
  assert.deepEqual(all.background.droppedPaths, ['backgroundColor']);
  for (const p of ['textStyle', 'aria', 'graphic', 'dataZoom[0].labelFormatter', 'dataZoom[0].show',
    'dataZoom[0].handleIcon', 'visualMap', 'brush', 'series[0].endLabel', 'series[0].emphasis', 'series[0].markArea.tooltip',
    'series[1]']) {
    assert.ok(all.components.droppedPaths.includes(p), `components: ${p} is not left out: ${all.components.droppedPaths}`);
  }
  for (const p of ['toolbox', 'graphic', 'tooltip.valueFormatter', 'tooltip.position', 'series[1]']) {
    assert.ok(all.functions.droppedPaths.includes(p), `functions: ${p} is not left out: ${all.functions.droppedPaths}`);
  }
  for (const p of ['baseOption', 'media', 'options']) {
    assert.ok(all.baseOption.droppedPaths.includes(p), `baseOption: ${p} is not left out: ${all.baseOption.droppedPaths}`);
  }
  // What is text stays, as text: tooltip text escaped, names and labels drawn on the canvas.
  assert.equal(all.bar.option.tooltip.formatter,
    `tip &#60;img src=x onerror=&#34;${run('tooltipFormatter').replace(/'/g, '&#39;')}&#34;&#62;<br/>{b}`);
  assert.equal(all.bar.option.series[0].data[1].name, `point ${evil('dataName')}`);
  assert.equal(tooltipText('a<br>b<BR />c<br/>d<b>'), 'a<br/>b<br/>c<br/>d&#60;b&#62;');
  // Keys are looked up as own properties: "constructor" or "__proto__" are unknown keys.
  const proto = allowOption(JSON.parse('{"constructor": {"x": 1}, "__proto__": {"polluted": 1}, "toString": 1, "series": []}'));
  assert.deepEqual(proto.droppedPaths.sort(), ['__proto__', 'constructor', 'toString']);
  assert.equal(proto.option.polluted, undefined);
  assert.equal({}.polluted, undefined);
  // Values of the wrong type are left out too: no functions' source, objects for colours, CSS in lengths.
  const typed = allowOption({ color: ['#fff', 'red;x:y', { image: 'u' }], grid: { left: '10px;x' }, series: [{ type: 'bar', symbol: 'image://u', data: [1] }] });
  assert.deepEqual(typed.option, { color: ['#fff'], grid: {}, series: [{ type: 'bar', data: [1] }] });
  assert.deepEqual(typed.droppedPaths, ['color[1]', 'color[2]', 'grid.left', 'series[0].symbol']);
  // At most 50 paths are listed; the count is exact.
  const many = allowOption(Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`k${i}`, i])));
  assert.equal(many.dropped, 80);
  assert.equal(many.droppedPaths.length, 50);
});

// --- in JupyterLab ----------------------------------------------------------------------------------
test('every course chart draws in an untrusted notebook exactly as ECharts draws its option, nothing left out', { timeout: 10 * 60_000 }, async () => {
  const { lab, browser } = await theLab();
  writeNotebook(lab, 'course-charts.ipynb', courseCharts.map((c, i) => ({ ...c, asObject: i % 5 === 4 })));
  const { page, errors } = await L.openNotebook(browser, lab, 'course-charts.ipynb', { waitKernel: false });
  const reference = await browser.newPage();
  try {
    const report = await L.modelReport(page);
    assert.ok(report.cells.every((c) => c.trusted === false), 'the notebook must open untrusted');
    await L.checkCharts(page, report, 'renderer-course');
    // The same document language as the lab (zh-CN): it picks the font of generic "sans-serif".
    const lang = await page.evaluate(() => document.documentElement.lang);
    await reference.setContent(`<!doctype html><html lang="${lang}"><body style="margin:0"><div id="c"></div></body></html>`);
    await reference.addScriptTag({ path: ECHARTS_JS });
    const differ = [];
    for (const [i, c] of courseCharts.entries()) {
      const drawn = await chartState(page, report.cells[i].index);
      assert.equal(drawn.dropped, '0', `${c.name}: the renderer left out ${JSON.stringify(drawn.droppedKeys)}`);
      assert.ok(drawn.width > 50 && drawn.height > 50, `${c.name}: drawn ${drawn.width}x${drawn.height}`);
      // The original option, drawn by the same ECharts at the same size in a page of its own.
      const png = await reference.evaluate(async ({ option, width, height }) => {
        const div = document.getElementById('c');
        div.style.width = `${width}px`;
        div.style.height = `${height}px`;
        const chart = window.echarts.init(div, null, { renderer: 'canvas' });
        chart.setOption(option, true);
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const out = div.querySelector('canvas').toDataURL('image/png');
        chart.dispose();
        return out;
      }, { option: c.option, width: drawn.width, height: drawn.height });
      if (png !== drawn.png) {
        // Keep both pictures, and count the pixels that differ.
        const pixels = await reference.evaluate(async ([a, b]) => {
          const load = (src) => new Promise((resolve) => { const im = new Image(); im.onload = () => resolve(im); im.src = src; });
          const [ia, ib] = await Promise.all([load(a), load(b)]);
          const data = (im) => {
            const c = document.createElement('canvas');
            c.width = im.width; c.height = im.height;
            const ctx = c.getContext('2d');
            ctx.drawImage(im, 0, 0);
            return ctx.getImageData(0, 0, im.width, im.height).data;
          };
          if (ia.width !== ib.width || ia.height !== ib.height) return `sizes ${ia.width}x${ia.height} and ${ib.width}x${ib.height}`;
          const [da, db] = [data(ia), data(ib)];
          let n = 0;
          for (let k = 0; k < da.length; k += 4) if (da[k] !== db[k] || da[k + 1] !== db[k + 1] || da[k + 2] !== db[k + 2] || da[k + 3] !== db[k + 3]) n++;
          return `${n} of ${da.length / 4} pixels`;
        }, [png, drawn.png]);
        differ.push(`${c.name} (${pixels})`);
        for (const [tag, url] of [['lab', drawn.png], ['echarts', png]]) {
          fs.writeFileSync(path.join(L.shotsDir, `renderer-differs-${c.name}-${tag}.png`), Buffer.from(url.split(',')[1], 'base64'));
        }
      }
    }
    assert.deepEqual(differ, [], 'charts that draw differently in the lab than ECharts draws their option');
    await page.screenshot({ path: path.join(L.shotsDir, 'renderer-course-charts.png') });
    assert.deepEqual(errors, [], 'JavaScript errors in the page');
  } catch (e) {
    await L.failureEvidence(page, lab, 'renderer-course');
    throw e;
  } finally {
    await reference.close();
    await page.close();
  }
});

// controlSpots hovers the whole chart (mouse moves every 8 px, as ECharts sees them) and
// returns the spots where the pointer turns into a hand: ECharts' sign of something to click
// (toolbox buttons, legend items, data points, linked titles). One spot per element under the
// pointer: zrender shows the hand for the element its Handler.findHover finds there, and a click
// runs what that element and its parents listen for, wherever in it the pointer is; a second
// spot on the same bar or legend item clicked the same listeners again (one spot per 32 px square, as
// before, was 158 spots on the bar chart for its 13 elements).
function controlSpots(page, index) {
  return page.evaluate(async (index) => {
    const cell = window.__notebook.content.widgets[index];
    const node = cell.node.querySelector('.coursekit-echarts');
    // The renderer's widget keeps its ECharts instance (docker/labextension/src/echarts-renderer.js).
    const find = (w) => w._chart || [...(w.children ? w.children() : [])].map(find).find(Boolean) || null;
    const chart = find(cell);
    if (!chart) throw new Error(`cell ${index}: no ECharts instance in the renderer's widget`);
    const handler = chart.getZr().handler;
    const canvas = node.querySelector('canvas');
    const root = canvas.parentElement; // zrender's viewport: it shows the cursor
    const r = canvas.getBoundingClientRect();
    const spots = new Map();
    for (let y = 2; y < r.height && !window.__pwned; y += 8) {
      await new Promise((resolve) => setTimeout(resolve)); // a row at a time: the page keeps up
      for (let x = 2; x < r.width; x += 8) {
        canvas.dispatchEvent(new MouseEvent('mousemove', { clientX: r.x + x, clientY: r.y + y, bubbles: true }));
        if (root.style.cursor !== 'pointer') continue;
        const target = handler.findHover(x, y).target ?? null;
        if (!spots.has(target)) spots.set(target, { x: r.x + x, y: r.y + y });
      }
    }
    canvas.dispatchEvent(new MouseEvent('mouseout', { bubbles: true }));
    return { spots: [...spots.values()], box: { x: r.x, y: r.y, w: r.width, h: r.height } };
  }, index);
}

test('a hostile chart option in an untrusted notebook runs, loads, opens and downloads nothing, however it is hovered and clicked', { timeout: 25 * 60_000 }, async () => {
  const { lab, browser } = await theLab();
  const hostile = hostileOptions();
  writeNotebook(lab, 'hostile-charts.ipynb', Object.entries(hostile).map(([name, option], i) => ({ name, option, height: '460px', asObject: i === 4 })));
  const { page, errors } = await L.openNotebook(browser, lab, 'hostile-charts.ipynb', { waitKernel: false });
  const seen = { navigations: [], popups: [], downloads: [], dialogs: [], requests: [] };
  const trapHost = new URL(TRAP).host;
  page.on('framenavigated', (f) => f === page.mainFrame() && seen.navigations.push(f.url()));
  page.on('download', (d) => seen.downloads.push(d.suggestedFilename()));
  page.on('dialog', (d) => { seen.dialogs.push(d.message()); d.dismiss().catch(() => {}); });
  page.on('request', (r) => { if (r.url().includes(trapHost)) seen.requests.push(r.url()); });
  const onPopup = (p) => seen.popups.push(p.url());
  browser.on('page', onPopup);
  const tooltips = new Set();
  let clicks = 0;
  try {
    const report = await L.modelReport(page);
    assert.ok(report.cells.every((c) => c.trusted === false), 'the notebook must open untrusted');
    const names = Object.keys(hostile);
    for (const [i, cell] of report.cells.entries()) {
      if (await page.evaluate(() => !!window.__pwned)) break; // seen enough: the assertions say what ran
      await chartState(page, cell.index); // scrolled into view
      await page.waitForFunction((index) => !!window.__notebook.content.widgets[index].node.querySelector('.coursekit-echarts canvas'),
        cell.index, { timeout: 30_000 }).catch(() => {});
      if (!(await page.evaluate((index) => !!window.__notebook.content.widgets[index].node.querySelector('.coursekit-echarts canvas'), cell.index))) continue;
      const swept = Date.now();
      const { spots, box } = await controlSpots(page, cell.index);
      console.log(`# ${names[i]}: hovered the whole chart in ${Date.now() - swept} ms`);
      // The toolbox corner (top right) and the title corner (top left), clicked whatever the cursor says.
      const corners = [];
      for (let dx = 8; dx < 260; dx += 16) for (const dy of [8, 20, 32]) corners.push({ x: box.x + box.w - dx, y: box.y + dy });
      for (let dx = 8; dx < 200; dx += 32) for (const dy of [10, 30]) corners.push({ x: box.x + dx, y: box.y + dy });
      const t0 = Date.now();
      for (const s of [...spots, ...corners]) {
        if (clicks % 10 === 0 && await page.evaluate(() => !!window.__pwned)) break; // seen enough
        await page.mouse.move(s.x, s.y);
        await L.sleep(20);
        for (const t of await page.evaluate(() => [...document.querySelectorAll('[_echarts_instance_] > div, body > div')]
          .filter((d) => d.style.position === 'absolute' && d.style.display !== 'none' && /tip|series|item|line|toolbox/.test(d.textContent))
          .map((d) => d.textContent.slice(0, 200)))) tooltips.add(t);
        await page.mouse.click(s.x, s.y);
        clicks++;
        await L.sleep(40);
      }
      await page.mouse.move(0, 0);
      await page.screenshot({ path: path.join(L.shotsDir, `renderer-hostile-${names[i]}.png`) });
      console.log(`# ${names[i]}: ${spots.length} element(s) under a hand pointer and ${corners.length} spots in the corners, clicked in ${Date.now() - t0} ms`);
    }
    await L.sleep(1000); // an image that fails to load calls its onerror after the request
    const state = await page.evaluate(() => ({
      pwned: window.__pwned ?? null,
      injected: window.__injected ?? null,
      inCharts: [...document.querySelectorAll('.coursekit-echarts img, .coursekit-echarts script, .coursekit-echarts iframe, .coursekit-echarts a[href]')].map((e) => e.outerHTML.slice(0, 160)),
      handlers: [...document.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${e.tagName} ${a.name}`)),
      dropped: [...document.querySelectorAll('.coursekit-echarts')].map((n) => JSON.parse(n.getAttribute('data-coursekit-dropped-keys') || 'null')),
      url: location.href,
    }));
    console.log(`# ${clicks} clicks; tooltips seen: ${JSON.stringify([...tooltips].slice(0, 4))}`);
    assert.equal(state.pwned, null, `a payload ran: ${JSON.stringify(state.pwned)}`);
    assert.deepEqual(state.injected, [], 'elements with event handlers, or images and scripts in a chart, were added to the page');
    assert.deepEqual(state.inCharts, [], 'images, scripts or links inside a chart');
    assert.deepEqual(state.handlers, [], 'event-handler attributes in the page');
    assert.deepEqual(seen.requests, [], 'the page loaded URLs named by the option');
    assert.deepEqual(trapHits, [], 'the trap server was asked for URLs named by the option');
    assert.deepEqual(seen.downloads, [], 'a click downloaded something');
    assert.deepEqual(seen.popups, [], 'a click opened a window');
    assert.deepEqual(seen.dialogs, [], 'a dialog opened');
    // JupyterLab itself rewrites its address (/lab?reset becomes /lab): anything else is a navigation.
    const inLab = (u) => u.startsWith(`${lab.base}/lab`);
    assert.ok(inLab(state.url), `the page navigated to ${state.url}`);
    assert.deepEqual(seen.navigations.filter((u) => !inLab(u)), [], 'the page navigated');
    assert.ok(clicks > 100, `only ${clicks} clicks`);
    // The hostile text is still shown, as text: the data point's tooltip.
    assert.ok([...tooltips].some((t) => t.includes(`item <img src=x onerror="${run('itemTooltip')}">`)),
      `the item tooltip should show its text as text: ${JSON.stringify([...tooltips])}`);
    // What the renderer left out is on the chart's element, for tests (never in the console).
    assert.ok(state.dropped.every((d) => Array.isArray(d) && d.length > 0), `left-out keys: ${JSON.stringify(state.dropped)}`);
    assert.ok(state.dropped[0].includes('toolbox') && state.dropped[0].includes('title.link'), JSON.stringify(state.dropped[0]));
    // And the charts still draw.
    await L.checkCharts(page, await L.modelReport(page), 'renderer-hostile');
    assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'JavaScript errors in the page');
  } catch (e) {
    await L.failureEvidence(page, lab, 'renderer-hostile');
    throw e;
  } finally {
    browser.off('page', onPopup);
    await page.close();
  }
});
