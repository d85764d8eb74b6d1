/* The trajectory diff: two units' steps aligned side by side, where they diverged, tokens and time per step.
 * The alignment is computed by the board (board/trajectory.py, difflib); this page only draws it. */
"use strict";
(function (B) {
  var h = B.h;
  var SEP = B.DIFF_SEPARATOR;
  var LABEL = { same: "same", changed: "other arguments", replaced: "different step", only_left: "left only", only_right: "right only" };
  var TONE = { same: "x", changed: "partial", replaced: "failed", only_left: "running", only_right: "running" };

  // A static export holds each pair once; the page mirrors it when asked the other way round.
  function mirror(p) {
    var flip = { only_left: "only_right", only_right: "only_left" };
    return Object.assign({}, p, { left: p.right, right: p.left, rows: p.rows.map(function (r) {
      return Object.assign({}, r, { kind: flip[r.kind] || r.kind, left: r.right, right: r.left });
    }) });
  }
  function load(left, right) {
    var key = "diff/" + left.join("/") + "/" + SEP + "/" + right.join("/");
    if (B.mode !== "static") return B.get(key);
    var back = "diff/" + right.join("/") + "/" + SEP + "/" + left.join("/");
    return B.get("diff-index").then(function (held) {
      if (held.indexOf(key) >= 0) return B.get(key);
      if (held.indexOf(back) >= 0) return B.get(back).then(mirror);
      throw new Error("This pair of units is not in the static export (it holds replicates against replicate 0, arms against the first arm, each unit against the run before and each flaky task's passing and failing unit). The live board, coder-eval board, compares any two.");
    });
  }

  function head(u, side) {
    return h("div", { class: "card diff-unit", id: "diff-" + side },
      h("div", { class: "muted small", text: side }),
      h("a", { class: "mono", href: B.taskLink(u.run_id, u.path), text: u.run_id + " / " + u.path }), " ", B.statusBadge(u.status),
      h("div", { class: "muted small", text: "score " + B.num(u.score) + " · " + (u.agent || "?") + " · " + (u.model || "?") + " · " + B.secs(u.duration) + " · " + B.int(u.tokens) + " tokens · " + u.steps + " steps" }));
  }
  function step(s) {
    if (!s) return h("td", { class: "muted", text: "–" });
    var figures = [];
    if (s.duration_ms !== null) figures.push(s.duration_ms.toFixed(0) + " ms");
    if (s.tokens !== null) figures.push(B.int(s.tokens) + " tok");
    if (s.offset_s !== null) figures.push("+" + s.offset_s.toFixed(1) + "s");
    return h("td", { class: "diff-step" }, h("span", { class: "seq", text: "#" + s.index }), " ", B.badge(s.tool, s.kind === "reply" ? "ungraded" : s.status === "success" ? "succeeded" : s.status === "error" || s.status === "refused" ? "failed" : "x"),
      " ", h("span", { class: "mono", text: s.target }), s.sub_agent ? h("span", { class: "muted", text: " · sub-agent" }) : null,
      h("div", { class: "muted small", text: figures.join(" · ") }));
  }
  function differences(r) {
    if (!r.differs.length) return null;
    return h("tr", { class: "diff-args" }, h("td", {}), h("td", { colspan: "3" }, r.differs.map(function (name) {
      return h("div", { class: "small" }, h("b", { class: "mono", text: name + ": " }),
        h("span", { class: "mono", text: (r.left.arguments[name] === undefined ? "(absent)" : r.left.arguments[name]) }), h("span", { class: "muted", text: "  →  " }),
        h("span", { class: "mono", text: (r.right.arguments[name] === undefined ? "(absent)" : r.right.arguments[name]) }));
    })));
  }

  B.renderDiff = function (app, m, token) {
    var parts = m[0], cut = parts.indexOf(SEP, 1);
    var left = parts.slice(0, cut), right = parts.slice(cut + 1);
    if (cut < 0 || left.length < 2 || right.length < 2) throw new Error("A diff names two units: #/diff/<run>/<unit>/~/<run>/<unit>.");
    return load(left, right).then(function (p) {
      if (B.stale(token)) return;
      app.appendChild(h("p", { class: "crumbs" }, h("a", { href: B.taskLink(p.left.run_id, p.left.path), text: "← " + p.left.run_id + " / " + p.left.path })));
      app.appendChild(h("h1", {}, "Trajectory diff ", h("span", { class: "mono", text: p.left.task_id + (p.same_task ? "" : " vs " + p.right.task_id) })));
      app.appendChild(h("div", { class: "diff-heads" }, head(p.left, "left"), head(p.right, "right")));
      var first = p.diverged_at === null ? null : p.rows[p.diverged_at];
      var what = function (s) { return s ? s.tool + " " + s.target : "(no step)"; };
      app.appendChild(h("div", { class: "card verdict", id: "diff-summary" }, p.identical
        ? "The two units took the same steps with the same arguments."
        : ["Diverged at row " + (p.diverged_at + 1) + " (" + LABEL[first.kind] + "): ", h("span", { class: "mono", text: what(first.left) }), " vs ", h("span", { class: "mono", text: what(first.right) })],
        h("div", { class: "muted small", text: "similarity " + p.similarity.toFixed(3) + " (share of matching steps, arguments included)" })));
      if (!p.left.tokens_attributed || !p.right.tokens_attributed) app.appendChild(h("p", { class: "muted small", text: "A record written before tool calls kept their start time cannot attribute tokens to its tool steps; its replies still show theirs." }));
      if (p.left.truncated || p.right.truncated) app.appendChild(h("p", { class: "warn", text: "Only the first 2000 steps of each unit are aligned." }));
      var body = h("tbody");
      p.rows.forEach(function (r, i) {
        body.appendChild(h("tr", { class: "d-" + r.kind, id: i === p.diverged_at ? "diverged" : null }, h("td", {}, B.badge(LABEL[r.kind], TONE[r.kind])), step(r.left), h("td", { class: "muted", text: r.kind === "same" ? "=" : "≠" }), step(r.right)));
        B.append(body, differences(r));
      });
      app.appendChild(B.section("Steps side by side", h("div", { class: "scroll" }, h("table", { class: "grid", id: "diff" },
        h("thead", {}, h("tr", {}, ["", "Left", "", "Right"].map(function (t) { return h("th", { text: t }); }))), body)),
        h("p", { class: "muted small", text: "Steps are aligned on the tool's kind and target (command, path, pattern) with the unit's workspace path taken out; 'other arguments' is the same action with other arguments. Tokens: the model reply nearest in time to the step (counted once per reply); time: the tool call's duration and its start after the unit's first turn began." })));
    });
  };
})(Board);
