"""Chapter 10 (the extrapolation lab): its exercise checkers, its quick check (built from results
shaped like the chapter's; the NoPE and attention-sink questions) and the sweeps at the chapter's
settings."""

from __future__ import annotations

import math

import exercises_cases.ch10 as cases
import numpy as np
import pytest
from helpers import chapter_question, toy_seed_sweep, toy_sweep

from posenc_lib.course import exercises
from posenc_lib.course.exercises import ch10
from posenc_lib.lab import extrapolation as X
from posenc_lib.maths import attention

# ------------------------------------------------------------------------------------------
# Exercise checkers
# ------------------------------------------------------------------------------------------


def _stub(*args):
    ...


def test_checkers_are_re_exported():
    for name in ch10.__all__:
        assert getattr(exercises, name) is getattr(ch10, name)


@pytest.mark.parametrize("checker, reference", [
    (ch10.check_masked_accuracy, X.masked_accuracy),
    (ch10.check_chance_band, X.chance_band),
    (ch10.check_reverse_positions, X.reverse_positions),
])
def test_checkers_accept_the_reference_and_report_a_stub_kindly(checker, reference):
    report = checker(reference)
    assert report.ok, report.text()
    stub = checker(_stub)  # the notebook's `...` body: a report, not an exception
    assert not stub.ok and "replace `...`" in stub.text()


# The usual mistakes and their hints live in tests/exercises_cases/ch10.py (tests/course/test_checkers.py
# runs them); here: the close-but-valid answers, and the cases where two mistakes coincide.


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_checkers_accept_other_valid_forms_without_notes(name):
    for answer in cases.CASES[name]["also_correct"]:
        report = getattr(ch10, name)(answer)
        assert report.ok and not report.notes, report.text()


def test_hints_are_plain_text():
    # the website shows hints as plain text with `code` spans: no *emphasis* markers
    texts = []
    for name in cases.CASES:
        for wrong, _ in cases.CASES[name]["wrong"]:
            texts.append(getattr(ch10, name)(wrong).text())
    for t in texts:
        assert not any(w.startswith("*") and w.endswith("*") and len(w) > 2
                       for w in t.replace("(", " ").replace(")", " ").split()), t


def test_chance_band_never_names_a_mistake_that_was_not_made():
    # forgetting /n, the spread of the count and swapped clipping all give (0, 1) on the order
    # case: only the general hint may be given there, never "min and max are swapped" alone
    def forgot_n(n, p, z):
        half = z * math.sqrt(p * (1 - p))
        return max(0.0, p - half), min(1.0, p + half)

    text = ch10.check_chance_band(forgot_n).text()
    assert "min and max are swapped in the clipping:" not in text
    assert "divide p(1-p) by n inside the square root" in text
    # no clipping at all: both ends are named, on the cases that need them
    text = ch10.check_chance_band(
        lambda n, p, z: (p - z * math.sqrt(p * (1 - p) / n), p + z * math.sqrt(p * (1 - p) / n))
    ).text()
    assert "the lower end is below 0" in text and "the upper end is above 1" in text
    assert "swapped" not in text


def test_reverse_positions_symmetric_case_gets_the_neutral_hint():
    for wrong in (lambda b: np.asarray(b)[..., ::-1, :], lambda b: np.asarray(b)[..., :, ::-1]):
        lines = ch10.check_reverse_positions(wrong).text().splitlines()
        alibi_line = [ln for ln in lines if "bidirectional ALiBi" in ln][0]
        assert "only one of the two axes" in alibi_line, alibi_line
        assert "queries (rows) only" not in alibi_line and "keys (columns) only" not in alibi_line


def test_checker_reports_an_exception_instead_of_raising():
    def broken(logits, targets, mask):
        raise KeyError("oops")
    report = ch10.check_masked_accuracy(broken)
    assert not report.ok and "your function raised KeyError" in report.text()


# ------------------------------------------------------------------------------------------
# The quick check, built from results shaped like the chapter's
# ------------------------------------------------------------------------------------------


