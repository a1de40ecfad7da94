// The ECharts options a notebook chart may carry: an allowlist of the option keys and value
// types that the course's charts use (coursekit/charts, and the runtime check's plain
// go-echarts bar), and nothing else. The chart renderer is registered as safe, so it also draws
// charts in untrusted notebooks: whatever a notebook's author put in the option, the renderer
// must only draw data. ECharts 5.4.3 has many options that reach the page as HTML or make a
// click do something (toolbox.feature.dataView renders its `lang` strings as HTML; saveAsImage
// downloads; title.link/sublink navigate; tooltip.extraCssText, className and textStyle go
// into the tooltip element's style; rich text and image symbols load URLs; graphic elements,
// legend and axis tooltips, ...). Listing the bad ones is a race with every ECharts release;
// listing the good ones is not.
//
// allowOption(option) returns { option, dropped }: a copy with only allowed keys whose values
// have the allowed type (anything else is left out, and its path is listed in `dropped`).
// Strings are text:
//   - titles, names, axis and data labels are drawn on the canvas, never parsed as HTML (a
//     label formatter is a template such as "{b}" whose result is drawn as text; `rich`
//     styles are not allowed, so "{x|…}" is plain text too);
//   - a tooltip formatter, which ECharts puts into the page as HTML, is escaped: its only
//     markup is the line break <br/> (the course's multi-line tooltips), everything else
//     shows as the characters it is. ECharts itself escapes the values it substitutes for
//     {a}, {b}, {c} in a tooltip, and every name in a tooltip it writes without a formatter.
// Colours are CSS colour literals, symbols are ECharts' built-in shapes or "path://" outlines
// (no "image://"), lengths are numbers or "60", "60%", and words (positions, types) are ASCII
// letters. There are no function values (JSON has none) and no toolbox, graphic, link,
// formatter outside labels and tooltips, rich text, className or CSS text.
//
// A course chart that starts using another option must add it here: the browser test
// docker/test/browser/renderer.test.mjs draws every chart kind of the course
// (docker/test/browser/testdata/course-chart-options.json, written by a Go test) and fails
// when any key of theirs is dropped.

const DROP = Symbol('drop');
// At most this many dropped paths are listed (the count is always exact).
export const MAX_LISTED = 50;

// --- values ----------------------------------------------------------------------------------
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);
const bool = (v) => (typeof v === 'boolean' ? v : DROP);
const num = (v) => (isNum(v) ? v : DROP);
const text = (v) => (typeof v === 'string' ? v : DROP);
const textOrNum = (v) => (typeof v === 'string' || isNum(v) ? v : DROP);
const oneOf = (...allowed) => (v) => (allowed.includes(v) ? v : DROP);
const WORD = /^[A-Za-z]{1,32}$/;
const word = (v) => (typeof v === 'string' && WORD.test(v) ? v : DROP);
// A CSS colour literal: #rgb[a], #rrggbb[aa], rgb()/rgba()/hsl()/hsla() of plain numbers, a name.
const COLOR = /^(#[0-9a-fA-F]{3,8}|(rgba?|hsla?)\(\s*\d+(\.\d+)?%?\s*(,\s*\d+(\.\d+)?%?\s*){2,3}\)|[A-Za-z]{3,32})$/;
const color = (v) => (typeof v === 'string' && COLOR.test(v) ? v : DROP);
// A length or position: 60, "60", "60.5", "60%", "-5", or a word such as "center", "bottom".
const LENGTH = /^-?\d+(\.\d+)?%?$/;
const place = (v) => (isNum(v) || (typeof v === 'string' && (LENGTH.test(v) || WORD.test(v))) ? v : DROP);
const fontWeight = (v) => (isNum(v) ? v : word(v));
// ECharts' built-in symbols, and SVG path outlines (numbers and path commands only).
const SYMBOLS = new Set(['none', 'circle', 'emptyCircle', 'rect', 'roundRect', 'triangle', 'diamond', 'pin', 'arrow']);
const PATH_SYMBOL = /^path:\/\/[MLHVCSQTAZmlhvcsqtaz0-9\s,.\-]+$/;
const symbol = (v) => (typeof v === 'string' && (SYMBOLS.has(v) || PATH_SYMBOL.test(v)) ? v : DROP);

// escapeHTML makes a string show as the characters it is when put into HTML.
export function escapeHTML(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// tooltipText is a tooltip formatter as HTML that shows its text: every line break tag
// (<br>, <br/>, <br />) stays a line break, everything else is escaped.
export function tooltipText(v) {
  if (typeof v !== 'string') return DROP;
  return v.split(/<br\s*\/?>/i).map(escapeHTML).join('<br/>');
}

// --- structure -------------------------------------------------------------------------------
// A spec is a function (value, path, dropped) => value | DROP. Structural specs list what they
// leave out inside themselves; the caller lists the path of a value its spec returned DROP for.

function listPath(dropped, path) {
  dropped.count++;
  if (dropped.paths.length < MAX_LISTED) dropped.paths.push(path.length > 120 ? `${path.slice(0, 120)}…` : path);
}

const keyPath = (path, k) => {
  const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k);
  return path ? `${path}.${key}` : key;
};

// obj allows exactly these keys (an own-property lookup: "constructor" or "__proto__" are
// unknown keys like any other). null stays null: ECharts reads it as "not set". A key named in
// `required` must be there and allowed, or the whole object is left out (a series whose type
// is not on the list is not drawn at all, rather than drawn as some other type).
function obj(fields, { required = [] } = {}) {
  const spec = (v, path, dropped) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return DROP;
    for (const k of required) {
      if (!Object.hasOwn(v, k) || v[k] === null || fields[k](v[k], keyPath(path, k), dropped) === DROP) return DROP;
    }
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const p = keyPath(path, k);
      if (!Object.hasOwn(fields, k)) {
        listPath(dropped, p);
        continue;
      }
      if (x === null) {
        out[k] = null;
        continue;
      }
      const r = fields[k](x, p, dropped);
      if (r === DROP) listPath(dropped, p);
      else out[k] = r;
    }
    return out;
  };
  spec.fields = fields;
  return spec;
}

