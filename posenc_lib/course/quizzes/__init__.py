"""The quick-check questions of each chapter, one module per chapter (``ch01`` … ``ch12``,
``ch10b``).

Each module defines ``QUIZ`` (a :class:`posenc_lib.display.quiz.Quiz`), or ``build(**values)``
when its feedback quotes numbers the chapter computes; chapters show it with
``quizzes.chapter(n)``. Keeping the questions here, not in the notebook, means no answer key is
visible in the page or the notebook before the reader answers. Numbers quoted in feedback are
computed with the library when the module is imported.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from ...display import quiz
from ...display.quiz import Quiz

__all__ = ["chapter"]


def chapter(number: int | str, **values: Any) -> Quiz:
    """The quick check of chapter ``number``: ``1`` … ``99``, or a chapter's second part such as
    ``"10b"`` (module ``ch10b`` of this package).

    A chapter whose feedback quotes results the notebook computes (a training run, say) defines
    ``build(**values)`` instead of ``QUIZ``; pass those results as keywords.
    """
    if isinstance(number, str) and re.fullmatch(r"[1-9][0-9]?[b-z]", number):
        name, seed = f"ch{int(number[:-1]):02d}{number[-1]}", 100 * int(number[:-1]) + ord(number[-1])
    elif isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 99:
        raise ValueError(f"number must be a chapter number (1, 2, …, or a part such as '10b'), "
                         f"got {number!r}")
    else:
        name, seed = f"ch{number:02d}", number
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError:
        raise ValueError(f"chapter {number} has no quiz (no posenc_lib/course/quizzes/"
                         f"{name}.py)") from None
    if hasattr(module, "build"):
        return quiz.arranged(module.build(**values), seed=seed)
    if values:
        raise TypeError(f"the quiz of chapter {number} takes no values, got {sorted(values)}")
    return quiz.arranged(module.QUIZ, seed=seed)
