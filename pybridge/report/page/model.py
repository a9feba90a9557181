"""What a ruling page shows, as one plain dict: the adapter between the judge's results and the page.

The page (its HTML template and scripts) reads nothing but the dict made here, and the dict
is made from nothing but the situation *as the viewpoint player sees it* (the projection of
:mod:`pybridge.input.viewpoint`, the same one the solver's facts come from), the report computed
from it, and the game's own data files (board size, clause catalogue, action roles). So a
page cannot show what its player may not know: an opponent's hidden card is already an
unknown card, with a neutral id and no name, before anything here sees it.

Only :func:`verdict_tree` knows how a verdict's justification is stored in the report (its
shared graph of nodes); it turns it into nested nodes ``{text, atom, clause, kind, rule,
children}`` for the page.
"""

from __future__ import annotations

import re
from typing import Any

from pybridge.game.catalogue import Game
from pybridge.input.situation import RESERVED_PREFIX, Card, Situation, resolved_card
from pybridge.input.viewpoint import is_unknown_to
from pybridge.report.render import effect_said, phrase, say_term, to_data
from pybridge.why.justify import Report, Verdict

PAGE_SCHEMA = "ccg-judge/page"
PAGE_VERSION = 1
# The argument role (game.yaml `actions:`) of the card that acts; every other card role is a target.
_ACTOR_ROLES = frozenset({"actor"})


class UnprojectedSituation(ValueError):
    """A page was asked for a situation that still holds cards its viewer may not know."""


def page_data(viewed: Situation, report: Report, game: Game, *, trees: bool = True,
              selected: int | None = None) -> dict[str, Any]:
    """The page for ``report``, asked from ``viewed`` — a situation already projected onto
    its viewpoint (:func:`pybridge.input.viewpoint.project`).

    ``trees=False`` leaves each verdict's justification out (``tree: None``): the playground
    fetches one when it is opened. ``selected`` is the index of the verdict opened at first."""
    _require_projected(viewed, game)
    cards = [_card(c, viewed, game) for c in viewed.cards]
    known = {c["id"] for c in cards}
    if trees and not report.trees:
        raise ValueError("a page with trees needs a report made with trees (api.check(..., trees=True))")
    verdicts = [_verdict(i, v, report, game, known, trees) for i, v in enumerate(report.verdicts)]
    cited = sorted({c for v in verdicts for c in v["cites"]} | _tree_clauses(verdicts))
    return {
        "schema": PAGE_SCHEMA,
        "version": PAGE_VERSION,
        "game": {"name": game.name, "title": game.title},
        "edition": {"id": report.edition, "text": game.editions.get(report.edition, "")},
        "options": [{"name": name, "value": value,
                     "meaning": game.options[name].values.get(value, "") if name in game.options else ""}
                    for name, value in report.options.items()],
        "viewpoint": report.viewpoint,
        # the game's own words for a card's state (phrases.yaml values: state)
        "words": {"open": "open", "closed": "closed", **getattr(game.phrases, "values", {}).get("state", {})},
        "players": [{"id": p.id, "first": p.first, "viewer": p.id == report.viewpoint}
                    for p in _viewer_last(viewed)],
        "turn": to_data(viewed.turn),
        "board": _board(viewed, game),
        "cards": cards,
        "zones": _zones(viewed, game),
        "verdicts": verdicts,
        "clauses": {cid: _clause(game, cid) for cid in cited},
        "notes": _notes(report, game),
        "selected": selected,
    }


def _require_projected(viewed: Situation, game: Game) -> None:
    for card in viewed.cards:
        if is_unknown_to(card, viewed.viewpoint, game) and (
                not card.id.startswith(RESERVED_PREFIX) or card.card or card.name or card.features
                or card.markers or card.chips or card.protections):
            raise UnprojectedSituation(
                f"card {card.id!r} is unknown to {viewed.viewpoint} but keeps its identity: "
                "build pages from pybridge.input.viewpoint.project(situation)")


