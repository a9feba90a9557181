"""Report: a judged report put into words for people and programs.

Takes a :class:`~pybridge.why.justify.Report`. Gives the text of ``check``, ``explain`` and
``resolve`` and the versioned JSON (:mod:`.render`), the JSON Schemas and vocabulary pages
(:mod:`.schemas`), the ruling page's data and HTML (:mod:`.page`), and whatif's answer
(:mod:`.whatif`). Judges nothing itself.
"""
