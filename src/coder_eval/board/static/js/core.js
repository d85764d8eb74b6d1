/* Board core: safe DOM building, formatting, the data source (server API or exported files), routing.
 * Nothing here turns data into HTML: every value reaches the page as a text node or an attribute. */
"use strict";
var Board = (function () {
  var B = {};
  B.mode = "server";
  B.timers = [];

  // ---- DOM -------------------------------------------------------------------------------------
  B.h = function (tag, attrs) {
    var el = document.createElement(tag);
    attrs = attrs || {};
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === null || v === undefined || v === false) return;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = B.clean(v);
      else if (k.slice(0, 2) === "on") el.addEventListener(k.slice(2), v);
      else if (k === "href") el.setAttribute("href", B.safeHref(v));
      else if (k === "width") el.style.width = v;
      else el.setAttribute(k, v === true ? "" : B.clean(v));
    });
    for (var i = 2; i < arguments.length; i++) B.append(el, arguments[i]);
    return el;
  };
  B.append = function (el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { child.forEach(function (c) { B.append(el, c); }); return; }
    if (typeof child === "string" || typeof child === "number") child = document.createTextNode(B.clean(child));
    el.appendChild(child);
  };
  // Text nodes never run markup, but agent text may still hold escape sequences, control
  // characters and invisible or direction-changing characters (a U+202E reorders what follows).
  // Escape sequences and controls go, CR becomes a newline, the invisible ones show as <U+XXXX>:
  // the same rules as the terminal and Markdown (common/untrusted_text.py).
  var UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/;
  var ESCAPES = /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c\n]*(?:\u0007|\u001b\\|\u009c)?|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;
  var BREAKS = /\r\n|[\r\u0085\u2028\u2029]/g;
  var CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
  var INVISIBLE = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
  B.clean = function (v) {
    var s = String(v);
    if (!UNSAFE.test(s)) return s;
    return s.replace(ESCAPES, "").replace(BREAKS, "\n").replace(CONTROLS, "").replace(INVISIBLE, function (c) {
      return "<U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") + ">";
    });
  };

  // Links are built by the board itself; anything else (javascript:, data:, other hosts) is dropped.
  B.safeHref = function (v) {
    v = String(v);
    if (/^(#\/|\/files\/|\/download\/|files\/|\/runs\/)/.test(v) || v === "#/") return v;
    return "#/";
  };
  B.clear = function (el) { while (el.firstChild) el.removeChild(el.firstChild); return el; };
  B.section = function (title) {
    var body = Array.prototype.slice.call(arguments, 1);
    return B.h("section", { class: "card" }, B.h("h2", { text: title }), body);
  };

  // ---- formatting ------------------------------------------------------------------------------
  B.pct = function (x) { return x === null || x === undefined ? "n/a" : (x * 100).toFixed(1) + "%"; };
  B.num = function (x, d) { return x === null || x === undefined ? "–" : Number(x).toFixed(d === undefined ? 3 : d); };
  B.usd = function (x) {
    if (x === null || x === undefined) return "unpriced";
    return "$" + (Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4));
  };
  B.secs = function (x) {
    if (x === null || x === undefined) return "–";
    if (x < 60) return x.toFixed(1) + "s";
    var m = Math.floor(x / 60), s = Math.round(x % 60);
    return m < 60 ? m + "m " + s + "s" : Math.floor(m / 60) + "h " + (m % 60) + "m";
  };
  B.int = function (x) { return x === null || x === undefined ? "–" : Number(x).toLocaleString("en-US"); };
  B.signed = function (x, f) { if (x === null || x === undefined) return "–"; return (x > 0 ? "+" : x < 0 ? "−" : "±") + f(Math.abs(x)); };
  B.when = function (iso) { if (!iso) return "–"; var d = new Date(iso); return isNaN(d) ? iso : d.toISOString().replace("T", " ").slice(0, 19) + "Z"; };
  B.bytes = function (n) { return n < 1024 ? n + " B" : n < 1048576 ? (n / 1024).toFixed(1) + " KB" : (n / 1048576).toFixed(1) + " MB"; };
  B.categoryOf = function (status) {
    return { SUCCESS: "succeeded", ERROR: "error", BUILD_FAILED: "error", NOT_GRADED: "ungraded" }[status] || "failed";
  };
  B.badge = function (text, kind) { return B.h("span", { class: "badge b-" + (kind || "x"), text: text }); };
  B.statusBadge = function (status) { return B.badge(status, B.categoryOf(status)); };
  B.enc = function (s) { return String(s).split("/").map(encodeURIComponent).join("/"); };

  // ---- data ------------------------------------------------------------------------------------
  var store = {}, waiting = {};
  // Exported data files call Board.put(key, payload) when their script tag loads.
  B.put = function (key, value) {
    store[key] = value;
    (waiting[key] || []).forEach(function (w) { w.resolve(value); });
    delete waiting[key];
  };
  // Two FNV-1a hashes of the key's UTF-8 bytes: the exporter names data files the same way.
  B.keyHash = function (key) {
    var bytes = new TextEncoder().encode(key), out = "";
    [0x811c9dc5, 0x5bd1e995].forEach(function (seed) {
      var h = seed >>> 0;
      for (var i = 0; i < bytes.length; i++) { h ^= bytes[i]; h = Math.imul(h, 0x01000193) >>> 0; }
      out += ("00000000" + h.toString(16)).slice(-8);
    });
    return out;
  };
  function loadStatic(key) {
    if (key in store) return Promise.resolve(store[key]);
    return new Promise(function (resolve, reject) {
      var first = !waiting[key];
      (waiting[key] = waiting[key] || []).push({ resolve: resolve, reject: reject });
      if (!first) return;
      var s = document.createElement("script");
      s.src = "data/" + B.keyHash(key) + ".js";
      s.onerror = function () {
        (waiting[key] || []).forEach(function (w) { w.reject(new Error("not in this export: " + key)); });
        delete waiting[key];
      };
      document.head.appendChild(s);
    });
  }
  B.get = function (key, params) {
    params = params || {};
    if (B.mode === "static") {
      var m = /^runs\/([^/]+)\/rows$/.exec(key);
      return loadStatic(key).then(function (v) {
        if (!m || params.offset === undefined) return v;
        var off = Number(params.offset) || 0, end = params.limit === undefined ? undefined : off + Number(params.limit);
        return { run_id: v.run_id, total: v.total, offset: off, rows: v.rows.slice(off, end) };
      });
    }
    var qs = Object.keys(params).map(function (k) { return encodeURIComponent(k) + "=" + encodeURIComponent(params[k]); }).join("&");
    return fetch("/api/" + B.enc(key) + (qs ? "?" + qs : ""), { cache: "no-store" }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body && body.error ? body.error : "HTTP " + r.status);
        return body;
      });
    });
  };
  B.fileUrl = function (runId, rel) {
    return (B.mode === "static" ? "files/" : "/files/") + encodeURIComponent(runId) + "/" + B.enc(rel);
  };
  B.zipUrl = function (runId) {
    return B.mode === "static" ? "files/" + encodeURIComponent(runId) + ".zip" : "/download/" + encodeURIComponent(runId) + ".zip";
  };

  // ---- routing ---------------------------------------------------------------------------------
  B.routes = [];
  B.route = function (pattern, render) { B.routes.push({ re: pattern, render: render }); };
  B.link = function (parts) { return "#/" + parts.map(function (p) { return B.enc(p); }).join("/"); };
  B.taskLink = function (run, path) { return B.link(["runs", run, "task"].concat(path.split("/"))); };
  // Between the two units of a diff address: no variant, task or row id can be "~" (models/base.py).
  B.DIFF_SEPARATOR = "~";
  B.diffLink = function (runA, pathA, runB, pathB) {
    return B.link(["diff", runA].concat(pathA.split("/"), [B.DIFF_SEPARATOR, runB], pathB.split("/")));
  };
  B.every = function (ms, fn) { B.timers.push(setInterval(fn, ms)); };
  B.navigate = function () {
    B.timers.forEach(clearInterval); B.timers = [];
    var hash = location.hash.replace(/^#\/?/, "");
    var path = hash.split("?")[0].split("/").map(function (p) { try { return decodeURIComponent(p); } catch (e) { return p; } });
    var app = B.clear(document.getElementById("app"));
    var token = {};
    B.current = token;
    for (var i = 0; i < B.routes.length; i++) {
      var r = B.routes[i], m = r.re(path);
      if (m) {
        Promise.resolve().then(function () { return r.render(app, m, token); }).catch(function (e) {
          if (B.current !== token) return;
          B.clear(app).appendChild(B.h("div", { class: "card error" }, B.h("h2", { text: "Could not load this page" }), B.h("p", { text: String(e.message || e) })));
        });
        return;
      }
    }
    app.appendChild(B.h("p", { class: "error", text: "No page here." }));
  };
  B.stale = function (token) { return B.current !== token; };
  return B;
})();
