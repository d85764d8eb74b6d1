/* The task page: criteria, dialog, tool and message timelines, gateway calls, network, artifacts, task.log. */
"use strict";
(function (B) {
  var h = B.h;
  var OUTCOME = { pass: "succeeded", fail: "failed", info: "ungraded", skipped: "ungraded" };

  function outcomeOf(c) {
    if (c.evaluation_status === "not_evaluated") return "skipped";
    if (!c.gating) return "info";
    return c.score >= c.pass_threshold ? "pass" : "fail";
  }
  function pre(text, cls) { return h("pre", { class: cls || "block", text: text }); }
  function json(v) { return JSON.stringify(v, null, 2); }
  function tokens(u) {
    if (!u) return "";
    var parts = ["in " + B.int(u.uncached_input_tokens), "out " + B.int(u.output_tokens)];
    if (u.cache_read_input_tokens) parts.push("cache read " + B.int(u.cache_read_input_tokens));
    if (u.cache_creation_input_tokens) parts.push("cache write " + B.int(u.cache_creation_input_tokens));
    if (u.reasoning_tokens) parts.push("reasoning " + B.int(u.reasoning_tokens));
    if (u.total_cost_usd !== null && u.total_cost_usd !== undefined) parts.push(B.usd(u.total_cost_usd));
    return parts.join(" · ");
  }

  function criteria(list, title) {
    if (!list.length) return null;
    return B.section(title, h("div", { class: "cards", id: title === "Criteria" ? "criteria" : null }, list.map(function (c) {
      var o = outcomeOf(c);
      return h("div", { class: "crit c-" + OUTCOME[o] },
        h("div", { class: "crit-head" }, B.badge(o, OUTCOME[o]), " ", h("b", { text: c.criterion_type }), h("span", { class: "muted", text: " weight " + c.weight + " · threshold " + c.pass_threshold })),
        h("div", { class: "crit-desc", text: c.description || "" }),
        h("div", {}, "score ", h("b", { text: B.num(c.score) }), " ", B.meter(c.score, o === "fail" ? "bad" : "ok")),
        c.details ? pre(c.details, "details") : null,
        c.error ? h("p", { class: "error", text: c.error }) : null,
        c.result_kind === "classification" ? h("p", { text: "observed “" + c.observed_label + "”, expected “" + c.expected_label + "”" }) : null,
        c.findings && c.findings.length ? h("ul", {}, c.findings.map(function (f) { return h("li", { text: f }); })) : null,
        c.transcript_path ? h("p", { class: "muted", text: "judge transcript: " + c.transcript_path }) : null);
    })));
  }

  function dialog(turns) {
    return B.section("Dialog", h("div", { class: "dialog", id: "dialog" }, turns.map(function (t) {
      return [h("div", { class: "bubble user" }, h("div", { class: "who", text: "user · turn " + t.iteration }), pre(t.user_input, "msg")),
        h("div", { class: "bubble agent" }, h("div", { class: "who", text: "agent · " + B.secs(t.duration_seconds) + (t.crashed ? " · crashed: " + (t.crash_reason || "") : "") }), pre(t.agent_output || "(no text)", "msg"))];
    })));
  }

  function toolTimeline(turns) {
    var all = [];
    turns.forEach(function (t) { t.commands.forEach(function (c) { all.push({ turn: t.iteration, c: c }); }); });
    if (!all.length) return B.section("Tool timeline", h("p", { class: "muted", text: "No tool calls." }));
    var longest = Math.max.apply(null, all.map(function (x) { return x.c.duration_ms || 0; })) || 1;
    return B.section("Tool timeline", h("ol", { class: "timeline", id: "tools" }, all.map(function (x) {
      var c = x.c, kind = c.status === "success" ? "succeeded" : c.status === "error" ? "failed" : "ungraded";
      return h("li", { class: "tl-item" },
        h("details", {},
          h("summary", {}, h("span", { class: "seq", text: "#" + c.sequence }), " ", B.badge(c.status, kind), " ", h("b", { text: c.tool_name }), " ",
            h("span", { class: "muted", text: summarize(c.parameters) }), " ", B.meter((c.duration_ms || 0) / longest, "time"), " ", h("span", { class: "muted", text: (c.duration_ms || 0).toFixed(0) + " ms · turn " + x.turn + (c.parent_tool_use_id ? " · sub-agent" : "") })),
          h("div", { class: "kv" }, h("div", { class: "label", text: "parameters" }), pre(json(c.parameters))),
          c.result_summary ? h("div", { class: "kv" }, h("div", { class: "label", text: "result" }), pre(c.result_summary)) : null));
    })));
  }
  function summarize(p) {
    if (!p) return "";
    var v = p.command || p.file_path || p.path || p.pattern || p.url || "";
    v = String(v);
    return v.length > 90 ? v.slice(0, 89) + "…" : v;
  }

  function messageTimeline(turns) {
    var items = [];
    turns.forEach(function (t) { t.messages.forEach(function (m) { items.push({ turn: t.iteration, m: m }); }); });
    if (!items.length) return null;
    var maxOut = Math.max.apply(null, items.map(function (x) { return x.m.token_usage ? x.m.token_usage.output_tokens : 0; })) || 1;
    return B.section("Message timeline", h("ol", { class: "timeline", id: "messages" }, items.map(function (x, i) {
      var m = x.m, kind = m.role === "assistant" ? (m.content ? "text" : "tool use") : m.role === "user" ? "prompt" : "residual";
      var content = m.role === "reconciliation" ? "Tokens the turn total reports beyond the per-message counts (no cost of its own)." : (m.content || "(the assistant called a tool; see the tool timeline)");
      return h("li", { class: "tl-item role-" + m.role },
        h("details", {},
          h("summary", {}, h("span", { class: "seq", text: "#" + (i + 1) }), " ", B.badge(m.role, m.role === "assistant" ? "running" : "ungraded"), " ", h("span", { class: "kind", text: kind }), " ",
            h("span", { class: "muted", text: tokens(m.token_usage) }), m.token_usage ? B.meter(m.token_usage.output_tokens / maxOut, "time") : null,
            m.parent_tool_use_id ? h("span", { class: "muted", text: " · sub-agent" }) : null),
          pre(content, "msg")));
    })));
  }

  function gatewayCalls(turns) {
    var calls = [];
    turns.forEach(function (t) { (t.provider_call_costs || []).forEach(function (c) { calls.push({ turn: t.iteration, c: c }); }); });
    if (!calls.length) return null;
    var head = ["#", "Turn", "Protocol", "Model", "Latency", "Input", "Output", "Cache read", "Cost", "HTTP", "Side call", "Error"];
    return B.section("Gateway calls", h("table", { class: "grid", id: "gateway" }, h("thead", {}, h("tr", {}, head.map(function (t) { return h("th", { text: t }); }))),
      h("tbody", {}, calls.map(function (x, i) {
        var c = x.c, u = c.token_usage || {};
        return h("tr", { class: c.status >= 400 || c.error ? "row-failed" : "" },
          h("td", { text: i + 1 }), h("td", { text: x.turn }), h("td", { text: c.protocol }), h("td", { text: c.model || "" }),
          h("td", { class: "num", text: c.latency_ms.toFixed(0) + " ms" }), h("td", { class: "num", text: B.int(u.uncached_input_tokens) }),
          h("td", { class: "num", text: B.int(u.output_tokens) }), h("td", { class: "num", text: B.int(u.cache_read_input_tokens) }),
          h("td", { class: "num", text: B.usd(u.total_cost_usd) }), h("td", { text: c.status }), h("td", { text: c.side_call ? "yes" : "" }), h("td", { class: "err", text: c.error || "" }));
      }))));
  }

  function network(n) {
    if (!n) return null;
    var policy = "network " + n.mode + (n.note ? " (" + n.note + ")" : "") + (n.enforced ? "" : " · not enforced");
    var allowed = n.mode === "allowlist" ? h("p", { class: "muted", text: "allowed: " + (n.allow_hosts.join(", ") || "nothing") }) : null;
    if (!n.events.length) return B.section("Network", h("p", { text: policy }), allowed, h("p", { class: "muted", text: "No egress attempts." }));
    var head = ["#", "Phase", "Destination", "Method", "Verdict", "Why", "Sent", "Received", "Time", "Error"];
    return B.section("Network", h("p", { text: policy }), allowed,
      h("table", { class: "grid", id: "network" }, h("thead", {}, h("tr", {}, head.map(function (t) { return h("th", { text: t }); }))),
        h("tbody", {}, n.events.map(function (e, i) {
          var where = (e.host.indexOf(":") >= 0 ? "[" + e.host + "]" : e.host) + ":" + e.port;
          return h("tr", { class: e.allowed && !e.error ? "" : "row-failed" },
            h("td", { text: i + 1 }), h("td", { text: e.phase }), h("td", { class: "mono", text: where }), h("td", { text: e.method }),
            h("td", {}, B.badge(e.allowed ? "allowed" : "denied", e.allowed ? "succeeded" : "failed")), h("td", { text: e.reason }),
            h("td", { class: "num", text: B.bytes(e.bytes_out) }), h("td", { class: "num", text: B.bytes(e.bytes_in) }),
            h("td", { class: "num", text: e.duration_ms.toFixed(0) + " ms" }), h("td", { class: "err", text: e.error || "" }));
        }))),
      n.dropped_events ? h("p", { class: "muted", text: n.dropped_events + " more attempts not listed" }) : null);
  }

  function commands(list, title) {
    if (!list || !list.length) return null;
    return B.section(title, list.map(function (c) {
      return h("details", { class: "cmd" }, h("summary", {}, h("span", { class: "mono", text: c.command }), " ", B.badge("exit " + c.exit_code, c.exit_code === 0 ? "succeeded" : "failed"), h("span", { class: "muted", text: " " + B.secs(c.duration_seconds) })),
        c.stdout ? pre(c.stdout) : null, c.stderr ? pre(c.stderr, "block err") : null, c.error ? h("p", { class: "error", text: c.error }) : null);
    }));
  }

  function fileBrowser(runId, base, files, title, id) {
    if (!files.length) return B.section(title, h("p", { class: "muted", text: "None." }));
    var viewer = h("div", { class: "viewer" });
    return B.section(title, h("div", { class: "files", id: id }, h("ul", { class: "file-list" }, files.map(function (f) {
      var name = f.path.indexOf(base + "/") === 0 ? f.path.slice(base.length + 1) : f.path;
      return h("li", {},
        h("button", { class: "link preview", title: "preview " + f.path, onclick: function () { preview(runId, f, viewer); } }, name),
        h("span", { class: "muted", text: " " + B.bytes(f.size) + " " }),
        h("a", { href: B.fileUrl(runId, f.path), download: f.path.split("/").pop(), class: "dl", text: "download" }));
    })), viewer));
  }
  function preview(runId, f, viewer) {
    B.clear(viewer).appendChild(h("p", { class: "muted", text: "loading " + f.path + "…" }));
    B.get("runs/" + runId + "/preview/" + f.path).then(function (p) {
      B.clear(viewer).appendChild(h("div", { class: "viewer-head" }, h("span", { class: "mono", text: p.path }), h("span", { class: "muted", text: " " + B.bytes(p.size) + (p.truncated ? " · first 256 KB" : "") })));
      viewer.appendChild(p.binary ? h("p", { class: "muted", text: "Binary file: use download." }) : pre(p.text, "block preview-text"));
    }).catch(function (e) { B.clear(viewer).appendChild(h("p", { class: "error", text: String(e.message || e) })); });
  }

  // Another unit of the same task (other replicates and arms of this run, this replicate in other runs).
  function comparePicker(p) {
    var others = p.compare_with || [];
    if (!others.length) return null;
    var pick = h("select", { id: "compare-unit", "aria-label": "unit to compare with" }, others.map(function (u, i) {
      return h("option", { value: String(i), text: (u.run_id === p.run_id ? "" : u.run_id + " · ") + u.variant_id + " #" + u.replicate_index + " (" + u.status + ")" });
    }));
    var go = function () { var u = others[Number(pick.value)]; location.hash = B.diffLink(p.run_id, p.path, u.run_id, u.path); };
    return h("div", { class: "filters", id: "compare-trajectory" }, "Compare this trajectory with ", pick, h("button", { text: "Diff", onclick: go }));
  }

  B.renderTask = function (app, m, token) {
    var runId = m[0], rel = m[1];
    return B.get("runs/" + runId + "/task/" + rel).then(function (p) {
      if (B.stale(token)) return;
      var r = p.result, u = r.total_token_usage;
      app.appendChild(h("p", { class: "crumbs" }, h("a", { href: B.link(["runs", p.run_id]), text: "← run " + p.run_id })));
      app.appendChild(h("h1", {}, h("span", { class: "mono", id: "task-title", text: r.task_id }), " ", B.statusBadge(r.final_status), " ", h("span", { class: "muted", text: "score " + B.num(r.weighted_score) })));
      if (r.task_description) app.appendChild(h("p", { text: r.task_description }));
      app.appendChild(h("div", { class: "stats" },
        [["Variant", r.variant_id], ["Replicate", String(r.replicate_index)], ["Duration", B.secs(r.duration_seconds)], ["Agent cost", B.usd(r.agent_cost_usd)],
         ["Judge cost", B.usd(r.judge_cost_usd)], ["Tokens", B.int(u.input_tokens + u.output_tokens)], ["Turns", String(r.iteration_count) + " (" + r.total_assistant_turns + " assistant)"],
         ["Tool calls", String(r.command_stats.total_commands)], ["Agent", r.agent_type || "?"], ["Model", r.model_used || "?"]].map(function (kv) {
          return h("div", { class: "stat" }, h("div", { class: "label", text: kv[0] }), h("div", { class: "value small", text: kv[1] }));
        })));
      if (r.tags.length) app.appendChild(h("p", { class: "tags", text: "tags: " + r.tags.join(" ") }));
      B.append(app, comparePicker(p));
      if (r.error_message) app.appendChild(h("div", { class: "card error", id: "task-error" }, h("b", { text: "Error: " }), r.error_message, r.error_details ? pre(r.error_details) : null));
      if (r.early_stop) app.appendChild(h("p", { class: "card warn", text: "Stopped early: " + r.early_stop.reason + (r.early_stop.deciding_criterion_description ? " (" + r.early_stop.deciding_criterion_description + ")" : "") }));
      app.appendChild(criteria(r.success_criteria_results, "Criteria") || B.section("Criteria", h("p", { class: "muted", text: "Not graded." })));
      B.append(app, criteria(r.post_failure_criteria_results, "Post-failure criteria"));
      p.transcripts.forEach(function (t) { app.appendChild(B.section("Judge transcript: " + t.criterion, t.text === null ? h("p", { class: "muted", text: t.path + " is not readable inside this replicate's folder." }) : pre(t.text))); });
      if (r.iterations.length) app.appendChild(dialog(r.iterations));
      app.appendChild(toolTimeline(r.iterations));
      B.append(app, messageTimeline(r.iterations));
      B.append(app, gatewayCalls(r.iterations));
      B.append(app, network(r.network));
      B.append(app, commands(r.pre_run_results, "pre_run commands"));
      B.append(app, commands(r.post_run_results, "post_run commands"));
      app.appendChild(fileBrowser(p.run_id, p.path, p.artifacts, "Artifacts", "artifacts"));
      app.appendChild(fileBrowser(p.run_id, p.path, p.files, "Record files", "record-files"));
      app.appendChild(B.section("task.log" + (p.log_truncated ? " (last 64 KB)" : ""), p.log_tail ? pre(p.log_tail, "block log") : h("p", { class: "muted", text: "No task.log." })));
      app.appendChild(B.section("Configuration", h("details", {}, h("summary", { text: "agent_config, sdk_options, environment, task_config" }),
        pre(json({ agent_config: r.agent_config, sdk_options: r.sdk_options, environment_info: r.environment_info, task_config: r.task_config })))));
    });
  };
})(Board);
