"""Quizzes, exercise checkers, toy data and the small helpers chapters use."""

import ipywidgets as widgets
from ipywidgets.widgets.widget import _instances as live_widgets
from ipywidgets.widgets.widget_link import Link
import numpy as np
import pytest

from posenc_lib import attention, exercises, quiz, toy
from posenc_lib.numbers import below, rounded
from posenc_lib.source import show_source


def make_question():
    return quiz.question(
        "Pick B.",
        quiz.option("A", False, "A is wrong because."),
        quiz.option("B", True, "B is right because."),
    )


def test_question_widget_links_choices_to_feedback():
    q = make_question()
    box = q.widget()
    prompt, choices, feedback = box.children
    assert isinstance(choices, widgets.RadioButtons) and choices.index is None
    assert isinstance(feedback, widgets.Stack) and feedback.selected_index is None
    assert "Not quite." in feedback.children[0].value and "A is wrong" in feedback.children[0].value
    assert "Correct." in feedback.children[1].value and "B is right" in feedback.children[1].value
    links = [w for w in live_widgets.values()
             if isinstance(w, Link) and w.source == (choices, "index")]
    assert len(links) == 1 and links[0].target == (feedback, "selected_index")


def test_quiz_text_form_is_stable():
    text = quiz.quiz(make_question(), make_question())._repr_mimebundle_()["text/plain"]
    assert text == "Q1. Pick B.\n  (a) A\n  (b) B\n\nQ2. Pick B.\n  (a) A\n  (b) B"


@pytest.mark.parametrize("make, exc, msg", [
    (lambda: quiz.question("Q?", quiz.option("A", False, "x"), quiz.option("B", False, "y")),
     ValueError, "no option of 'Q\\?' is marked correct"),
    (lambda: quiz.question("Q?", quiz.option("A", True, "x")), ValueError, "at least 2 options"),
    (lambda: quiz.option("A", True, ""), ValueError, "feedback must explain"),
    (lambda: quiz.option("A", "yes", "x"), TypeError, "correct must be a bool"),
    (lambda: quiz.question("Q?", quiz.option("A", True, "x"), quiz.option("A", False, "y")),
     ValueError, "distinct texts"),
    (lambda: quiz.quiz(), ValueError, "at least one question"),
])
def test_quiz_validation(make, exc, msg):
    with pytest.raises(exc, match=msg):
        make()


# -- exercise checkers -----------------------------------------------------------------------
def good_weights(q, k):
    s = q @ k.T / np.sqrt(q.shape[-1])
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("student, expect", [
    (good_weights, "all 4 checks passed"),
    (lambda q, k: attention.softmax(q @ k.T), "divide the scores by sqrt(d_k)"),
    (lambda q, k: attention.softmax(q @ k.T / q.shape[-1]), "the scale is sqrt(d_k), not d_k"),
    (lambda q, k: attention.softmax(q @ k.T / np.sqrt(q.shape[-1]), axis=0), "axis=-1"),
    (lambda q, k: q @ k.T / np.sqrt(q.shape[-1]), "apply the softmax"),
    (lambda q, k: None, "returned None"),
    (lambda q, k: 1 / 0, "ZeroDivisionError"),
    (lambda q, k: np.zeros(3), "expected shape"),
])
def test_attention_weights_checker(student, expect):
    report = exercises.check_attention_weights(student)
    assert expect in report.text()
    assert report.ok == (student is good_weights)


def test_overflow_hint():
    def naive(q, k):
        e = np.exp(q @ k.T / np.sqrt(q.shape[-1]))
        return e / e.sum(-1, keepdims=True)

    report = exercises.check_attention_weights(naive)
    assert report.passed == 2 and "subtract each row's maximum" in report.text()


def test_unrecognised_non_finite_results_get_numpys_diagnosis():
    def naive_float32(q, k):  # overflows at exp(88.7), not at exp(709.8): no diagnosis matches
        e = np.exp((q @ k.T / np.sqrt(q.shape[-1])).astype(np.float32))
        return e / e.sum(-1, keepdims=True)

    text = exercises.check_attention_weights(naive_float32).text()
    assert "numpy reported an overflow" in text and "Hint: exp() of a large score" in text

    def zero_rows(q, k):  # 0/0 with no overflow
        e = np.zeros((q.shape[0], k.shape[0]))
        return e / e.sum(-1, keepdims=True)

    text = exercises.check_attention_weights(zero_rows).text()
    assert "invalid operation" in text and "reported an overflow" not in text
    assert "if a row's exponentials all became 0" in text


