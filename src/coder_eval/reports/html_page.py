"""The building blocks every HTML page shares: escaping, the page shell, table cells, and the
network section of a task page.

Every string that came from a task, an agent or a judge goes through `escape`."""

from __future__ import annotations

import html
from collections.abc import Iterable

from coder_eval.common.untrusted_text import clean_text
from coder_eval.models.results import EvaluationResult

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem;color:#1f2328}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0;width:100%}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}table.sortable th{cursor:pointer}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;border-radius:1rem;padding:0 .6rem;font-size:.85em;font-weight:600}
.cat-succeeded{background:#dafbe1;color:#116329}.cat-failed{background:#ffebe9;color:#a40e26}
.cat-error{background:#fff1c2;color:#7d4e00}.cat-ungraded{background:#eaeef2;color:#57606a}
.early{background:#ddf4ff;color:#0a3069}
.chips span{margin-right:1rem}
tr.outcome-fail td{background:#fff5f5}tr.outcome-info td,tr.outcome-skipped td{color:#57606a}
details{border:1px solid #d0d7de;border-radius:6px;margin:.5rem 0;padding:.3rem .6rem}
summary{cursor:pointer}
pre{background:#f6f8fa;padding:.5rem;white-space:pre-wrap;word-break:break-word}
.note{color:#57606a}
"""

SORT_SCRIPT = """
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var body = th.closest("table").tBodies[0], col = th.cellIndex;
    var asc = th.dataset.dir !== "asc";
    th.dataset.dir = asc ? "asc" : "desc";
    var key = function (row) { var c = row.cells[col]; return c.dataset.v || c.textContent; };
    Array.from(body.rows).sort(function (a, b) {
      var x = key(a), y = key(b), nx = parseFloat(x), ny = parseFloat(y);
      var cmp = !isNaN(nx) && !isNaN(ny) ? nx - ny : x.localeCompare(y);
      return asc ? cmp : -cmp;
    }).forEach(function (row) { body.appendChild(row); });
  });
});
"""


def escape(text: str) -> str:
    """HTML-escaped, with escape sequences, control characters and bidi overrides taken out first
    (see common/untrusted_text.py): a browser would show them, reordering or hiding text."""
    return html.escape(clean_text(text))


def page(title: str, body: Iterable[str]) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + f"\n<script>{SORT_SCRIPT}</script>\n</body>\n</html>\n"
    )


def cell(value: object, *, numeric: bool = False, sort_key: float | None = None) -> str:
    attrs = ' class="num"' if numeric else ""
    if sort_key is not None:
        attrs += f' data-v="{sort_key}"'
    return f"<td{attrs}>{escape(str(value))}</td>"


def header_row(*labels: str) -> str:
    return "<thead><tr>" + "".join(f"<th>{escape(label)}</th>" for label in labels) + "</tr></thead>"


def network_table(result: EvaluationResult) -> str:
    """The unit's network policy and each egress attempt (host, verdict, bytes, time)."""
    network = result.network
    if network is None:
        return ""
    policy = f"network {network.mode}" + (f" ({network.note})" if network.note else "")
    policy += "" if network.enforced else " · not enforced"
    if network.mode == "allowlist":
        policy += f"; allowed: {', '.join(network.allow_hosts) or 'nothing'}"
    if not network.events:
        return f"<h3>Network</h3><p>{escape(policy)}; no egress attempts</p>"
    rows = [
        "<tr>"
        + cell(e.phase)
        + cell(e.target())
        + cell(e.method)
        + cell("allowed" if e.allowed else "denied")
        + cell(e.reason)
        + cell(e.bytes_out, numeric=True)
        + cell(e.bytes_in, numeric=True)
        + cell(f"{e.duration_ms:.0f} ms", numeric=True)
        + cell(e.error or "")
        + "</tr>"
        for e in network.events
    ]
    labels = ("Phase", "Destination", "Method", "Verdict", "Why", "Sent (bytes)", "Received", "Time", "Error")
    header = header_row(*labels)
    more = f"<p>{network.dropped_events} more attempts not listed</p>" if network.dropped_events else ""
    return f"<h3>Network</h3><p>{escape(policy)}</p><table>{header}<tbody>{''.join(rows)}</tbody></table>{more}"
