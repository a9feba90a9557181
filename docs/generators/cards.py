"""The card catalogue: a page per card file of each game (its `cards` file and every file under
`sets/`, as the catalogue loader reads them), each card with its properties, its features as the
rules read them, its paraphrased text, what is not modelled and why, and the ruling files that use it."""

from __future__ import annotations

import json
from pathlib import Path

from .common import GAMES_ROOT, ROOT, cell, games, note, read_yaml

RULINGS = ROOT / "tests" / "rulings"
EXAMPLES = ROOT / "examples"


def card_files(game: str) -> list[Path]:
    """The files of a game's catalogue, in the order the product reads them."""
    data = read_yaml(GAMES_ROOT / game / "game.yaml")
    return [GAMES_ROOT / game / data["cards"], *sorted((GAMES_ROOT / game / "sets").glob("*.yaml"))]


def users_of_cards() -> dict[tuple[str, str], list[Path]]:
    """(game, card name) -> the ruling files and examples whose situation names that card."""
    users: dict[tuple[str, str], list[Path]] = {}
    for path in sorted([*RULINGS.rglob("*.yaml"), *EXAMPLES.rglob("*.yaml")]):
        data = read_yaml(path)
        if not isinstance(data, dict):
            continue
        for card in data.get("cards") or []:
            if isinstance(card, dict) and isinstance(card.get("card"), str):
                found = users.setdefault((data.get("game"), card["card"]), [])
                if path not in found:
                    found.append(path)
    return users


def page_name(path: Path, game: str) -> str:
    return f"cards/{game}-{path.stem}.md"


def inline(value) -> str:
    """A feature or property value as compact JSON, as a situation would write it."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def card_section(card: dict, position: int, used_by: list[Path]) -> list[str]:
    number = f" (no. {card['number']})" if card.get("number") is not None else ""
    lines = [f"### {card['name']}{number} {{ #{heading_anchor(position)} }}", ""]
    properties = card.get("properties") or {}
    if properties:
        lines.append("**Properties:** " + ", ".join(f"{key} `{inline(value)}`" for key, value in properties.items())
                     + "  ")
    features = card.get("features") or []
    lines.append("**Features:** " + (", ".join(f"`{inline(feature)}`" for feature in features) or "none") + "  ")
    for key in ("protections", "markers", "chips"):
        if card.get(key):
            lines.append(f"**{key.capitalize()}:** `{inline(card[key])}`  ")
    if card.get("text"):
        lines.append(f"**Text (paraphrased):** {' '.join(str(card['text']).split())}  ")
    unmodelled = card.get("unmodelled") or []
    if unmodelled:
        lines.append("**Not modelled:** " + "; ".join(
            f"`{item.get('feature', '?')}`: {item.get('reason', '')}" if isinstance(item, dict) else str(item)
            for item in unmodelled) + "  ")
    if used_by:
        links = ", ".join(f"`{path.relative_to(ROOT).as_posix()}`" for path in used_by)
        lines.append(f"**Used by {len(used_by)} ruling file{'s' if len(used_by) > 1 else ''} or example"
                     f"{'s' if len(used_by) > 1 else ''}:** {links}  ")
    else:
        lines.append("**Used by:** no ruling file yet  ")
    if card.get("sources"):
        lines.append(f"**Source:** {' '.join(str(card['sources']).split())}")
    return lines + [""]


def set_page(game: str, path: Path, users: dict) -> str:
    data = read_yaml(path)
    cards_ = data.get("cards") or []
    title = f"set {data['set']}" if data.get("set") else "cards of the rules' examples"
    relative = path.relative_to(ROOT).as_posix()
    modelled = sum(1 for card in cards_ if not card.get("unmodelled"))
    used = sum(1 for card in cards_ if users.get((game, card["name"])))
    parts = [f"# {game_title(game)}: {title}", "", note(f"`{relative}`"), "",
             f"{len(cards_)} cards; {modelled} with every part of their text modelled, {len(cards_) - modelled} "
             f"with parts not modelled (listed under each card, with the reason); {used} used by a ruling "
             "file or example. A situation names a card by its `card:` name.", "",
             "| no. | card | type | not modelled |", "|---:|---|---|---:|"]
    for position, card in enumerate(cards_, 1):
        parts.append(f"| {card.get('number', '')} | [{cell(card['name'])}](#{heading_anchor(position)}) | "
                     f"{cell((card.get('properties') or {}).get('type', ''))} | {len(card.get('unmodelled') or [])} |")
    parts += ["", "## Cards", ""]
    for position, card in enumerate(cards_, 1):
        parts += card_section(card, position, users.get((game, card["name"]), []))
    return "\n".join(parts).rstrip() + "\n"


def heading_anchor(position: int) -> str:
    """A card's heading id: its place in the file (names are Cyrillic and may repeat across files)."""
    return f"card-{position}"


def game_title(game: str) -> str:
    return read_yaml(GAMES_ROOT / game / "game.yaml").get("title", game)


def pages() -> dict[str, str]:
    users = users_of_cards()
    out = {}
    index = ["# The card catalogue", "", note("each game's card files"), "",
             "Cards are data: each is a set of properties and features (the words of its game's "
             "vocabulary), with an English paraphrase of its text and its source; texts are never copied. "
             "A part of a card's text the rules base cannot express yet is listed under the card as not "
             "modelled, with the reason, rather than dropped.", "", "| game | file | cards |", "|---|---|---:|"]
    for game in games():
        for path in card_files(game):
            name = page_name(path, game)
            out[name] = set_page(game, path, users)
            count = len(read_yaml(path).get("cards") or [])
            index.append(f"| {game_title(game)} | [`{path.relative_to(ROOT).as_posix()}`]"
                         f"({name.removeprefix('cards/')}) | {count} |")
    out["cards/index.md"] = "\n".join(index) + "\n"
    return out
