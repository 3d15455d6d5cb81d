"""Markdown and HTML from one :class:`Report` through the Jinja templates in ``templates/``.

HTML templates (``*.html.j2``) are autoescaped: text from agents, traces and run files
can never become markup or script there. Markdown is not HTML, so its templates escape
explicitly: table cells through :func:`md_inline`, transcripts inside code fences that
are longer than any backtick run in the text (:func:`md_fence`).
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from agenttest._resources import templates_dir

from ._cases import block_of, cases_markdown
from ._charts import latency_chart, tier_chart
from ._format import ci, duration, md_fence, md_inline, pct, pvalue, rate_text, ratio, signed
from ._report import Report
from ._viewer import script_json

#: the attempt viewer's script files (templates/), inlined in this order
VIEWER_SCRIPTS = ("viewer_text.js", "viewer.js", "viewer_tables.js")


def _environment(html: bool) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=lambda name: bool(name and name.endswith((".html.j2", ".svg.j2"))),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        pct=pct,
        ci=ci,
        rate=rate_text,
        duration=duration,
        signed=signed,
        pvalue=pvalue,
        ratio=ratio,
        md=md_inline,
        fence=md_fence,
    )
    return env


def _context(report: Report) -> dict[str, Any]:
    from ._evidence import MEANING
    from ._parity import render_parity_markdown
    from ._ttft import render_ttft_markdown

    failing = [b for b in report.blocks if b.failing]
    return {
        "r": report,
        "h": report.header,
        "tier_chart": tier_chart(report),
        "latency_chart": latency_chart(report),
        "failing_blocks": failing,
        "ttft_md": render_ttft_markdown(report.ttft),
        "parity_md": render_parity_markdown(report.parity),
        "cases_md": cases_markdown(report.cases) if report.cases else "",
        "evidence_meaning": MEANING,
    }


def _viewer_context(report: Report) -> dict[str, Any]:
    """The viewer's script, its data and the CSP that lets exactly that script run."""
    from markupsafe import Markup

    # the viewer's files in order, one script under one hash
    script = "\n".join(
        (templates_dir() / name).read_text(encoding="utf-8") for name in VIEWER_SCRIPTS
    )
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    data = report.viewer
    raters = sorted({a["rater"] for a in data["attempts"]}) if data else []
    return {
        "viewer": data is not None,
        # safe: script_json escapes every character that could end the script element
        "viewer_json": Markup(script_json(data)) if data else "",
        "viewer_js": Markup(script) if data else "",
        "viewer_raters": raters,
        "script_src": f"'sha256-{digest}'" if data else "'none'",
    }


def render_markdown(report: Report) -> str:
    return str(_environment(False).get_template("report.md.j2").render(_context(report)))


def render_summary(report: Report) -> str:
    """A short GitHub-flavoured Markdown summary, sized for a pull-request comment."""
    failing = [b for b in report.blocks if b.rule_passed is False]
    failing_blocks: dict[str, set[str]] = {}  # a parameterised block fails once, as in `Blocks`
    for b in failing:
        failing_blocks.setdefault(b.tier, set()).add(block_of(b.test_id))
    by_tier = {tier: len(ids) for tier, ids in failing_blocks.items()}
    context = {**_context(report), "failing": failing, "failing_by_tier": by_tier}
    return str(_environment(False).get_template("report_summary.md.j2").render(context))


#: nav labels for the longer headings (any other section is listed by its heading)
SHORT_LABELS = {
    "attempts": "Attempts",
    "latency": "Latency",
    "owasp": "OWASP",
    "critical": "Critical",
    "failing": "Failing",
    "integrity": "Integrity",
    "raters": "Raters",
    "calibration": "Calibration",
    "regression": "Regression",
    "checklist": "Checklist",
    "trust": "Strict checks",
    "ttft": "First text",
    "usage": "Tokens",
    "evidence": "Evidence",
    "parity": "Parity",
    "cases": "Cases",
    "awaiting": "Awaiting",
}
_HEADING = re.compile(r'<h2 id="([^"<>]+)">(.*?)</h2>', re.S)
_CONTENTS = "<!--agenttest:contents-->"


def contents(page: str) -> str:
    """The report's navigation: one link per section heading of the rendered page, in order.

    Read from the page itself, so a section added to a template (or left out because it has
    nothing to show) is listed or not without a second list to keep in step. Headings come
    from the templates, where agent text is escaped, so no ``<h2`` can come from an agent.
    """
    links = []
    for anchor, heading in _HEADING.findall(page):
        label = SHORT_LABELS.get(anchor) or re.sub(r"<[^>]*>", "", heading).strip()
        links.append(f'<a href="#{anchor}">{label}</a>')
    return '<nav class="contents" aria-label="Report sections">' + "".join(links) + "</nav>"


def render_html(report: Report) -> str:
    context = {**_context(report), **_viewer_context(report)}
    page = str(_environment(True).get_template("report.html.j2").render(context))
    return page.replace(_CONTENTS, contents(page), 1)
