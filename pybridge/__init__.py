"""ccg-judge: legal actions, prohibitions and obligations of a card-game
situation, each verdict justified by the rule clauses that produced it.

Pipeline, one module per stage::

    situation -> viewpoint -> facts -> encodings -> solve -> justify -> report -> cli

The public Python API lives in :mod:`pybridge.api`.
"""

__version__ = "0.1.0"