def test_quiz_quotes_the_results_it_is_given():
    from posenc_lib.course import quizzes
    order = toy_seed_sweep("order", (32,), positions=X.SCHEMES)
    order_bos = toy_seed_sweep("order_bos", (32,), positions=X.SCHEMES)
    long = X.SweepResult("copy_back", 32, (32, 64, 128, 256), ("alibi",),
                         {"alibi": (0.65, 0.58, 0.51, 0.45)}, {"alibi": 1.0})
    q = quizzes.chapter(10, order=order, order_bos=order_bos, latest=toy_sweep("latest_signal"),
                     sweep=toy_sweep(), copy_seeds=toy_seed_sweep(), alibi_long=long)
    text = q._repr_mimebundle_()["text/plain"]
    assert "0.90, 0.85, 0.80" in text          # ALiBi with a start token, seed by seed
    assert "scores 0.65 at 32 tokens and 0.45 at 256" in text
    kinds = [x.kind for x in q.questions]
    assert "predict" in kinds and "compute" in kinds
    feedback = " ".join(o.feedback for x in q.questions for o in x.options)
    assert "exp(−6.25) ≈ 0.0019" in feedback and "2^(−6.25)" in feedback


def test_the_nope_counter_of_the_ch10_quiz():
    # the causal head with equal scores outputs 1/(t+1) on a start-token indicator, the
    # bidirectional one 1/L: the numbers the quiz question quotes
    v = np.zeros((16, 1))
    v[0] = 1.0
    q = np.zeros((16, 2))
    causal = attention.attention(q, q, v, causal=True)[0][:, 0]
    bidir = attention.attention(q, q, v, causal=False)[0][:, 0]
    np.testing.assert_allclose(causal, 1 / np.arange(1, 17), rtol=1e-12)
    np.testing.assert_allclose(bidir, 1 / 16, rtol=1e-12)


def test_the_sink_question_of_the_ch10_quiz_has_no_length_cue_and_says_on_average():
    import inspect
    from types import SimpleNamespace

    from posenc_lib.course.quizzes import ch10

    class _Any(float):  # stands in for any result the quiz reads (an accuracy of 0.5)
        def __new__(cls):
            return super().__new__(cls, 0.5)

        def __getitem__(self, key):
            return _Any()

        def __iter__(self):
            return iter([_Any()] * 4)

    class _Results(SimpleNamespace):
        def __getattr__(self, name):
            return _Any()

    values = {k: _Results() for k in inspect.signature(ch10.build).parameters}
    q = chapter_question(10, "Xiao et al. found that many heads", **values)
    right = [o for o in q.options if o.correct]
    assert len(right) == 1 and right[0].text.startswith("Both put position before content")
    # no length cue: the right option is neither the longest nor the shortest one
    lengths = sorted(len(o.text) for o in q.options)
    assert lengths[0] < len(right[0].text) < lengths[-1], [len(o.text) for o in q.options]
    # the 1% statement is about the average over the last 32 queries, not single queries
    assert "averaged over the last 32 queries" in right[0].feedback


# ------------------------------------------------------------------------------------------
# The sweep at the chapter's settings: only what the measurements show robustly
# ------------------------------------------------------------------------------------------


def test_order_task_at_default_settings():
    plain = X.length_sweep("order", positions=("none", "rope", "alibi"), factors=(1,))
    bos = X.length_sweep("order_bos", positions=("alibi",), factors=(1,))
    low, high = X.chance_band(256)  # 256 test sequences; NoPE and ALiBi can only guess
    assert low <= plain.accuracy["none"][0] <= high
    assert low <= plain.accuracy["alibi"][0] <= high
    assert plain.accuracy["rope"][0] >= 0.9
    assert bos.accuracy["alibi"][0] > high  # the start token breaks the mirror symmetry


def test_copy_back_at_default_settings():
    r = X.length_sweep("copy_back", positions=("learned", "rope"), factors=(1, 2, 4, 8))
    assert r.accuracy["rope"][0] >= 0.9 and r.accuracy["learned"][0] >= 0.9
    assert math.isnan(r.accuracy["learned"][1])
    model = X.trained_model("rope")
    layer, head = X.copy_head(model.params, model.config)
    tokens = np.random.default_rng(0).integers(0, 16, size=(4, 32))
    by_dist = X.attention_by_distance(model.params, model.config, tokens)
    assert by_dist[layer, head, 3] > 0.9  # a real copying head: weight ~1 three steps back
    offsets = X.copy_offsets(model.params, model.config, length=32)
    assert offsets[3] > 0.9 and np.all(np.delete(offsets, 3) < 0.2)
