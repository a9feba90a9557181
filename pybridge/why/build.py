"""A report built from an answer: every verdict with its first level of reasons (:mod:`.justify`),
and with ``trees`` its full justification graph (:mod:`.graph`, which builds on justify's verdicts)."""

from __future__ import annotations

from pybridge.game.catalogue import Game
from pybridge.ground.solve import Answer
from pybridge.ground.terms import text
from pybridge.why.justify import Cites, Report, finish, group, lifting_principles, verdict_of


def build_report(answer: Answer, game: Game, *, edition: str, options: dict[str, str], viewpoint: str,
                 trees: bool = False, atoms: bool = False) -> Report:
    """Every verdict of the answer with its cites and its first level of reasons; with ``trees`` (an
    answer of the trees program) the justification graph of every verdict, expanded in full."""
    grouped = group(answer)
    cites = Cites(game, answer.compiled.principles)
    principle_of = lifting_principles(answer.compiled.principles)
    graph = None
    if trees:
        from pybridge.why.graph import Graph  # the full graph, only when asked for
        graph = Graph(answer, game, cites)
    verdicts = []
    for key in sorted(grouped.pairs, key=lambda k: tuple(map(text, grouped.pairs[k]))):
        verdict = verdict_of(key, grouped, cites, principle_of)
        if graph is not None:
            graph.expand_verdict(verdict, key, grouped)
        verdicts.append(verdict)
    return finish(answer, game, verdicts, edition=edition, options=options, viewpoint=viewpoint, graph=graph,
                  atoms=atoms)
