"""The one exception type users see: a clear message, never a traceback."""

from __future__ import annotations


_KEEP = object()  # a place not given to JudgeError.located: the error's own is kept


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

    def located(self, *, source=_KEEP, field=_KEEP, line=_KEEP, column=_KEEP) -> JudgeError:
        """The same error said again with where it happened: a copy of this very class with every
        attribute of its own kept (an AnswerCount's ``answers``), only the places given replaced. A
        caller that names the file must not turn a time limit or a count of answers into a plain
        error that ``except AnswerCount`` would miss."""
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        for name, value in (("source", source), ("field", field), ("line", line), ("column", column)):
            if value is not _KEEP:
                setattr(copy, name, value)
        Exception.__init__(copy, copy.render())
        return copy

    def __reduce__(self):
        # pickled (to or from a worker process) as the same class with the same attributes: the
        # default would call the class with the rendered message alone, which a subclass with
        # attributes of its own (AnswerCount) refuses
        return _rebuilt, (type(self), self.__dict__.copy())


def _rebuilt(kind: type[JudgeError], attributes: dict) -> JudgeError:
    error = kind.__new__(kind)
    error.__dict__.update(attributes)
    Exception.__init__(error, error.render())
    return error


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
