"""The one exception type users see: a clear message, never a traceback."""

from __future__ import annotations


class JudgeError(Exception):
    """Bad input or a failed run, worded for the person who wrote the input.

    ``source`` names the file (or other origin) and ``field`` the path of
    the offending value inside it, in ``cards[2].cell.row`` form; ``line`` and ``column`` (from 1)
    where it is in the file, when known: ``file:line:column:`` as compilers and clingo say it.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None,
                 line: int | None = None, column: int | None = None):
        self.message = message
        self.source = source
        self.field = field
        self.line = line
        self.column = column
        super().__init__(self.render())

    def render(self) -> str:
        where = ""
        source = self.source
        if source and self.line is not None:
            source = f"{source}:{self.line}:{self.column or 1}"
        if source and self.field:
            where = f"{source}: field {self.field}: "
        elif source:
            where = f"{source}: "
        elif self.field:
            where = f"field {self.field}: "
        return where + self.message


class TimeLimitError(JudgeError):
    """A run stopped at its time limit: not a fault of the input, and on a busy machine not even
    of the rules, so a tool that counts failures (the mutation score) can tell it apart."""


class AnswerCount(JudgeError):
    """The rules gave a valid situation no answer (``answers`` 0) or more than one (2: at least
    two). A defect of the rules, not of the input; the consistency search looks for such situations."""

    def __init__(self, message: str, *, answers: int):
        super().__init__(message)
        self.answers = answers


def close_matches(word: str, choices, *, n: int = 3, cutoff: float = 0.6) -> list[str]:
    """The names nearest ``word`` for a "did you mean" (difflib's; imported only when a message
    needs it, since a valid situation never does)."""
    import difflib

    return difflib.get_close_matches(word, list(choices), n=n, cutoff=cutoff)