def _viewer_last(viewed: Situation) -> list:
    """Players in drawing order: the opponent's half on top, the viewer's at the bottom."""
    return sorted(viewed.players, key=lambda p: p.id == viewed.viewpoint)


# --------------------------------------------------------------------------
# The board and the zones


def _board(viewed: Situation, game: Game) -> dict[str, Any] | None:
    """Cells as drawn: ``x`` from the viewer's left, ``y`` from the top. Each player counts
    columns from their own left and rows from the centre line, so the opponent's half is
    mirrored both ways (the rules base places cards the same way: model:board)."""
    if game.board is None:
        return None
    columns, rows = game.board.columns, game.board.rows_per_side
    cells = []
    for player in _viewer_last(viewed):
        viewer = player.id == viewed.viewpoint
        for row in range(1, rows + 1):
            for column in range(1, columns + 1):
                cells.append({"side": player.id, "column": column, "row": row,
                              "x": column if viewer else columns + 1 - column,
                              "y": rows + row if viewer else rows + 1 - row})
    cells.sort(key=lambda c: (c["y"], c["x"]))
    return {"columns": columns, "rows": 2 * rows, "cells": cells}


def _zones(viewed: Situation, game: Game) -> list[dict[str, Any]]:
    """Every player's non-empty zones outside the board. A private zone (a hand, a deck) shows
    how many cards it holds and the ones the viewer may see; a public one shows every card."""
    on_board = game.board is not None
    order = {zone: i for i, zone in enumerate(game.zones)}
    zones = []
    for player in _viewer_last(viewed):
        held: dict[str, list[Card]] = {}
        for card in viewed.cards:
            in_cell = on_board and card.cell is not None
            if card.controller == player.id and not in_cell:
                held.setdefault(card.zone, []).append(card)
        for zone in sorted(held, key=lambda z: (order.get(z, len(order)), z)):
            cards = held[zone]
            private = zone in game.private_zones
            shown = [c.id for c in cards if not (private and is_unknown_to(c, viewed.viewpoint, game))]
            zones.append({"player": player.id, "zone": zone, "private": private, "count": len(cards),
                          "cards": shown, "unknown": len(cards) - len(shown),
                          "viewer": player.id == viewed.viewpoint})
    return zones


def _card(card: Card, viewed: Situation, game: Game) -> dict[str, Any]:
    unknown = is_unknown_to(card, viewed.viewpoint, game)
    resolved = resolved_card(game, card)
    entry = game.cards.get(card.card or "", {}) if not unknown else {}
    cell = None
    if card.cell is not None:
        cell = {"side": card.cell.side or card.controller, "column": card.cell.column, "row": card.cell.row}
    return {
        "id": card.id,
        "name": None if unknown else resolved["name"],
        "unknown": unknown,
        "controller": card.controller,
        "owner": card.owner or card.controller,
        "zone": card.zone,
        "cell": cell,
        "open": card.open,
        "hidden": card.hidden,
        "revealed": card.revealed,
        "arrived": card.arrived,
        "properties": {k: v for k, v in sorted(resolved["properties"].items())},
        # properties every player sees even while the card is face down (game.yaml public_when_hidden)
        "public": [[k, resolved["properties"][k]] for k in game.public_when_hidden if k in resolved["properties"]],
        "features": sorted(resolved["features"]),
        "protections": sorted(card.protections),
        "markers": dict(sorted(card.markers.items())),
        "chips": dict(sorted(card.chips.items())),
        "text": str(entry.get("text", "")) or None,
        "effects": [_effect(e) for e in viewed.effects if e.target == card.id],
        # what the tile shows (game.yaml tile): nothing of a card the viewer may not see
        "stats": [] if unknown else _stats(resolved["properties"], game),
    }


def _stats(properties: dict[str, Any], game: Game) -> list[str]:
    """The game's tile lines a card has every property of: "cost 6", "strike 1-1-4", "2/2"."""
    said = {k: "-".join(map(str, v)) if isinstance(v, (list, tuple)) else v for k, v in properties.items()}
    lines = []
    for template in game.tile:
        try:
            lines.append(template.format(**said))
        except (KeyError, IndexError, ValueError):
            continue  # the card lacks one of them: a spell has no health
    return lines


