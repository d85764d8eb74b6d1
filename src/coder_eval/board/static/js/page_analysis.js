/* Experiment, suite, trends and compare pages. */
"use strict";
(function (B) {
  var h = B.h;
  // `rows`: a list of <tr>, or a <tbody> the page redraws itself.
  function table(id, head, rows) {
    var body = rows instanceof HTMLElement && rows.tagName === "TBODY" ? rows : h("tbody", {}, rows);
    return h("table", { class: "grid", id: id }, h("thead", {}, h("tr", {}, head.map(function (t) { return h("th", { text: t }); }))), body);
  }
  function ci(e, pct) {
    if (!e) return "n/a";
    var f = pct ? B.pct : function (x) { return B.num(x); };
    return f(pct ? e.rate : e.mean) + " [" + f(e.low) + ", " + f(e.high) + "]";
  }
  function back(runId) { return h("p", { class: "crumbs" }, h("a", { href: B.link(["runs", runId]), text: "← run " + runId })); }

  // ---- experiment ----------------------------------------------------------------------------
  function unitPath(t, r) { return r.variant_id + "/" + t.task_id + "/" + String(r.replicate_index).padStart(2, "0"); }
  // Per task: the first arm's first replicate against each other arm's first replicate.
  function armDiffs(x, t) {
    var first = {};
    t.replicates.forEach(function (r) { if (!(r.variant_id in first)) first[r.variant_id] = r; });
    var base = first[x.variant_ids[0]];
    if (!base) return h("span", { class: "muted", text: "–" });
    return x.variant_ids.slice(1).filter(function (v) { return first[v]; }).map(function (v) {
      return h("a", { class: "arm-diff", href: B.diffLink(x.run_id, unitPath(t, base), x.run_id, unitPath(t, first[v])), text: x.variant_ids[0] + " ↔ " + v + " " });
    });
  }
  // Any two units of the experiment, side by side.
  function unitPicker(x) {
    var all = [];
    x.tasks.forEach(function (t) { t.replicates.forEach(function (r) { all.push({ path: unitPath(t, r), label: t.task_id + " · " + r.variant_id + " #" + r.replicate_index + " (" + r.status + ")", variant: r.variant_id, task: t.task_id }); }); });
    if (all.length < 2) return null;
    var b = all.findIndex(function (u) { return u.task === all[0].task && u.variant !== all[0].variant; });
    var pick = function (name, chosen) {
      return h("select", { name: name, "aria-label": "unit " + name }, all.map(function (u, i) { var o = h("option", { value: String(i), text: u.label }); if (i === chosen) o.selected = true; return o; }));
    };
    var left = pick("left", 0), right = pick("right", b >= 0 ? b : 1);
    var go = function () { location.hash = B.diffLink(x.run_id, all[Number(left.value)].path, x.run_id, all[Number(right.value)].path); };
    return B.section("Compare two units", h("div", { class: "filters", id: "unit-picker" }, left, " with ", right, h("button", { text: "Diff", onclick: go })),
      h("p", { class: "muted small", text: "Their tool calls aligned side by side: where they diverged, tokens and time per step." }));
  }
  B.renderExperiment = function (app, m, token) {
    return B.get("runs/" + m[0] + "/experiment").then(function (x) {
      if (B.stale(token)) return;
      app.appendChild(back(x.run_id));
      app.appendChild(h("h1", {}, "Experiment ", h("span", { class: "mono", text: x.experiment_id })));
      if (x.description) app.appendChild(h("p", { text: x.description }));
      if (x.quarantine_summary) app.appendChild(h("div", { class: "card warn", id: "quarantine" }, h("b", { text: "Quarantine. " }), x.quarantine_summary,
        h("ul", {}, x.quarantine.map(function (q) { return h("li", { text: q.task_id + ": " + (q.mode === "exclude" ? "excluded" : "weight " + q.weight) + (q.in_run ? "" : " (not in this run)") }); }))));
      x.comparisons.forEach(function (c) {
        app.appendChild(h("div", { class: "card verdict", id: "verdict" }, h("b", { text: c.b + " vs " + c.a + ": " }), c.verdict,
          h("div", { class: "muted small", text: "mean difference " + B.signed(c.mean_difference, function (v) { return v.toFixed(3); }) + (c.interval ? ", 95% CI [" + c.interval.low.toFixed(3) + ", " + c.interval.high.toFixed(3) + "]" : "") +
            " · paired t p=" + (c.t_pvalue === null ? "n/a" : c.t_pvalue.toFixed(3)) + " · Wilcoxon p=" + (c.wilcoxon_pvalue === null ? "n/a" : c.wilcoxon_pvalue.toFixed(3)) +
            " · " + c.b_better + " better, " + c.a_better + " worse, " + c.ties + " tied over " + c.n + " tasks" +
            (c.sequential ? " · sequential e-values " + c.sequential.e_better.toPrecision(3) + " (" + c.b + " better) / " + c.sequential.e_worse.toPrecision(3) + " (" + c.a + " better), bar " + c.sequential.bar.toPrecision(3) : "") })));
      });
      app.appendChild(B.section("Arms side by side", h("div", { class: "scroll" }, table("arms", ["Arm", "Pass rate [95% CI]", "Mean score [95% CI]", "Rows", "Succeeded", "Failed", "Errors", "Tokens", "Avg duration", "Unmeasured"],
        x.arms.map(function (a, i) {
          var g = a.aggregate || {};
          return h("tr", {}, h("td", {}, h("span", { class: "swatch s" + (i % 8) }), " " + a.variant_id), h("td", { text: ci(a.pass_rate, true) }), h("td", { text: ci(a.score) }),
            h("td", { class: "num", text: g.tasks_run }), h("td", { class: "num", text: g.tasks_succeeded }), h("td", { class: "num", text: g.tasks_failed }),
            h("td", { class: "num", text: g.tasks_error }), h("td", { class: "num", text: B.int(g.total_tokens) }), h("td", { class: "num", text: B.secs(g.average_duration) }), h("td", { class: "num", text: a.unmeasured }));
        })))));
      if (x.adaptive) app.appendChild(B.section("Adaptive replicates", h("div", { id: "adaptive" },
        table("adaptive-summary", ["Measure", "Value"], x.adaptive.summary.map(function (r) { return h("tr", {}, h("td", { text: r[0] }), h("td", { text: r[1] })); })),
        h("div", { class: "scroll" }, table("adaptive-tasks", x.adaptive.headers, x.adaptive.tasks.map(function (r) { return h("tr", {}, r.map(function (v, i) { return h("td", { class: i === 0 ? "mono" : "", text: v }); })); }))),
        h("p", { class: "muted small", text: x.adaptive.note }))));
      var pk = [];
      x.arms.forEach(function (a, i) {
        (a.pass_k || []).forEach(function (f) {
          pk.push(h("tr", {}, h("td", {}, h("span", { class: "swatch s" + (i % 8) }), " " + a.variant_id), h("td", { class: "num", text: f.k }),
            h("td", { text: ci(f.pass_at_k) }), h("td", { text: ci(f.pass_hat_k) }), h("td", { class: "num", text: f.tasks + (f.tasks_excluded ? " (" + f.tasks_excluded + " left out: fewer than " + f.k + " graded)" : "") })));
        });
      });
      if (pk.length) app.appendChild(B.section("pass@k and pass^k", h("div", { class: "scroll" }, table("pass-k", ["Arm", "k", "pass@k [95% CI]", "pass^k [95% CI]", "Tasks"], pk)),
        h("p", { class: "muted small", text: "pass@k: at least one of k tries succeeds; pass^k: all k succeed. Unbiased per-task estimates from n graded replicates, averaged over tasks; intervals: bootstrap over tasks." })));
      var groups = [{ label: "all tasks", values: {} }];
      x.arms.forEach(function (a) { groups[0].values[a.variant_id] = a.score; });
      x.tasks.forEach(function (t) { groups.push({ label: t.task_id, values: t.arms }); });
      app.appendChild(B.section("Mean score with 95% intervals", h("div", { class: "scroll", id: "chart" }, B.scoreChart(groups, x.variant_ids))));
      app.appendChild(B.section("Per task", h("div", { class: "scroll" }, table("exp-tasks", ["Task"].concat(x.variant_ids).concat(["Best arm", "Spread"]).concat(x.k ? x.variant_ids.map(function (v) { return v + ": replicates, pass@" + x.k + " / pass^" + x.k; }) : []).concat(x.variant_ids.length > 1 ? ["Trajectories"] : []), x.tasks.map(function (t) {
        return h("tr", {}, h("td", { class: "mono", text: t.task_id }, t.quarantine !== null && t.quarantine !== undefined ? [" ", B.badge(t.quarantine === 0 ? "quarantined: excluded" : "quarantined: weight " + t.quarantine, "partial")] : null), x.variant_ids.map(function (v) {
          return h("td", { class: t.best_variant === v ? "best" : "", text: ci(t.arms[v]) });
        }), h("td", {}, t.best_variant ? B.badge(t.best_variant, "succeeded") : h("span", { class: "muted", text: t.is_tie ? "tie" : "n/a" })), h("td", { class: "num", text: B.num(t.spread) }), x.k ? x.variant_ids.map(function (v) {
          var p = (t.pass_k || {})[v];
          if (!p) return h("td", { class: "muted", text: "–" });
          return h("td", {}, h("span", { class: "mono strip-marks", title: p.c + " of " + p.n + " graded replicates succeeded", text: p.strip }), " ",
            p.pass_at_k ? B.num(p.pass_at_k.rate) + " / " + B.num(p.pass_hat_k.rate) : h("span", { class: "muted", text: "n/a (" + p.n + " graded)" }));
        }) : null, x.variant_ids.length > 1 ? h("td", {}, armDiffs(x, t)) : null);
      })))));
      B.append(app, unitPicker(x));
    });
  };

  // ---- suite ---------------------------------------------------------------------------------
  B.renderSuite = function (app, m, token) {
    return B.get("runs/" + m[0] + "/suite/" + m[1]).then(function (p) {
      if (B.stale(token)) return;
      var s = p.suite;
      app.appendChild(back(p.run_id));
      app.appendChild(h("h1", {}, "Suite ", h("span", { class: "mono", text: s.suite_id }), " ", B.badge(s.passed ? "gates pass" : "gates fail", s.passed ? "succeeded" : "failed")));
      app.appendChild(h("div", { class: "stats" }, [["Rows", s.rows_total], ["Passed", s.rows_passed], ["Failed", s.rows_failed], ["Errors", s.rows_error], ["Pass rate", B.pct(s.pass_rate)], ["Average score", B.num(s.average_weighted_score)], ["Variant", s.variant_id]].concat((s.pass_k || []).filter(function (f) { return f.k > 1; }).map(function (f) {
        return ["pass@" + f.k + " / pass^" + f.k, B.num(f.pass_at_k) + " / " + B.num(f.pass_hat_k)];
      })).map(function (kv) {
        return h("div", { class: "stat" }, h("div", { class: "label", text: kv[0] }), h("div", { class: "value", text: String(kv[1]) }));
      })));
      app.appendChild(B.section("Per criterion", table("criterion-stats", ["Criterion", "Rows evaluated", "Average score", "Errors"], s.criterion_stats.map(function (c) {
        return h("tr", {}, h("td", { class: "mono", text: c.criterion_type }), h("td", { class: "num", text: c.rows_evaluated }), h("td", { class: "num" }, B.num(c.average_score), " ", B.meter(c.average_score, "ok")), h("td", { class: "num", text: c.error_count }));
      }))));
      s.criterion_aggregates.forEach(function (a) {
        var parts = [h("p", { class: "muted", text: a.description + " · rows " + a.rows_total + (a.rows_excluded ? " (" + a.rows_excluded + " excluded)" : "") })];
        parts.push(table(null, ["Metric", "Value"], Object.keys(a.metrics).sort().map(function (k) { return h("tr", {}, h("td", { class: "mono", text: k }), h("td", { class: "num", text: B.num(a.metrics[k]) })); })));
        if (a.threshold_checks.length) parts.push(table(null, ["Gate", "Minimum", "Actual", ""], a.threshold_checks.map(function (t) {
          return h("tr", { class: t.passed ? "row-succeeded" : "row-failed" }, h("td", { class: "mono", text: t.metric }), h("td", { class: "num", text: B.num(t.min_value) }), h("td", { class: "num", text: B.num(t.actual_value) }), h("td", {}, B.badge(t.passed ? "pass" : "fail", t.passed ? "succeeded" : "failed")));
        })));
        var d = a.details || {};
        if (d.confusion && d.labels) {
          var max = 1;
          d.labels.forEach(function (e) { d.labels.forEach(function (o) { max = Math.max(max, d.confusion[e][o]); }); });
          parts.push(h("h3", { text: "Confusion matrix (rows: expected, columns: observed)" }));
          parts.push(h("table", { class: "grid confusion", id: "confusion" }, h("thead", {}, h("tr", {}, h("th", { text: "expected \\ observed" }), d.labels.map(function (l) { return h("th", { text: l }); }))),
            h("tbody", {}, d.labels.map(function (e) {
              return h("tr", {}, h("th", { text: e }), d.labels.map(function (o) {
                var n = d.confusion[e][o], td = h("td", { class: "num " + (e === o ? "diag" : n ? "off" : ""), text: n });
                td.setAttribute("data-level", String(Math.round(4 * n / max)));
                return td;
              }));
            }))));
        }
        if (a.error) parts.push(h("p", { class: "error", text: a.error }));
        app.appendChild(B.section("Criterion: " + a.criterion_type, parts));
      });
      var strips = Object.keys(s.replicate_strips || {}).sort();
      if (strips.length) app.appendChild(B.section("Replicates per row", h("p", { class: "muted small", text: "✓ succeeded, ✗ failed, ! error, · not graded" }),
        h("div", { class: "scroll" }, table("row-strips", ["Row", "Replicates"], strips.slice(0, 500).map(function (r) { return h("tr", {}, h("td", { class: "mono", text: r }), h("td", { class: "mono", text: s.replicate_strips[r] })); })))));
      if (s.failed_samples.length) app.appendChild(B.section("Rows that did not pass", table("failed-rows", ["Row", "Status", "Score", "Reasons"], s.failed_samples.map(function (f) {
        return h("tr", { class: "row-" + B.categoryOf(f.final_status) }, h("td", {}, f.task_path ? h("a", { href: B.link(["runs", p.run_id, "task"].concat(f.task_path.split("/"))), text: f.row_id || f.task_id }) : f.row_id || f.task_id),
          h("td", {}, B.statusBadge(f.final_status)), h("td", { class: "num", text: B.num(f.weighted_score) }), h("td", { text: f.failure_reasons.join("; ") }));
      }))));
    });
  };

  // ---- trends --------------------------------------------------------------------------------
  function strip(points, runs) {
    return h("span", { class: "strip" }, points.map(function (p, i) {
      var kind = !p ? "absent" : p.pass_rate === null ? "ungraded" : p.pass_rate === 1 ? "succeeded" : p.pass_rate === 0 ? "failed" : "partial";
      return h("span", { class: "cell k-" + kind, title: runs[i].run_id + ": " + (p ? (p.passed + "/" + p.graded + " passed, " + p.statuses.join(" ")) : "not run") });
    }));
  }
  B.renderTrends = function (app, _m, token) {
    return B.get("trends").then(function (t) {
      if (B.stale(token)) return;
      app.appendChild(h("h1", { text: "Trends" }));
      if (!t.runs.length) { app.appendChild(h("p", { class: "card", text: "No runs yet." })); return; }
      app.appendChild(h("p", { class: "muted", text: "The " + t.runs.length + " most recent runs, oldest on the left. Worst pass rate first." }));
      app.appendChild(B.section("Pass rate by run", B.lineChart(t.runs.map(function (r) { return r.pass_rate; }), t.runs.map(function (r) { return r.run_id; }), "Pass rate per run")));
      var q = "", body = h("tbody");
      function draw() {
        B.clear(body);
        t.tasks.filter(function (x) { return !q || x.task_id.toLowerCase().indexOf(q) >= 0; }).forEach(function (x) {
          body.appendChild(h("tr", {}, h("td", { class: "mono", text: x.task_id }), h("td", { text: x.variant_id }), h("td", {}, strip(x.points, t.runs)),
            h("td", { class: "num" }, B.pct(x.pass_rate), " ", B.meter(x.pass_rate, "ok")), h("td", {}, x.flaky ? B.badge("flaky", "partial") : ""),
            h("td", { class: "num", text: B.secs(x.duration) }), h("td", { class: "num", text: B.usd(x.cost) }), h("td", { class: "num", text: B.num(x.turns, 1) }), h("td", { class: "num", text: x.runs_seen })));
        });
      }
      app.appendChild(B.section("Per task", h("div", { class: "filters" }, h("input", { type: "search", placeholder: "filter task", "aria-label": "filter trend tasks", oninput: function (e) { q = e.target.value.toLowerCase(); draw(); } })),
        h("div", { class: "scroll" }, table("trends", ["Task", "Variant", "Runs (old → new)", "Pass rate", "", "Avg duration", "Avg cost", "Avg turns", "Runs seen"], body))));
      draw();
    });
  };

  // ---- compare -------------------------------------------------------------------------------
  var KIND = { regressed: "failed", fixed: "succeeded", removed: "ungraded", added: "running", still_failing: "partial", still_passing: "x" };
  function delta(label, v, f, goodWhenLower) {
    var cls = v === null || v === 0 ? "" : (v < 0) === !!goodWhenLower ? "good" : "bad";
    return h("div", { class: "stat" }, h("div", { class: "label", text: label }), h("div", { class: "value " + cls, text: B.signed(v, f) }));
  }
  B.renderCompare = function (app, m, token) {
    return B.get("runs").then(function (runs) {
      if (B.stale(token)) return;
      app.appendChild(h("h1", { text: "Compare two runs" }));
      if (runs.length < 2) { app.appendChild(h("p", { class: "card", text: "Comparing needs two runs." })); return; }
      var base = m[0] || runs[1].run_id, head = m[1] || runs[0].run_id;
      var pick = function (name, value) {
        return h("select", { name: name, "aria-label": name + " run" }, runs.map(function (r) { var o = h("option", { value: r.run_id, text: r.run_id + " (" + B.pct(r.pass_rate) + ")" }); if (r.run_id === value) o.selected = true; return o; }));
      };
      var a = pick("base", base), b = pick("head", head);
      app.appendChild(h("div", { class: "filters" }, "base ", a, " → head ", b, h("button", { text: "Compare", onclick: function () { location.hash = B.link(["compare", a.value, b.value]); } })));
      if (!m[0]) { location.replace(B.link(["compare", base, head])); return; }
      return B.get("compare/" + base + "/" + head).then(function (c) {
        if (B.stale(token)) return;
        var n = c.counts;
        app.appendChild(h("div", { class: "stats", id: "compare-summary" },
          h("div", { class: "stat" }, h("div", { class: "label", text: "Regressed" }), h("div", { class: "value bad", id: "regressed-count", text: n.regressed })),
          h("div", { class: "stat" }, h("div", { class: "label", text: "Fixed" }), h("div", { class: "value good", text: n.fixed })),
          h("div", { class: "stat" }, h("div", { class: "label", text: "Still failing" }), h("div", { class: "value", text: n.still_failing })),
          h("div", { class: "stat" }, h("div", { class: "label", text: "Added / removed" }), h("div", { class: "value", text: n.added + " / " + n.removed })),
          delta("Pass rate", c.deltas.pass_rate, function (v) { return (v * 100).toFixed(1) + " pts"; }, false),
          delta("Cost", c.deltas.cost, function (v) { return B.usd(v); }, true),
          delta("Wall time", c.deltas.duration, B.secs, true),
          delta("Task time", c.deltas.task_time, B.secs, true),
          delta("Tokens", c.deltas.tokens, B.int, true)));
        app.appendChild(h("p", { class: "muted", text: "base " + c.base.run_id + ": " + B.pct(c.base.pass_rate) + ", " + B.usd(c.base.cost) + ", " + B.secs(c.base.duration) + " → head " + c.head.run_id + ": " + B.pct(c.head.pass_rate) + ", " + B.usd(c.head.cost) + ", " + B.secs(c.head.duration) }));
        var show = { still_passing: false }, body = h("tbody");
        function link(run, side) { return side ? h("a", { href: B.link(["runs", run, "task"].concat(side.path.split("/"))), text: side.status }) : h("span", { class: "muted", text: "–" }); }
        function draw() {
          B.clear(body);
          c.changes.filter(function (x) { return show[x.kind] !== false; }).forEach(function (x) {
            body.appendChild(h("tr", { class: "change-" + x.kind }, h("td", {}, B.badge(x.kind.replace("_", " "), KIND[x.kind])), h("td", { class: "mono", text: x.task_id }), h("td", { text: x.variant_id }), h("td", { class: "num", text: x.replicate_index }),
              h("td", {}, link(c.base.run_id, x.base)), h("td", {}, link(c.head.run_id, x.head)),
              h("td", { class: "num", text: B.signed(x.score_delta, function (v) { return v.toFixed(3); }) }), h("td", { class: "num", text: B.signed(x.duration_delta, B.secs) }), h("td", { class: "num", text: B.signed(x.cost_delta, B.usd) })));
          });
        }
        var toggle = h("label", {}, h("input", { type: "checkbox", onchange: function (e) { show.still_passing = e.target.checked ? undefined : false; draw(); } }), " show tasks that passed in both");
        app.appendChild(B.section("What changed", toggle, h("div", { class: "scroll" }, table("changes", ["Change", "Task", "Variant", "Rep", "Base", "Head", "Score Δ", "Duration Δ", "Cost Δ"], body))));
        draw();
      });
    });
  };
})(Board);
