// Draws every <svg class="chart"> from the JSON data block; marks each with data-drawn = points drawn.
(function () {
  var NS = 'http://www.w3.org/2000/svg';
  var COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  var data = JSON.parse(document.getElementById('goodput-data').textContent);
  function el(parent, name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    parent.appendChild(e);
    return e;
  }
  // round tick steps (1, 2 or 5 times a power of ten), so that axes read 0, 10, 20 rather than 0, 5.96, 11.9
  function step(lo, hi, n) {
    var raw = (hi - lo) / n, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function ticks(lo, hi, n) {
    var out = [], s = step(lo, hi, n);
    for (var v = Math.ceil(lo / s) * s; v <= hi + s * 1e-9; v += s) { out.push(v); }
    return out;
  }
  function label(v) {
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
  }
  function draw(svg, spec) {
    var W = 720, H = 340, L = 70, R = 190, T = 20, B = 50;
    svg.setAttribute('viewBox', '0 0 ' + W + ' ' + H);
    var pts = [];
    spec.series.forEach(function (s) { pts = pts.concat(s.points); });
    if (pts.length === 0) {
      el(svg, 'text', {x: W / 2, y: H / 2, 'text-anchor': 'middle', 'class': 'empty'}, 'no data');
      svg.setAttribute('data-drawn', '0');
      return;
    }
    var xs = pts.map(function (p) { return p.x; }), ys = pts.map(function (p) { return p.y; });
    var x0 = Math.min.apply(null, xs), x1 = Math.max.apply(null, xs);
    // a log axis when the values span more than a decade (TTFT next to E2E), else linear from 0
    var positive = ys.every(function (v) { return v > 0; });
    var log = spec.log && positive && Math.max.apply(null, ys) / Math.min.apply(null, ys) > 10;
    var f = log ? function (v) { return Math.log10(v); } : function (v) { return v; };
    var y0 = log ? Math.floor(f(Math.min.apply(null, ys))) : Math.min(0, Math.min.apply(null, ys));
    var y1 = log ? Math.ceil(f(Math.max.apply(null, ys))) : Math.max.apply(null, ys) * 1.05;
    if (x0 === x1) { x0 -= 1; x1 += 1; }
    if (y0 === y1) { y1 = y0 + 1; }
    if (!log && spec.yMax !== undefined) {
      y1 = spec.yMax;
    } else if (!log) {
      var ys5 = step(y0, y1, 5);
      y1 = Math.ceil(y1 / ys5) * ys5;
    }
    var sx = function (v) { return L + (v - x0) / (x1 - x0) * (W - L - R); };
    var sy = function (v) { return H - B - (f(v) - y0) / (y1 - y0) * (H - T - B); };
    svg.setAttribute('data-y-scale', log ? 'log' : 'linear');
    var axes = el(svg, 'g', {'class': 'axes'});
    el(axes, 'line', {x1: L, y1: H - B, x2: W - R, y2: H - B});
    el(axes, 'line', {x1: L, y1: T, x2: L, y2: H - B});
    ticks(x0, x1, 5).forEach(function (v) {
      el(axes, 'line', {x1: sx(v), y1: H - B, x2: sx(v), y2: H - B + 4});
      el(axes, 'text', {x: sx(v), y: H - B + 16, 'text-anchor': 'middle'}, label(v));
    });
    var yTicks = log ? [] : ticks(y0, y1, 5);
    if (log) {
      for (var d = y0; d <= y1; d++) {
        [1, 2, 5].forEach(function (m) { var v = m * Math.pow(10, d); if (f(v) <= y1) { yTicks.push(v); } });
      }
    }
    yTicks.forEach(function (v) {
      el(axes, 'line', {x1: L - 4, y1: sy(v), x2: W - R, y2: sy(v), 'class': 'grid'});
      el(axes, 'text', {x: L - 6, y: sy(v) + 4, 'text-anchor': 'end'}, label(v));
    });
    el(axes, 'text', {x: (L + W - R) / 2, y: H - 12, 'text-anchor': 'middle', 'class': 'title'}, spec.x);
    el(axes, 'text', {x: 14, y: (T + H - B) / 2, 'text-anchor': 'middle', 'class': 'title',
      transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')'}, spec.y);
    var drawn = 0;
    spec.series.forEach(function (s, i) {
      var color = COLORS[i % COLORS.length];
      var sorted = s.points.slice().sort(function (a, b) { return a.x - b.x; });
      if (sorted.length > 1) {
        el(svg, 'polyline', {points: sorted.map(function (p) { return sx(p.x) + ',' + sy(p.y); }).join(' '),
          fill: 'none', stroke: color, 'stroke-width': 1.5, 'class': 'series'});
      }
      sorted.forEach(function (p) {
        var c = el(svg, 'circle', {cx: sx(p.x), cy: sy(p.y), r: 3.5, fill: color, 'class': 'point'});
        el(c, 'title', {}, s.name + ': ' + (p.label || '') + ' ' + label(p.y));
        drawn++;
      });
      var ly = T + 14 + i * 18;
      el(svg, 'rect', {x: W - R + 12, y: ly - 9, width: 10, height: 10, fill: color});
      el(svg, 'text', {x: W - R + 28, y: ly, 'class': 'legend'}, s.name);
    });
    svg.setAttribute('data-drawn', String(drawn));
  }
  var charts = document.querySelectorAll('svg.chart');
  for (var i = 0; i < charts.length; i++) {
    draw(charts[i], data.charts[charts[i].id]);
  }
  document.body.setAttribute('data-charts-drawn', String(charts.length));
})();