def _effect(effect) -> dict[str, Any]:
    if effect.value is None:
        value = ""
    else:
        value = f" {effect.value:+d}" if isinstance(effect.value, int) else f" {effect.value}"
    return {"id": effect.id, "text": f"{effect.kind} {effect.what}{value}", "timestamp": effect.timestamp,
            "source": effect.source}


# --------------------------------------------------------------------------
# Verdicts


def _verdict(index: int, v: Verdict, report: Report, game: Game, known: set[str], trees: bool) -> dict[str, Any]:
    roles = action_roles(v.action, game, known)
    obliged = bool(v.obligations)
    return {
        "index": index,
        "player": v.player,
        "action": v.action,
        "verdict": "obliged" if obliged and v.verdict == "legal" else v.verdict,
        "obliged": obliged,
        "cites": list(v.cites),
        "certainty": v.certainty,
        "actor": [c for c, r in roles if r in _ACTOR_ROLES],
        "target": [c for c, r in roles if r is not None and r not in _ACTOR_ROLES],
        # cards the action names where the game does not declare the action's argument roles
        "named": [c for c, r in roles if r is None],
        "consequences": [say_term(c, game.phrases) for c in v.consequence_texts],  # in words, as the report
        "because": v.because,  # the deciding condition of an illegal verdict, as plain check says it
        "assuming": v.assuming,  # the assumption about hidden cards it rests on
        "tree": verdict_tree(report, v, game) if trees else None,
    }


_ACTION = re.compile(r"^\s*([a-z][a-z0-9_]*)\s*(?:\((.*)\))?\s*$", re.S)


def action_arguments(action: str, known: set[str]) -> tuple[str, list[str]] | None:
    """``shot(elf, hidden@p2:3.1)`` -> ``("shot", ["elf", "hidden@p2:3.1"])``. Card ids are
    any text (a comma included), so at each argument the ids of the situation are tried
    first, longest first; any other argument runs to the next top-level comma."""
    match = _ACTION.match(action)
    if match is None:
        return None
    name, rest = match.group(1), match.group(2) or ""
    ids = sorted(known, key=len, reverse=True)
    args: list[str] = []
    i = 0
    while rest.strip(" "):
        i = len(rest) - len(rest.lstrip(" "))
        card = next((k for k in ids if rest.startswith(k, i) and rest[i + len(k):].lstrip(" ")[:1] in ("", ",")),
                    None)
        end = i + len(card) if card is not None else _top_level_comma(rest, i)
        args.append(card if card is not None else rest[i:end].rstrip(" "))
        comma = rest.find(",", end)
        rest = rest[comma + 1:] if comma >= 0 else ""
    return name, args


def _top_level_comma(text: str, start: int) -> int:
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "," and depth == 0:
            return j
        depth += {"(": 1, ")": -1}.get(text[j], 0)
    return len(text)


def action_roles(action: str, game: Game, known: set[str]) -> list[tuple[str, str | None]]:
    """The cards an action names, with their argument role from the game's ``actions:``
    (``None`` where the game does not declare that action)."""
    parsed = action_arguments(action, known)
    if parsed is None:
        return []
    name, args = parsed
    declared = game.actions.get(name)
    result = []
    for i, arg in enumerate(args):
        if arg in known:
            role = declared[i] if declared and i < len(declared) else None
            if (arg, role) not in result:
                result.append((arg, role))
    return result


def _clause(game: Game, clause_id: str) -> dict[str, str]:
    clause = game.clause(clause_id)
    return {"heading": clause.heading, "summary": clause.summary} if clause else {"heading": "", "summary": ""}


def clauses_of(tree: dict[str, Any], game: Game) -> dict[str, dict[str, str]]:
    """Heading and summary of every clause a tree names (for a tree fetched on its own)."""
    return {cid: _clause(game, cid) for cid in sorted(_tree_clauses([{"tree": tree}]))}


