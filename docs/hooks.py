"""MkDocs hooks of the documentation site (mkdocs.yml: hooks).

- A nav entry that names a folder ("commands/") becomes that folder's index page followed by its
  other pages in name order, so a generated page (a new command, a new card set) joins the nav
  without an edit of mkdocs.yml.
- On a rules page, mkdoclingo renders a clause banner (`% --- 532.6 ---`) as a line of text inside
  the comment around it; it becomes a heading with the clause's id and catalogue heading, which the
  clause index and the options page link to.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generators package beside this file

from generators.rules import FOLDERS as FOLDER_TITLES, clause_anchor, headings  # noqa: E402

# A banner as mkdoclingo's Markdown leaves it: the dashes, the id, more dashes, on a line of its own
# at the start, inside or at the end of a paragraph (the comment's other lines around it).
RENDERED_BANNER = re.compile(r"(<p>)?[ \t]*-{3} ([^\s<-][^<\n]*?) -{3,}[ \t]*(\n|</p>)")
# A comment's ruler line (% ====...), which a file's opening comment uses as a frame.
RULER = re.compile(r"={10,}")
_headings: dict[str, str] = {}


def on_config(config, **_):
    config["nav"] = expand_folders(config["nav"], Path(config["docs_dir"]))
    _headings.update(headings())
    return config


def expand_folders(nav, docs_dir: Path):
    expanded = []
    for entry in nav:
        if isinstance(entry, dict):
            (title, value), = entry.items()
            if isinstance(value, str) and value.endswith("/"):
                value = folder_pages(docs_dir / value, docs_dir)
            elif isinstance(value, list):
                value = expand_folders(value, docs_dir)
            expanded.append({title: value})
        else:
            expanded.append(entry)
    return expanded


def folder_pages(folder: Path, docs_dir: Path) -> list:
    """A folder's index.md first, then its other pages by name, then a section per sub-folder."""
    index = folder / "index.md"
    entries: list = [index.relative_to(docs_dir).as_posix()] if index.exists() else []
    entries += sorted(p.relative_to(docs_dir).as_posix() for p in folder.glob("*.md") if p.name != "index.md")
    for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
        entries.append({FOLDER_TITLES.get(sub.name, sub.name): folder_pages(sub, docs_dir)})
    return entries


def on_page_content(content: str, page, **_):
    if not page.file.src_uri.startswith("rules/") or page.file.src_uri == "rules/index.md":
        return content
    return RENDERED_BANNER.sub(banner_heading, RULER.sub("", content))


def banner_heading(match: re.Match) -> str:
    opens_paragraph, clause_id, ends_paragraph = match.group(1), html.unescape(match.group(2)), match.group(3) == "</p>"
    title = _headings.get(clause_id, "")
    shown = html.escape(clause_id) + (f" — {html.escape(title)}" if title else "")
    heading = (f'<h4 id="{clause_anchor(clause_id)}" class="clause-banner">{shown}'
               f'<a class="headerlink" href="#{clause_anchor(clause_id)}">¶</a></h4>')
    # Close the paragraph the banner was inside, and reopen one for the lines after it.
    return ("" if opens_paragraph else "</p>") + heading + ("" if ends_paragraph else "<p>")
