"""ccg-judge: legal actions, prohibitions and obligations of a card-game
situation, each verdict justified by the rule clauses that produced it.

The pipeline, one sub-package per stage, each importing only the stages before it::

    game -> input -> ground -> why -> report -> api -> tools, web -> cli

- ``game/``: a game's files, clause catalogue, cards and vocabulary;
- ``input/``: a situation read, bounded and validated; the viewpoint player's view of it;
- ``ground/``: facts, the compiled and specialised rules, grounding and solving;
- ``why/``: verdicts and their justification graphs;
- ``report/``: text, JSON, schemas and the ruling page;
- :mod:`pybridge.api`: the public Python API (the command line's operations);
- ``tools/``: rulings, lint, coverage, consistency, mutants, batch, matrix;
- ``web/``: the HTML ruling page of a situation and the playground server;
- :mod:`pybridge.cli` (started by :mod:`pybridge.entry`): the command line.

:mod:`pybridge.errors` is below them all. ``tests/test_layers.py`` keeps this order.
"""

__version__ = "0.1.0"