def test_attention_checker_cases_test_what_they_claim():
    from posenc_lib.exercises import ch01

    q, k = ch01._overflow_test_case()
    s = q @ k.T / 2
    assert np.all(s.max(axis=1) > np.log(np.finfo(float).max))      # exp overflows in every row
    assert np.all(s.min(axis=1) < np.log(np.finfo(float).max))      # but not for every key
    assert np.all(s == (q.astype(np.float32) @ k.T.astype(np.float32)) / 2)   # exact in float32
    assert not ch01._saturated(q, k)
    q, k = ch01._different_scales_case()
    raw = np.sort(q @ k.T, axis=1)
    assert np.all((raw[:, -1] - raw[:, -2]) / q.shape[1] > 70)      # one-hot whatever the scale
    assert ch01._saturated(q, k)
    assert np.ptp(raw[:, -1] / 4) > 3000                              # row maxima far apart


def test_permutation_checker():
    assert exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o]).ok
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o].T)
    assert report.passed == 0 and "you built the transpose" in report.text()   # no involutions
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[np.asarray(o) - 1])
    assert report.passed == 0 and report.text().count("Hint:") == 1            # one clear hint
    with pytest.raises(TypeError, match="pass your function itself"):
        exercises.check_permutation_matrix(np.eye(3))


def test_report_html_and_text_agree():
    report = exercises.check_permutation_matrix(lambda o: np.eye(len(o))[o])
    bundle = report._repr_mimebundle_()
    assert bundle["text/plain"].startswith("✔ permutation_matrix: all 4 checks passed.")
    assert "posenc-right" in bundle["text/html"]


# -- toy data and helpers --------------------------------------------------------------------
def test_word_vectors_depend_only_on_word():
    a = toy.embed(["dog", "bites", "man"], 16)
    b = toy.embed(["man", "bites", "dog"], 16)
    np.testing.assert_array_equal(a[0], b[2])
    assert not np.allclose(toy.word_vector("dog", 16), toy.word_vector("cat", 16))
    assert not np.allclose(toy.word_vector("dog", 16, seed=1), toy.word_vector("dog", 16))
    # stable across runs: a hash of the word, not Python's randomised hash()
    assert toy.word_vector("dog", 4)[0] == toy.word_vector("Dog", 4)[0]


def test_toy_self_attention_ties_repeated_words():
    words = "the brown dog chased the black dog".split()
    out, w = toy.self_attention(words)
    np.testing.assert_allclose(out[2], out[6], atol=1e-12)
    pe = np.random.default_rng(0).standard_normal((7, 16))
    out2, _ = toy.self_attention(words, encoding=pe)
    assert not np.allclose(out2[2], out2[6])
    with pytest.raises(ValueError, match=r"encoding must have shape \(7, 16\)"):
        toy.self_attention(words, encoding=np.zeros((3, 16)))
    with pytest.raises(TypeError, match="sequence of words"):
        toy.embed("dog bites man", 4)


def test_rounded_and_below():
    assert rounded(2 / 3, 3) == 0.667
    assert rounded(0.25048770466803655) == rounded(0.2504877046680366) == 0.250488
    assert rounded(123456789.0, 2) == 1.2e8
    assert rounded(0) == 0.0 and isinstance(rounded(3), float)
    assert below(2.2e-16, 1e-12) == 1e-12
    with pytest.raises(AssertionError, match="claimed"):
        below(2e-12, 1e-12)
    for bad, exc in [(float("nan"), ValueError), ("1", TypeError)]:
        with pytest.raises(exc):
            rounded(bad)
    with pytest.raises(ValueError, match="sig"):
        rounded(1.0, 0)


def test_show_source_drops_docstring():
    src = show_source(attention.causal_mask)
    assert src.code.startswith("def causal_mask(")
    assert '"""' not in src.code and "np.triu_indices" in src.code
    assert "```python" in src._repr_mimebundle_()["text/markdown"]
    assert '"""' in show_source(attention.causal_mask, docstring=True).code
    with pytest.raises(TypeError, match="obj must be a function or class"):
        show_source(3)