// list allows an array of items of one spec; items that do not fit are left out.
function list(item) {
  return (v, path, dropped) => {
    if (!Array.isArray(v)) return DROP;
    const out = [];
    v.forEach((x, i) => {
      const p = `${path}[${i}]`;
      const r = x === null ? null : item(x, p, dropped);
      if (r === DROP) listPath(dropped, p);
      else out.push(r);
    });
    return out;
  };
}

// listOr allows one item or an array of them (ECharts accepts both for most components).
const listOr = (item) => {
  const many = list(item);
  return (v, path, dropped) => (Array.isArray(v) ? many(v, path, dropped) : item(v, path, dropped));
};

// byShape picks the spec by the value's JSON type: array, object, number, string, boolean.
const byShape = (specs) => (v, path, dropped) => {
  const shape = Array.isArray(v) ? 'array' : typeof v;
  return specs[shape] ? specs[shape](v, path, dropped) : DROP;
};

const numOrList = byShape({ number: num, array: list(num) });

// --- the allowlist -----------------------------------------------------------------------------
const textStyle = obj({ color, fontSize: num, fontWeight, lineHeight: num });
const itemStyle = obj({ color, borderColor: color, borderWidth: num, opacity: num });
const lineStyle = obj({ color, width: num, type: byShape({ string: oneOf('solid', 'dashed', 'dotted'), array: list(num) }), opacity: num });
// A label drawn on the canvas; its formatter is a template drawn as text.
const label = obj({
  show: bool, position: byShape({ string: place, array: list(place) }), formatter: text, color, fontSize: num, fontWeight,
  lineHeight: num, backgroundColor: color,
});
const tooltip = obj({ show: bool, trigger: oneOf('item', 'axis', 'none'), formatter: tooltipText });
const scalar = byShape({ number: num, string: text });
const axis = obj({
  type: oneOf('value', 'category', 'time', 'log'),
  show: bool,
  name: text,
  nameLocation: oneOf('start', 'middle', 'center', 'end'),
  nameGap: num,
  position: oneOf('left', 'right', 'top', 'bottom'),
  min: byShape({ number: num, string: oneOf('dataMin') }),
  max: byShape({ number: num, string: oneOf('dataMax') }),
  minInterval: num,
  maxInterval: num,
  inverse: bool,
  data: list(scalar),
  axisLabel: obj({ show: bool, interval: place, showMinLabel: bool, showMaxLabel: bool }),
});
// One end of a mark line or mark area: an axis value or a coordinate, with its name.
const markEnd = obj({ name: text, xAxis: scalar, yAxis: scalar, coord: list(scalar), label, lineStyle, itemStyle });
const markLine = obj({
  data: list(byShape({ object: markEnd, array: list(markEnd) })), label, lineStyle, symbol: listOr(symbol),
});
const markArea = obj({ data: list(list(markEnd)), itemStyle, label });
const dataItem = obj({
  value: byShape({ number: num, string: text, array: list(scalar) }),
  name: text, id: text, x: num, y: num, category: num,
  symbol, symbolSize: numOrList, symbolRotate: num,
  itemStyle, label, tooltip,
});
const series = obj({
  type: oneOf('bar', 'line', 'scatter', 'graph'),
  name: text,
  data: list(byShape({ number: num, string: text, array: list(scalar), object: dataItem })),
  stack: text,
  barWidth: place,
  showSymbol: bool,
  step: byShape({ boolean: bool, string: oneOf('start', 'middle', 'end') }),
  symbol,
  symbolSize: numOrList,
  xAxisIndex: num,
  yAxisIndex: num,
  itemStyle,
  lineStyle,
  label,
  tooltip,
  animation: bool,
  markLine,
  markArea,
  // graph series (the system paths and the learner's path map)
  layout: oneOf('none', 'force', 'circular'),
  roam: bool,
  force: obj({}),
  edgeLabel: label,
  edgeSymbol: listOr(symbol),
  edgeSymbolSize: numOrList,
  links: list(obj({ source: text, target: text, label, lineStyle, symbol: listOr(symbol) })),
  categories: list(obj({ name: text, itemStyle })),
  left: place, right: place, top: place, bottom: place,
}, { required: ['type'] });

export const OPTION = obj({
  animation: bool,
  color: list(color),
  title: listOr(obj({ text, subtext: text, left: place, top: place, textStyle, subtextStyle: textStyle })),
  legend: listOr(obj({ show: bool, data: list(text), left: place, right: place, top: place, bottom: place })),
  grid: listOr(obj({ left: place, right: place, top: place, bottom: place })),
  tooltip,
  xAxis: listOr(axis),
  yAxis: listOr(axis),
  dataZoom: listOr(obj({
    type: oneOf('slider', 'inside'), orient: oneOf('vertical', 'horizontal'), start: num, end: num,
    xAxisIndex: numOrList, yAxisIndex: numOrList, filterMode: oneOf('filter', 'weakFilter', 'empty', 'none'),
  }, { required: ['type'] })),
  series: listOr(series),
});

// allowOption returns the allowed part of an ECharts option, and what was left out.
export function allowOption(option) {
  const dropped = { count: 0, paths: [] };
  const out = OPTION(option, '', dropped);
  if (out === DROP) throw new Error('the payload is not an ECharts option object');
  return { option: out, dropped: dropped.count, droppedPaths: dropped.paths };
}
