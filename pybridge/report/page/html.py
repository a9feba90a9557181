"""The page as one self-contained HTML file: styles and scripts inline, the page data as a
JSON block, nothing fetched from anywhere.

The template holds no data: every text of the situation and the report reaches the browser
inside the JSON block (escaped so it cannot close the block) and is put on the page by the
script with ``textContent``. A Content-Security-Policy allows exactly the inline script and
style shipped here (by hash) and no network, so even a mistake could not load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from functools import cache
from importlib import resources
from typing import Any

ASSETS = ("page.css", "page.js")


@cache
def asset(name: str) -> str:
    if name not in ASSETS:
        raise KeyError(name)
    return resources.files("pybridge.report.page").joinpath("assets", name).read_text(encoding="utf-8")


def json_block(value: Any) -> str:
    """JSON that is inert inside a ``<script type="application/json">`` element: no ``<``,
    ``>`` or ``&`` survives, so no text can end the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_policy(scripts: list[str], styles: list[str], *, connect: bool) -> str:
    """The page's Content-Security-Policy: its own inline code only; no network unless
    ``connect`` (the playground talks to the server that served it, and to nothing else)."""
    return "; ".join([
        "default-src 'none'",
        "script-src " + " ".join(_digest(s) for s in scripts),
        "style-src " + " ".join(_digest(s) for s in styles),
        "img-src data:",
        "connect-src 'self'" if connect else "connect-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def _title(data: dict[str, Any]) -> str:
    return f"{data['game']['title']}: ruling as seen by {data['viewpoint']}"


def render_page(data: dict[str, Any]) -> str:
    """The ruling page for ``data`` (:func:`pybridge.report.page.model.page_data`)."""
    return document(_title(data), {"mode": "page", "data": data}, [asset("page.css")], [asset("page.js")],
                    connect=False)


def render_whatif(answer: dict[str, Any]) -> str:
    """The page of a whatif answer: each alternative's edits and its edited situation's ruling page
    (:func:`pybridge.report.page.whatif.whatif_page`)."""
    title = f"ccg-judge whatif: {answer['action']} as seen by {answer['player']}"
    return document(title, {"mode": "whatif", "data": answer}, [asset("page.css")], [asset("page.js")],
                    connect=False)


def document(title: str, payload: dict[str, Any], style_text: list[str], script_text: list[str], *,
             connect: bool) -> str:
    """The HTML file: ``payload`` as the JSON block, the given styles and scripts inline (the page's,
    :func:`asset`, first; the playground adds its own, :mod:`pybridge.web.playground_page`)."""
    policy = content_policy(script_text, style_text, connect=connect)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="generator" content="ccg-judge">',
        f"<title>{html.escape(title)}</title>",
        *(f"<style>{s}</style>" for s in style_text),
        "</head>",
        "<body>",
        '<noscript><p class="noscript">This page draws the situation and its verdicts with a script; '
        "allow scripts for this file to see it.</p></noscript>",
        '<div id="ccg-root"></div>',
        f'<script type="application/json" id="ccg-data">{json_block(payload)}</script>',
        *(f"<script>{s}</script>" for s in script_text),
        "</body>",
        "</html>",
    ]
    return "\n".join(parts) + "\n"
