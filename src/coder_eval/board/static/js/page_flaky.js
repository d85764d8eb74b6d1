/* The flaky page (unstable tasks with the criteria that flip and grader defects) and the trajectory diff. */
"use strict";
(function (B) {
  var h = B.h;
  function share(x) { return x === null || x === undefined ? "n/a" : x.toFixed(2); }
  function units(list) {
    var out = [];
    list.forEach(function (u, i) { if (i) out.push(", "); out.push(h("a", { href: B.taskLink(u.run, u.path), text: u.run + "#" + u.replicate_index, title: u.status })); });
    return out;
  }
  function scores(lo, hi) { return Math.abs(hi - lo) < 1e-9 ? "score " + lo.toFixed(3) : "scores " + lo.toFixed(3) + "–" + hi.toFixed(3); }
  function side(s) {
    var verb = s.passed ? "passed" : "failed";
    return h("ul", { class: "reasons" }, s.reasons.map(function (r) {
      return h("li", {}, B.badge(verb, s.passed ? "succeeded" : "failed"), " in ", units(r.units), h("span", { class: "muted", text: " (" + scores(r.low, r.high) + "): " }),
        h("span", { class: "mono", text: r.text || "(the checker said nothing)" }));
    }), s.more_reasons ? h("li", { class: "muted", text: "… and " + s.more_reasons + " other reason(s)" }) : null);
  }

  function taskCard(t) {
    var passing = t.units.filter(function (u) { return u.status === "SUCCESS"; })[0];
    var failing = t.units.filter(function (u) { return u.status !== "SUCCESS"; })[0];
    return h("section", { class: "card flaky-task" + (t.grader_defect ? " grader" : "") },
      h("h2", {}, h("span", { class: "mono", text: t.label }), " ", B.badge("stability " + share(t.stability), "partial"),
        t.grader_defect ? [" ", B.badge("grader defect", "failed")] : null),
      h("p", { class: "muted", text: t.succeeded + " of " + t.graded + " graded units succeeded · pairs that agree: within runs " + share(t.within_runs) + ", across runs " + share(t.across_runs) }),
      h("p", {}, t.strips.map(function (s) { return h("span", { class: "strip-run" }, h("span", { class: "muted", text: s[0] + " " }), h("span", { class: "mono strip-marks", text: s[1] }), "  "); })),
      t.grader_defect ? h("p", { class: "warn", text: "Its grade differs on the same workspace (see Grader defects): these flips need not be the agent's." }) : null,
      t.config_changes.length ? h("p", { class: "warn", text: "The recorded configuration differs between these units (" + t.config_changes.join(", ") + "): not a fair comparison." }) : null,
      t.flips.map(function (f) {
        return h("div", { class: "flip" }, h("b", { text: f.title }), h("span", { class: "muted", text: ": passed " + f.passed + " of " + f.evaluated + " (" + scores(f.low, f.high) + ")" }), side(f.passing), side(f.failing));
      }),
      !t.flips.length ? h("p", { text: "No criterion flips; the statuses differ: " + t.statuses.map(function (s) { return s[0] + " ×" + s[1]; }).join(", ") }) : null,
      passing && failing ? h("p", {}, h("a", { class: "button diff-link", href: B.diffLink(passing.run, passing.path, failing.run, failing.path), text: "Compare a passing and a failing unit" })) : null);
  }

  function graderCard(c) {
    return h("section", { class: "card grader-unit" },
      h("h2", {}, h("span", { class: "mono", text: c.label }), " ", h("a", { href: B.taskLink(c.unit.run, c.unit.path), text: c.unit.run + "#" + c.unit.replicate_index })),
      h("p", { class: "muted", text: "the recorded grade and " + c.regrades + " re-grade(s) of the same workspace" }),
      c.flips.map(function (f) {
        return h("div", { class: "flip" }, h("b", { text: f.title }), h("span", { class: "muted", text: ": passed " + f.passed + " of " + f.outcomes.length + " grade(s)" }),
          h("ul", { class: "reasons" }, f.outcomes.map(function (o) {
            return h("li", {}, h("span", { class: "muted", text: o.grade + " " }), B.badge(o.passed ? "passed" : "failed", o.passed ? "succeeded" : "failed"), " " + o.score.toFixed(3) + " ", h("span", { class: "mono", text: o.reason || "(the checker said nothing)" }));
          })));
      }),
      c.notes.map(function (n) { return h("p", { class: "muted small", text: n }); }));
  }

  B.renderFlaky = function (app, _m, token) {
    return B.get("flaky").then(function (f) {
      if (B.stale(token)) return;
      app.appendChild(h("h1", { text: "Flaky tasks" }));
      app.appendChild(h("p", { class: "muted", id: "flaky-summary", text: f.tasks.length + " of " + f.configurations + " configuration(s) (task, variant, agent, model) flip over the " + f.runs.length + " most recent run(s); least stable first. Stability: the share of pairs of graded units that agree." }));
      if (f.unreadable_units) app.appendChild(h("p", { class: "warn", text: f.unreadable_units + " unit record(s) could not be read and are left out." }));
      var list = h("div", { id: "flaky-tasks" });
      if (!f.tasks.length) list.appendChild(h("p", { class: "card", text: "No task flips between its replicates or runs." }));
      f.tasks.forEach(function (t) { list.appendChild(taskCard(t)); });
      app.appendChild(list);
      var bad = f.grader_checks.filter(function (c) { return c.defect; });
      var grader = h("div", { id: "grader-defects" }, h("h1", { text: "Grader defects" }),
        h("p", { class: "muted", text: f.regraded_units ? f.regraded_units + " unit(s) re-graded, " + bad.length + " whose grade differs on the same workspace: the grader, not the agent, varies." : "No re-grades yet: run coder-eval flaky --regrade N RUN_DIR to grade each unit's workspace again." }));
      bad.forEach(function (c) { grader.appendChild(graderCard(c)); });
      if (f.defects_not_flaky.length) grader.appendChild(h("p", { class: "warn", text: "Grader defects in tasks whose outcome did not flip (yet): " + f.defects_not_flaky.join(", ") }));
      app.appendChild(grader);
    });
  };
})(Board);
