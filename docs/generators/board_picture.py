"""The picture of a Berserk board's coordinates for the getting-started page, drawn from the game's
`board:` in game.yaml and the cards of the page's shipped example.

Each player counts their own half: `column` from their own left, `row` from the centre line (row 1
is the front row). Seen from the first player's side, the second player's columns run the other
way (asp/berserk/board.lp: x = columns + 1 - column)."""

from __future__ import annotations

from html import escape

from .common import GAMES_ROOT, ROOT, read_yaml
from .commands import GETTING_STARTED

CELL = 96  # pixels a side
MARGIN = 40


def card_places(situation: dict) -> dict[tuple[str, int, int], str]:
    """(side, column, row) -> the ids of the example's cards in that cell."""
    places: dict[tuple[str, int, int], str] = {}
    for card in situation.get("cards", []):
        where = card.get("cell")
        if where:
            side = where.get("side") or card["controller"]
            places[(side, where["column"], where["row"])] = card["id"]
    return places


def cell_svg(x: int, y: int, label: str, card_id: str | None, front: bool, near: bool) -> list[str]:
    fill = "#fff3c4" if front else ("#e8f0fe" if near else "#fde8e8")
    left, top = MARGIN + x * CELL, MARGIN + y * CELL
    parts = [f'<rect x="{left}" y="{top}" width="{CELL}" height="{CELL}" fill="{fill}" stroke="#555"/>',
             f'<text x="{left + 6}" y="{top + 18}" font-size="14" fill="#333">{escape(label)}</text>']
    if card_id:
        parts.append(f'<rect x="{left + 12}" y="{top + 30}" width="{CELL - 24}" height="{CELL - 42}" rx="6" '
                     f'fill="{"#4a7bd0" if near else "#c0504d"}"/>')
        parts.append(f'<text x="{left + CELL // 2}" y="{top + 68}" font-size="15" fill="#fff" '
                     f'text-anchor="middle">{escape(card_id)}</text>')
    return parts


def pages() -> dict[str, str]:
    board = read_yaml(GAMES_ROOT / "berserk" / "game.yaml")["board"]
    columns, rows = board["columns"], board["rows_per_side"]
    situation = read_yaml(ROOT / GETTING_STARTED)
    near, far = [player["id"] for player in situation["players"]][:2]  # the viewpoint's side is drawn below
    if situation["viewpoint"] != near:
        near, far = far, near
    places = card_places(situation)
    width, height = 2 * MARGIN + columns * CELL, 2 * MARGIN + 2 * rows * CELL
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
             f'<rect width="{width}" height="{height}" fill="#fff"/>',
             f'<text x="{width // 2}" y="{MARGIN - 14}" font-size="15" text-anchor="middle">'
             f'{escape(far)}: column.row from {escape(far)}\'s own left</text>',
             f'<text x="{width // 2}" y="{height - 12}" font-size="15" text-anchor="middle">'
             f'{escape(near)} (viewpoint): column.row from {escape(near)}\'s own left</text>']
    for row in range(1, rows + 1):
        for column in range(1, columns + 1):
            # The viewpoint's half: row 1 just below the centre line, columns from its left.
            parts += cell_svg(column - 1, rows + row - 1, f"{column}.{row}", places.get((near, column, row)),
                              row == 1, True)
            # The other half, seen from across the table: its row 1 just above the centre line, its
            # column 1 on the viewer's right.
            parts += cell_svg(columns - column, rows - row, f"{column}.{row}", places.get((far, column, row)),
                              row == 1, False)
    centre = MARGIN + rows * CELL
    parts.append(f'<line x1="{MARGIN - 10}" y1="{centre}" x2="{width - MARGIN + 10}" y2="{centre}" '
                 f'stroke="#000" stroke-width="4"/>')
    parts.append(f'<text x="{MARGIN - 6}" y="{centre - 6}" font-size="12" text-anchor="end" '
                 f'transform="rotate(-90 {MARGIN - 6} {centre - 6})">centre line</text>')
    parts.append("</svg>")
    return {"images/board-coordinates.svg": "\n".join(parts) + "\n"}
