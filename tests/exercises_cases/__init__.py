"""Typical correct and wrong solutions for every exercise checker, one module per chapter.

Each module defines ``CASES``: checker name -> {"correct": f, "wrong": [(g, hint), ...],
"notes": [(h, note), ...] (optional)}. ``tests/course/test_checkers.py`` runs them all.
"""