def _tree_clauses(verdicts: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    stack = [v["tree"] for v in verdicts if v["tree"]]
    while stack:
        node = stack.pop()
        if node.get("clause"):
            found.add(node["clause"])
        stack.extend(node.get("children", ()))
    return found


def _notes(report: Report, game: Game) -> list[str]:
    notes = [f"Effect {effect_said(o.effect, game.phrases)} is set aside under {o.principle.replace('_', '-')}, "
             f"because of {effect_said(o.by, game.phrases)}"
             + (f" ({o.clause})" if o.clause else "") + "." for o in report.overridden_effects]
    notes += [f"Effects {a} and {b} contradict and no principle decides between them." for a, b in report.unresolved]
    notes += [f"{c.card}'s {c.value} comes to {c.computed} and counts as 0 ({c.clause})."
              for c in report.clamped]
    return notes


# --------------------------------------------------------------------------
# Justification trees (the one place that reads the report's justification structure)


def verdict_tree(report: Report, v: Verdict, game: Game) -> dict[str, Any]:
    """One verdict's justification as nested nodes, read off the report's graph (a report made with
    trees). Within a verdict an atom is opened once; later occurrences say so instead of repeating
    the subtree. An atom a rule required absent, which something overrode, opens to how it would
    have held ("near")."""
    seen: set[str] = set()

    def section(text: str, clause: str | None, node_ids: list[str | None]) -> dict[str, Any]:
        return {"text": text, "atom": None, "clause": clause, "kind": "reason", "rule": None,
                "children": [node(i) for i in node_ids if i]}

    def node(ident: str) -> dict[str, Any]:
        n = report.nodes[ident]
        said = phrase(n, game.phrases)
        item = {"text": said if n.kind != "absent" else f"not {said}", "atom": n.atom if said != n.atom else None,
                "clause": None, "kind": n.kind, "rule": None, "children": []}
        derivations = n.derivations if n.kind != "absent" else n.overridden_by
        if not derivations:
            return item
        if ident in seen:
            item.update(kind="repeat")
            return item
        seen.add(ident)
        first = derivations[0]
        item["clause"] = first.clause
        item["rule"] = report.rules[str(first.rule)].text if str(first.rule) in report.rules else None
        for d in derivations:
            children = [node(p) for p in d.premises] + [node(a) for a in d.absent]
            if len(derivations) > 1 or d.near:
                rule = report.rules.get(str(d.rule))
                item["children"].append({"text": "would hold by" if d.near else "derived by", "atom": None,
                                         "clause": d.clause, "kind": "near" if d.near else "derivation",
                                         "rule": rule.text if rule else None, "children": children})
            else:
                item["children"].extend(children)
        return item

    parts = [section(v.assuming, None, [t.node for t in v.treatment])] if v.treatment else []
    words = {"granted": "possible under", "met": "within what it allows", "blocked": "forbidden by",
             "definition": "not an action defined by"}
    for r in v.reasons:
        if r.role in words:
            parts.append(section(words[r.role], r.clause, [r.node]))
        elif r.role == "lifted":
            parts.append(section(f"would be forbidden, but {r.by} overrides it ({r.principle})", r.clause,
                                 [r.node, r.by_node]))
        elif r.role == "waived":
            parts.append(section(f"condition {r.condition} overridden by {r.by} ({r.principle})", r.clause, [r.node]))
    parts += [section("obliged by", o.clause, [o.node]) for o in v.obligations]
    for c in v.consequences:
        parts.append(section(f"then: {say_term(c.effect, game.phrases)}", c.cites[0] if c.cites else None, [c.node]))
    verdict = "obliged" if v.obligations and v.verdict == "legal" else v.verdict
    return {"text": f"{v.player}: {v.action} is {verdict}", "atom": None, "clause": None, "kind": "verdict",
            "rule": None, "children": parts}
