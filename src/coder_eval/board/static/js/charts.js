/* SVG charts drawn with DOM calls (no markup strings): scores with intervals, a run-over-run line. */
"use strict";
(function (B) {
  var NS = "http://www.w3.org/2000/svg";
  var PALETTE = ["#3b6fd8", "#e07b39", "#2f9e6e", "#a05bc8", "#c8453b", "#6b7f99", "#c9a227", "#2bb3c0"];
  function s(tag, attrs) {
    var el = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, String(attrs[k])); });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return el;
  }
  B.color = function (i) { return PALETTE[i % PALETTE.length]; };

  // Horizontal bars on a 0–1 axis, one group per label, one bar per series, whiskers for intervals.
  B.scoreChart = function (groups, series) {
    var left = 190, plot = 460, bar = 14, gap = 4, groupGap = 14, top = 28;
    var height = top + groups.length * (series.length * (bar + gap) + groupGap) + 24;
    var svg = s("svg", { class: "chart", role: "img", width: left + plot + 30, height: height, viewBox: "0 0 " + (left + plot + 30) + " " + height });
    svg.appendChild(s("title", {}, "Mean score per arm with 95% intervals"));
    for (var t = 0; t <= 4; t++) {
      var x = left + plot * t / 4;
      svg.appendChild(s("line", { x1: x, x2: x, y1: top - 6, y2: height - 20, stroke: "#d5dae3" }));
      svg.appendChild(s("text", { x: x, y: height - 6, "text-anchor": "middle", class: "axis" }, (t / 4).toFixed(2)));
    }
    series.forEach(function (name, i) {
      svg.appendChild(s("rect", { x: left + i * 120, y: 6, width: 10, height: 10, fill: B.color(i) }));
      svg.appendChild(s("text", { x: left + i * 120 + 14, y: 15, class: "legend" }, name));
    });
    var y = top;
    groups.forEach(function (g) {
      var gh = series.length * (bar + gap);
      svg.appendChild(s("text", { x: left - 8, y: y + gh / 2 + 4, "text-anchor": "end", class: "label" }, g.label.length > 28 ? g.label.slice(0, 27) + "…" : g.label));
      series.forEach(function (name, i) {
        var e = g.values[name];
        if (e) {
          var w = Math.max(1, plot * clamp(e.mean));
          var r = s("rect", { x: left, y: y, width: w, height: bar, fill: B.color(i), opacity: 0.85 });
          r.appendChild(s("title", {}, name + ": " + e.mean.toFixed(3) + " [" + e.low.toFixed(3) + ", " + e.high.toFixed(3) + "] n=" + e.n));
          svg.appendChild(r);
          var mid = y + bar / 2, lo = left + plot * clamp(e.low), hi = left + plot * clamp(e.high);
          svg.appendChild(s("line", { x1: lo, x2: hi, y1: mid, y2: mid, stroke: "#1d2533", "stroke-width": 1.5 }));
          svg.appendChild(s("line", { x1: lo, x2: lo, y1: mid - 4, y2: mid + 4, stroke: "#1d2533" }));
          svg.appendChild(s("line", { x1: hi, x2: hi, y1: mid - 4, y2: mid + 4, stroke: "#1d2533" }));
        } else {
          svg.appendChild(s("text", { x: left + 4, y: y + bar - 3, class: "axis" }, name + ": not measured"));
        }
        y += bar + gap;
      });
      y += groupGap;
    });
    return svg;
  };

  // A line over runs (oldest first); null points leave a gap. Values on a 0–1 axis.
  B.lineChart = function (points, labels, title) {
    var w = 640, h = 160, left = 40, right = 12, top = 12, bottom = 24;
    var svg = s("svg", { class: "chart", role: "img", width: w, height: h, viewBox: "0 0 " + w + " " + h });
    svg.appendChild(s("title", {}, title));
    [0, 0.5, 1].forEach(function (v) {
      var y = top + (h - top - bottom) * (1 - v);
      svg.appendChild(s("line", { x1: left, x2: w - right, y1: y, y2: y, stroke: "#d5dae3" }));
      svg.appendChild(s("text", { x: left - 6, y: y + 4, "text-anchor": "end", class: "axis" }, (v * 100) + "%"));
    });
    var n = points.length, step = n > 1 ? (w - left - right) / (n - 1) : 0, path = "", pen = false;
    points.forEach(function (v, i) {
      var x = left + (n > 1 ? step * i : (w - left - right) / 2);
      if (v === null || v === undefined) { pen = false; return; }
      var y = top + (h - top - bottom) * (1 - clamp(v));
      path += (pen ? "L" : "M") + x.toFixed(1) + " " + y.toFixed(1) + " ";
      pen = true;
      var dot = s("circle", { cx: x, cy: y, r: 4, fill: "#3b6fd8" });
      dot.appendChild(s("title", {}, labels[i] + ": " + (v * 100).toFixed(1) + "%"));
      svg.appendChild(dot);
    });
    if (path) svg.insertBefore(s("path", { d: path, fill: "none", stroke: "#3b6fd8", "stroke-width": 2 }), svg.firstChild.nextSibling);
    return svg;
  };

  // A thin horizontal meter (a div whose width is set through the CSSOM, which the CSP allows).
  B.meter = function (fraction, kind) {
    var fill = B.h("span", { class: "fill " + (kind || "") });
    fill.style.width = (100 * clamp(fraction || 0)).toFixed(1) + "%";
    return B.h("span", { class: "meter" }, fill);
  };
  function clamp(v) { return Math.max(0, Math.min(1, v)); }
})(Board);
