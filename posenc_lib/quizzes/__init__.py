"""The quick-check questions of each chapter, one module per chapter (``ch01`` … ``ch12``).

Each module defines ``QUIZ`` (a :class:`posenc_lib.quiz.Quiz`); chapters show it with
``quiz.chapter(n)``. Keeping the questions here, not in the notebook, means no answer key is
visible in the page or the notebook before the reader answers. Numbers quoted in feedback are
computed with the library when the module is imported.
"""
