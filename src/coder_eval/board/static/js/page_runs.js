/* The runs index and the run page (headline numbers, cost split, the sortable, filterable task table). */
"use strict";
(function (B) {
  var h = B.h;
  var OUTCOME_KIND = { passed: "succeeded", failed: "failed", running: "running", interrupted: "error", empty: "ungraded" };

  function select(label, name, values, onchange) {
    var el = h("select", { name: name, "aria-label": label, onchange: onchange }, h("option", { value: "", text: "any " + label }));
    values.forEach(function (v) { el.appendChild(h("option", { value: v, text: v })); });
    return el;
  }

  // ---- index ---------------------------------------------------------------------------------
  B.renderIndex = function (app, _m, token) {
    return B.get("runs").then(function (runs) {
      if (B.stale(token)) return;
      var facet = function (k) { var s = {}; runs.forEach(function (r) { r[k].forEach(function (v) { s[v] = 1; }); }); return Object.keys(s).sort(); };
      var state = { q: "", outcome: "", agent: "", tag: "", all: false };
      var body = h("tbody");
      var count = h("span", { class: "muted", id: "run-count" });
      var more = h("button", { class: "link", text: "show all runs", onclick: function () { state.all = true; draw(); } });
      function draw() {
        B.clear(body);
        var shown = runs.filter(function (r) {
          return (!state.q || r.run_id.toLowerCase().indexOf(state.q) >= 0) &&
            (!state.outcome || r.outcome === state.outcome) &&
            (!state.agent || r.agents.indexOf(state.agent) >= 0) &&
            (!state.tag || r.tags.indexOf(state.tag) >= 0);
        });
        var limit = state.all ? shown.length : 20;
        shown.slice(0, limit).forEach(function (r) {
          body.appendChild(h("tr", { class: "row-" + OUTCOME_KIND[r.outcome] },
            h("td", {}, h("a", { href: B.link(["runs", r.run_id]), text: r.run_id })),
            h("td", {}, B.badge(r.outcome, OUTCOME_KIND[r.outcome])),
            h("td", { text: B.when(r.start_time) }),
            h("td", { class: "num", text: r.tasks_run }),
            h("td", { class: "num" }, B.pct(r.pass_rate), " ", B.meter(r.pass_rate, "ok")),
            h("td", { class: "num", text: r.failed }),
            h("td", { class: "num", text: r.errors }),
            h("td", { class: "num", text: B.usd(r.cost) }),
            h("td", { class: "num", text: B.secs(r.duration) }),
            h("td", { text: r.agents.join(", ") }),
            h("td", { class: "tags", text: r.tags.join(" ") })));
        });
        count.textContent = Math.min(limit, shown.length) + " of " + shown.length + " runs shown";
        more.hidden = state.all || shown.length <= 20;
      }
      var filters = h("div", { class: "filters" },
        h("input", { type: "search", placeholder: "filter run id", "aria-label": "filter runs", oninput: function (e) { state.q = e.target.value.toLowerCase(); draw(); } }),
        select("status", "outcome", ["passed", "failed", "running", "interrupted", "empty"], function (e) { state.outcome = e.target.value; draw(); }),
        select("agent", "agent", facet("agents"), function (e) { state.agent = e.target.value; draw(); }),
        select("tag", "tag", facet("tags"), function (e) { state.tag = e.target.value; draw(); }),
        count, more);
      var head = ["Run", "Status", "Started", "Tasks", "Pass rate", "Failed", "Errors", "Cost", "Duration", "Agents", "Tags"];
      app.appendChild(h("h1", { text: "Runs" }));
      if (!runs.length) {
        app.appendChild(h("p", { class: "card", text: "No runs here yet: only directories holding a run.json (or a run still going) are listed. Point the board at the parent runs/ folder." }));
        return;
      }
      app.appendChild(B.section("Newest first", filters, h("table", { class: "grid", id: "runs" }, h("thead", {}, h("tr", {}, head.map(function (t) { return h("th", { text: t }); }))), body)));
      draw();
    });
  };

  // ---- run page ------------------------------------------------------------------------------
  var COLUMNS = [
    { key: "status", label: "Status" }, { key: "task_id", label: "Task" }, { key: "variant_id", label: "Variant" },
    { key: "replicate_index", label: "Rep", num: true }, { key: "score", label: "Score", num: true },
    { key: "duration", label: "Duration", num: true }, { key: "cost", label: "Cost", num: true },
    { key: "tokens", label: "Tokens", num: true }, { key: "turns", label: "Turns", num: true },
    { key: "tags", label: "Tags" }, { key: "error", label: "Error" }
  ];
  var PAGE = 200;

  function cell(row, col) {
    switch (col.key) {
      case "status": return h("td", {}, B.statusBadge(row.status));
      case "task_id": return h("td", {}, h("a", { href: B.link(["runs", row._run, "task"].concat(row.path.split("/"))), text: row.task_id }));
      case "score": return h("td", { class: "num", text: B.num(row.score) });
      case "duration": return h("td", { class: "num", text: B.secs(row.duration) });
      case "cost": return h("td", { class: "num", text: B.usd(row.cost) });
      case "tokens": case "turns": return h("td", { class: "num", text: B.int(row[col.key]) });
      case "tags": return h("td", { class: "tags", text: row.tags.join(" ") });
      case "error": return h("td", { class: "err", text: row.error || "" });
      default: return h("td", { class: col.num ? "num" : null, text: row[col.key] === null ? "" : row[col.key] });
    }
  }

  function compareValues(a, b) {
    if (a === b) return 0;
    if (a === null || a === undefined) return 1;
    if (b === null || b === undefined) return -1;
    if (Array.isArray(a)) { a = a.join(" "); b = b.join(" "); }
    return a < b ? -1 : 1;
  }

  function TaskTable(run) {
    var t = this;
    t.run = run;
    t.rows = run.rows;
    t.complete = run.rows.length >= run.row_count;
    t.state = { q: "", status: "", variant: "", tag: "", agent: "", sort: null, desc: false, limit: PAGE };
    t.body = h("tbody");
    t.count = h("span", { class: "muted", id: "row-count" });
    t.more = h("button", { class: "link", id: "show-more", text: "show more", onclick: function () { t.state.limit += PAGE; t.draw(); } });
    var heads = COLUMNS.map(function (col) {
      return h("th", { class: col.num ? "num sortable" : "sortable", "data-key": col.key, tabindex: 0, onclick: function () { t.sortBy(col.key); } , text: col.label });
    });
    t.heads = heads;
    var on = function (k) { return function (e) { t.state[k] = e.target.value; t.state.limit = PAGE; t.whenComplete(); }; };
    t.filters = h("div", { class: "filters" },
      h("input", { type: "search", id: "task-filter", placeholder: "filter task, error, model", "aria-label": "filter tasks", oninput: function (e) { t.state.q = e.target.value.toLowerCase(); t.state.limit = PAGE; t.whenComplete(); } }),
      select("status", "status", run.facets.status, on("status")),
      select("variant", "variant", run.facets.variant, on("variant")),
      select("tag", "tag", run.facets.tag, on("tag")),
      select("agent", "agent", run.facets.agent, on("agent")),
      t.count, t.more);
    t.table = h("table", { class: "grid", id: "tasks" }, h("thead", {}, h("tr", {}, heads)), t.body);
  }
  TaskTable.prototype.sortBy = function (key) {
    var s = this.state;
    s.desc = s.sort === key ? !s.desc : false;
    s.sort = key;
    this.heads.forEach(function (th) { th.setAttribute("aria-sort", th.getAttribute("data-key") === key ? (s.desc ? "descending" : "ascending") : "none"); });
    this.whenComplete();
  };
  // Filtering and sorting need every row: the first page came with the run, the rest loads once.
  TaskTable.prototype.whenComplete = function () {
    var t = this;
    if (t.complete) { t.draw(); return; }
    if (!t.loading) {
      t.loading = B.get("runs/" + t.run.run_id + "/rows").then(function (page) {
        t.rows = page.rows.map(function (r) { r._run = t.run.run_id; return r; });
        t.complete = true;
      });
    }
    t.count.textContent = "loading all " + B.int(t.run.row_count) + " rows…";
    t.loading.then(function () { t.draw(); });
  };
  TaskTable.prototype.setRows = function (rows, total) {
    var id = this.run.run_id;
    this.rows = rows.map(function (r) { r._run = id; return r; });
    this.complete = rows.length >= total;
  };
  TaskTable.prototype.draw = function () {
    var s = this.state, started = performance.now();
    var rows = this.rows.filter(function (r) {
      if (s.status && r.status !== s.status) return false;
      if (s.variant && r.variant_id !== s.variant) return false;
      if (s.tag && r.tags.indexOf(s.tag) < 0) return false;
      if (s.agent && r.agent !== s.agent) return false;
      if (s.q) {
        var hay = (r.task_id + " " + (r.error || "") + " " + (r.model || "") + " " + r.variant_id).toLowerCase();
        if (hay.indexOf(s.q) < 0) return false;
      }
      return true;
    });
    if (s.sort) {
      var k = s.sort, sign = s.desc ? -1 : 1;
      rows = rows.slice().sort(function (a, b) { return sign * compareValues(a[k], b[k]); });
    }
    var body = B.clear(this.body), frag = document.createDocumentFragment();
    rows.slice(0, s.limit).forEach(function (r) {
      frag.appendChild(h("tr", { class: "row-" + r.category }, COLUMNS.map(function (c) { return cell(r, c); })));
    });
    body.appendChild(frag);
    var total = this.complete ? this.rows.length : this.run.row_count;
    this.count.textContent = B.int(Math.min(s.limit, rows.length)) + " of " + B.int(rows.length) + " rows shown (" + B.int(total) + " in run)";
    this.more.hidden = rows.length <= s.limit;
    B.lastDraw = { rows: rows.length, ms: performance.now() - started, at: performance.now() };
  };

  function stat(label, value, extra) {
    return h("div", { class: "stat" }, h("div", { class: "label", text: label }), h("div", { class: "value", text: value }), extra ? h("div", { class: "muted small", text: extra }) : null);
  }

  function headline(run) {
    var c = run.costs;
    return h("div", { class: "stats", id: "headline" },
      stat("Pass rate", B.pct(run.pass_rate), run.succeeded + " of " + (run.tasks_run - run.not_graded) + " graded"),
      stat("Error share", B.pct(run.error_share), run.errors + " errors"),
      stat("Tasks", B.int(run.tasks_run), run.failed + " failed · " + run.not_graded + " not graded"),
      stat("Duration", B.secs(run.duration), "parallel " + run.max_parallel),
      stat("Cost", B.usd(c.total), "agent " + B.usd(c.agent) + " · judge " + B.usd(c.judge) + " · simulator " + B.usd(c.simulator) + (c.complete ? "" : " · " + c.incomplete_rows + " unpriced")),
      stat("Tokens", B.int(run.tokens)));
  }

  B.renderRun = function (app, m, token) {
    var runId = m[0];
    return B.get("runs/" + runId).then(function (run) {
      if (B.stale(token)) return;
      if (runId === "latest" && B.mode === "server") { location.replace(B.link(["runs", run.run_id])); return; }
      run.rows.forEach(function (r) { r._run = run.run_id; });
      var table = new TaskTable(run);
      var title = h("h1", {}, "Run ", h("span", { class: "mono", text: run.run_id }), " ", B.badge(run.outcome, OUTCOME_KIND[run.outcome]),
        run.interrupted ? B.badge("interrupted", "error") : null, run.state === "running" ? B.badge("live: refreshing", "running") : null);
      var links = h("div", { class: "actions" },
        h("a", { class: "button", href: B.zipUrl(run.run_id), download: run.run_id + ".zip", text: "Download run (.zip)" }),
        run.previous ? h("a", { class: "button", href: B.link(["compare", run.previous, run.run_id]), text: "Compare with previous run" }) : null,
        run.has_experiment ? h("a", { class: "button", href: B.link(["runs", run.run_id, "experiment"]), text: "Experiment" }) : null,
        run.suites.map(function (s) { return h("a", { class: "button", href: B.link(["runs", run.run_id, "suite"].concat(s.path.split("/"))), text: "Suite " + s.suite_id + (s.variant_id !== "default" ? " (" + s.variant_id + ")" : "") }); }));
      var head = h("div", {}, headline(run));
      app.appendChild(title);
      app.appendChild(h("p", { class: "muted", text: "Started " + B.when(run.start_time) + " · ended " + B.when(run.end_time) + " · coder-eval " + (run.framework_version || "?") + " · agents " + run.agents.join(", ") + " · models " + run.models.join(", ") }));
      app.appendChild(links);
      app.appendChild(head);
      if (run.state === "running" && run.units_planned != null) app.appendChild(h("p", { class: "card", id: "planned", text: run.tasks_run + " of " + run.units_planned + " planned units finished" }));
      if (run.state === "incomplete") app.appendChild(h("p", { class: "card warn", text: "This run has no run.json: it was stopped before it finished. Rows below come from the task records on disk; `coder-eval aggregate " + run.run_id + "` writes the summary." }));
      if (run.skipped.length) app.appendChild(B.section("Skipped task files", h("ul", {}, run.skipped.map(function (s) { return h("li", {}, h("span", { class: "mono", text: s.path }), ": " + s.reason); }))));
      run.warnings.forEach(function (w) { app.appendChild(h("p", { class: "warn", text: w })); });
      app.appendChild(B.section("Tasks", table.filters, h("div", { class: "scroll" }, table.table)));
      table.draw();
      if (run.state === "running") {
        B.every(2000, function () {
          Promise.all([B.get("runs/" + run.run_id), B.get("runs/" + run.run_id + "/rows")]).then(function (res) {
            if (B.stale(token)) return;
            var fresh = res[0];
            table.run = fresh;
            table.setRows(res[1].rows, res[1].total);
            B.clear(head).appendChild(headline(fresh));
            table.draw();
            if (fresh.state !== "running") { B.navigate(); }
          });
        });
      }
    });
  };
})(Board);
