/* Routes and start-up. Addresses live after the # so the same pages work from the server and from file://. */
"use strict";
(function (B) {
  function rest(p, from) { return p.slice(from).join("/"); }
  B.route(function (p) { return p.length === 1 && (p[0] === "" || p[0] === "runs") ? [] : null; }, B.renderIndex);
  B.route(function (p) { return p[0] === "runs" && p.length === 2 ? [p[1]] : null; }, B.renderRun);
  B.route(function (p) { return p[0] === "runs" && p[2] === "task" && p.length > 3 ? [p[1], rest(p, 3)] : null; }, B.renderTask);
  B.route(function (p) { return p[0] === "runs" && p[2] === "experiment" && p.length === 3 ? [p[1]] : null; }, B.renderExperiment);
  B.route(function (p) { return p[0] === "runs" && p[2] === "suite" && p.length > 3 ? [p[1], rest(p, 3)] : null; }, B.renderSuite);
  B.route(function (p) { return p[0] === "trends" ? [] : null; }, B.renderTrends);
  B.route(function (p) { return p[0] === "compare" ? [p[1] || null, p[2] || null] : null; }, B.renderCompare);
  B.route(function (p) { return p[0] === "flaky" && p.length === 1 ? [] : null; }, B.renderFlaky);
  B.route(function (p) { return p[0] === "diff" && p.length > 1 ? [p.slice(1)] : null; }, B.renderDiff);
  document.addEventListener("DOMContentLoaded", function () {
    B.mode = document.body.getAttribute("data-mode") === "static" ? "static" : "server";
    document.getElementById("mode").textContent = B.mode === "static" ? "static export" : "live from disk";
    window.addEventListener("hashchange", B.navigate);
    B.navigate();
  });
})(Board);
