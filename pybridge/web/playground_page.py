"""The playground's page: the ruling page's document with the playground's own script and styles
(``web/assets/``) added, and allowed to talk to the server that served it."""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from pybridge.report.page.html import asset, content_policy, document

ASSETS = ("playground.css", "playground.js", "starter.yaml")


@cache
def playground_asset(name: str) -> str:
    if name not in ASSETS:
        raise KeyError(name)
    return resources.files("pybridge.web").joinpath("assets", name).read_text(encoding="utf-8")


def render_playground(start: dict[str, Any]) -> tuple[str, str]:
    """The playground's page and its Content-Security-Policy (sent as a header too).
    ``start`` holds the first text, its judgement and the choices (:mod:`pybridge.web.serve`)."""
    styles = [asset("page.css"), playground_asset("playground.css")]
    scripts = [asset("page.js"), playground_asset("playground.js")]
    page = document("ccg-judge playground", {"mode": "playground", **start}, styles, scripts, connect=True)
    return page, content_policy(scripts, styles, connect=True)
