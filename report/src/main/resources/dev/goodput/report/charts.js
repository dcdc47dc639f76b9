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
  function ticks(lo, hi, n) {
    var out = [];
    for (var i = 0; i <= n; i++) { out.push(lo + (hi - lo) * i / n); }
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
    var y0 = Math.min(0, Math.min.apply(null, ys)), y1 = Math.max.apply(null, ys) * 1.08;
    if (x0 === x1) { x0 -= 1; x1 += 1; }
    if (y0 === y1) { y1 = y0 + 1; }
    var sx = function (v) { return L + (v - x0) / (x1 - x0) * (W - L - R); };
    var sy = function (v) { return H - B - (v - y0) / (y1 - y0) * (H - T - B); };
    var axes = el(svg, 'g', {'class': 'axes'});
    el(axes, 'line', {x1: L, y1: H - B, x2: W - R, y2: H - B});
    el(axes, 'line', {x1: L, y1: T, x2: L, y2: H - B});
    ticks(x0, x1, 5).forEach(function (v) {
      el(axes, 'line', {x1: sx(v), y1: H - B, x2: sx(v), y2: H - B + 4});
      el(axes, 'text', {x: sx(v), y: H - B + 16, 'text-anchor': 'middle'}, label(v));
    });
    ticks(y0, y1, 5).forEach(function (v) {
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
