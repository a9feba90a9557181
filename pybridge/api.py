"""The Python API: the operations of the command line, returning typed results."""

from __future__ import annotations

import re
from pathlib import Path

from pybridge.catalogue import load_game
from pybridge.errors import JudgeError
from pybridge.facts import render_facts, situation_facts
from pybridge.justify import Report, Resolution, Verdict, build_report, build_resolution
from pybridge.situation import Situation, check_against_game, load_situation
from pybridge.solve import solve
from pybridge.viewpoint import project, unknown_card_ids


def _situation(situation: Situation | str | Path) -> Situation:
    return situation if isinstance(situation, Situation) else load_situation(situation)


def game_of(situation: Situation | str | Path):
    """The game (rules, catalogues, wording) a situation belongs to."""
    return load_game(_situation(situation).game)


def with_overrides(situation: Situation, *, edition: str | None = None,
                   options: dict[str, str] | None = None, player: str | None = None) -> Situation:
    """The same situation under another edition, options or viewpoint (validated again)."""
    update: dict = {}
    if edition is not None:
        update["edition"] = edition
    if options:
        update["options"] = {**situation.options, **options}
    if player is not None:
        update["viewpoint"] = player
    if not update:
        return situation
    changed = situation.model_copy(update=update)
    check_against_game(changed, source="command line")
    return changed


def facts_for(situation: Situation | str | Path, *, player: str | None = None) -> list:
    """The input facts the solver sees for the viewpoint player (after projection)."""
    s = with_overrides(_situation(situation), player=player)  # an unknown player is an error
    return situation_facts(project(s))


def facts_text(situation: Situation | str | Path, *, player: str | None = None) -> str:
    s = _situation(situation)
    viewer = player or s.viewpoint
    header = (f"ccg-judge facts: game {s.game}, viewpoint {viewer}.\n"
              f"Rerun with: clingo asp/{s.game}/main.lp THIS_FILE")
    return render_facts(facts_for(s, player=viewer), header)


def check(situation: Situation | str | Path, *, player: str | None = None, edition: str | None = None,
          options: dict[str, str] | None = None, time_limit: float | None = None) -> Report:
    """Every verdict for the situation, from the viewpoint player's knowledge."""
    s = with_overrides(_situation(situation), edition=edition, options=options, player=player)
    game = load_game(s.game)
    viewed = project(s)
    try:
        answer = solve(s.game, situation_facts(viewed, game), time_limit=time_limit, entry=game.entry)
    except JudgeError as exc:  # a limit of the solver: say which file it was
        if exc.source is None and not isinstance(situation, Situation):
            raise JudgeError(exc.message, source=str(situation), field=exc.field) from None
        raise
    chosen = {name: s.options.get(name, option.default) for name, option in sorted(game.options.items())}
    return build_report(answer, game, edition=s.edition or game.default_edition, options=chosen,
                        viewpoint=s.viewpoint)


def normalise_action(action: str) -> str:
    """``strike_attack( elf,foe )`` -> ``strike_attack(elf, foe)``: how verdicts name actions."""
    compact = "".join(action.split())
    return compact.replace(",", ", ")


def explain(situation: Situation | str | Path, action: str, *, player: str | None = None,
            **kwargs) -> Verdict:
    """The verdict on one action, with its full justification."""
    report = check(situation, player=player, **kwargs)
    wanted = normalise_action(action)
    matches = [v for v in report.verdicts if normalise_action(v.action) == wanted]
    if not matches:
        known = sorted({v.action for v in report.verdicts})
        raise JudgeError(f"no action {action!r} is possible in this situation; known actions: "
                         + ("; ".join(known) if known else "(none)"), field="ACTION")
    own = [v for v in matches if v.player == report.viewpoint]
    return (own or matches)[0]


def _id_pattern(ids) -> re.Pattern:
    """Whole card-id arguments of an action text (``shot(a, hidden@p2:3.1)``)."""
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(r"(?<=[(, ])(" + alternatives + r")(?=[,)])")


def _swap_ids(action: str, mapping: dict[str, str]) -> str:
    return _id_pattern(mapping).sub(lambda m: mapping[m.group(1)], action) if mapping else action


def resolve(situation: Situation | str | Path, action: str, *, player: str | None = None,
            edition: str | None = None, options: dict[str, str] | None = None,
            time_limit: float | None = None) -> Resolution:
    """Resolve a declared action against the truth: the hidden cards it names are revealed (the
    declaring card and its targets), and the action is judged on the unprojected situation.
    Legal -> executed; illegal -> not executed but paid (the game's clause for that, e.g. 532.7)."""
    s = with_overrides(_situation(situation), edition=edition, options=options, player=player)
    declared = explain(s, action, time_limit=time_limit)
    if declared.verdict != "legal":
        raise JudgeError(f"{declared.action} cannot be declared: it is illegal ({', '.join(declared.cites)})",
                         field="ACTION")
    to_real = {neutral: real for real, neutral in unknown_card_ids(s, s.viewpoint).items()}
    real_action = _swap_ids(declared.action, to_real)
    named = set(_id_pattern([c.id for c in s.cards]).findall(real_action)) if s.cards else set()
    revealed = sorted(c.id for c in s.cards if c.hidden and c.id in named)
    cards = [c.model_copy(update={"hidden": False}) if c.id in revealed else c for c in s.cards]
    truth = s.model_copy(update={"cards": cards, "viewpoint": declared.player})
    game = load_game(s.game)
    answer = solve(s.game, situation_facts(truth, game), time_limit=time_limit, entry=game.entry)
    chosen = {name: s.options.get(name, option.default) for name, option in sorted(game.options.items())}
    report = build_report(answer, game, edition=s.edition or game.default_edition, options=chosen,
                          viewpoint=declared.player)
    return build_resolution(answer, report, player=declared.player, declared=declared.action,
                            action=real_action, revealed=revealed, game=game)
