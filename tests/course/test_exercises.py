"""posenc_lib.course.exercises, the framework (``_core``): what a report says when the learner's
result is an integer array, a tuple, the transpose or a comparison, when a stub answers only some
cases, and when two mistakes coincide; the report's HTML and text forms agree."""

from __future__ import annotations

import exercises_cases
import numpy as np

from posenc_lib.course import exercises


def test_report_html_and_text_agree():
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o])
    bundle = report._repr_mimebundle_()
    assert bundle["text/plain"].startswith("✔ permutation_matrix: all 4 checks passed.")
    assert "posenc-right" in bundle["text/html"]


def test_integer_dtype_and_tuple_results_are_named():
    def reference(n):
        return np.sin(np.arange(n, dtype=float))

    def truncated(n):                    # np.zeros(n, dtype=int) filled in a loop
        out = np.zeros(n, dtype=int)
        for p in range(n):
            out[p] = np.sin(p)
        return out

    cases = [("n = 4", (4,)), ("n = 6", (6,))]
    report = exercises.run_checks("sine", truncated, reference, cases)
    assert not report.ok and "integer dtype (int64)" in report.text(), report.text()
    report = exercises.run_checks("sine", lambda n: (reference(n), 1), reference, cases)
    assert not report.ok and "a tuple of 2 items" in report.text(), report.text()

    def counts(n):                       # whole numbers expected: an integer result is right
        return np.arange(n)

    assert exercises.run_checks("counts", lambda n: list(range(n)), counts, cases).ok


def test_a_transposed_result_is_named():
    def reference(rows, cols):
        return np.arange(rows * cols, dtype=float).reshape(rows, cols)

    cases = [("3 x 5", (3, 5)), ("2 x 4", (2, 4))]
    report = exercises.run_checks("table", lambda r, c: reference(r, c).T, reference, cases)
    assert not report.ok and "transposed" in report.text(), report.text()
    report = exercises.run_checks("table", lambda r, c: reference(r, c + 1), reference, cases)
    assert not report.ok and "transposed" not in report.text(), report.text()


def test_a_boolean_result_is_named_as_a_comparison():
    def reference(n):
        return np.linspace(0.1, 0.9, n)

    cases = [("n = 4", (4,)), ("n = 6", (6,))]
    report = exercises.run_checks("ratios", lambda n: reference(n) < 0.5, reference, cases)
    assert not report.ok and "True/False values" in report.text(), report.text()
    assert "cut to a whole number" not in report.text()


def test_none_on_some_cases_is_not_called_a_stub():
    """A `return` inside `if causal:` returns None on the symmetric cases only: the learner is
    told where, not asked to replace `...` (the stub message is for None on every case)."""
    def only_causal(seq_len, slope, causal):
        if causal:
            return exercises_cases.ch09.alibi_bias(seq_len, slope, causal)

    text = exercises.check_alibi_bias(only_causal).text()
    assert "replace `...`" not in text and "returned None here" in text, text
    assert "replace `...`" in exercises.check_alibi_bias(lambda L, m, c: None).text()


def test_not_implemented_on_some_cases_is_not_called_a_stub():
    """Powers of two handled, the rest raising NotImplementedError: the cases that pass count."""
    right = exercises_cases.ch09.alibi_slopes

    def powers_of_two_only(num_heads):
        if num_heads & (num_heads - 1):
            raise NotImplementedError
        return right(num_heads)

    report = exercises.check_alibi_slopes(powers_of_two_only)
    assert 0 < report.passed < report.total and "NotImplementedError here" in report.text()

    def stub(num_heads):
        raise NotImplementedError

    assert "Not implemented yet" in exercises.check_alibi_slopes(stub).text()


def test_coinciding_mistakes_are_offered_as_alternatives():
    """On the hand example, rounding to one decimal fewer, a one-unit tolerance and counting the
    positions with a double all give 11: the hint lists them as alternatives, and a later case
    names the one actually made."""
    def coarser(values, decimals):
        return exercises_cases.ch03.count_collisions(values, decimals - 1)

    text = exercises.check_count_collisions(coarser).text()
    first, *rest = text.splitlines()[1:]
    assert "more than one usual mistake" in first and "(1)" in first and "(2)" in first, text
    assert any("one decimal fewer" in m and "more than one" not in m for m in rest), text
