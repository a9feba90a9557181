"""The one exception type users see: a clear message, never a traceback."""

from __future__ import annotations


class JudgeError(Exception):
    """Bad input or a failed run, worded for the person who wrote the input.

    ``source`` names the file (or other origin) and ``field`` the path of
    the offending value inside it, in ``cards[2].cell.row`` form.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None):
        self.message = message
        self.source = source
        self.field = field
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        if self.source and self.field:
            where = f"{self.source}: field {self.field}: "
        elif self.source:
            where = f"{self.source}: "
        elif self.field:
            where = f"field {self.field}: "
        return where + self.message


def close_matches(word: str, choices, *, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The names nearest ``word`` for a "did you mean" (difflib's; imported only when a message
    needs it, since a valid situation never does)."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=n, cutoff=cutoff)
