"""The book's quick checks: answers not guessable, a prediction or computation in every chapter,
markup that renders, and no answer key in any notebook."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import ROOT

from posenc_lib.course import quizzes
from posenc_lib.display import quiz

CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]*_*.ipynb"))


class _Results(SimpleNamespace):
    """Stand-in for a chapter's computed results (any accuracy, any length)."""

    def __getattr__(self, name: str):  # every attribute a quiz may read exists
        return _Anything()


class _Anything(float):
    def __new__(cls) -> _Anything:
        return super().__new__(cls, 0.5)

    def __getitem__(self, key):
        return _Anything()

    def __iter__(self):
        return iter([_Anything()] * 4)

    def __len__(self) -> int:
        return 4


#: Every chapter's quiz label, in book order ("10b" is chapter 10's second part).
LABELS: list[int | str] = [p.name.split("_")[0] for p in CHAPTERS]


LABELS = [int(x) if x.isdigit() else x for x in LABELS]


def chapter_quiz(n: int | str) -> quiz.Quiz:
    if n == "10b":  # built from the stored results the chapter reads
        from posenc_lib.lab import textlm
        return quizzes.chapter("10b", curves=textlm.length_curves(),
                            passkey=textlm.passkey_results())
    try:
        return quizzes.chapter(n)
    except TypeError:  # a quiz built from the chapter's results
        import inspect

        from posenc_lib.course.quizzes import __name__ as pkg
        module = __import__(f"{pkg}.ch{n:02d}", fromlist=["build"])
        names = inspect.signature(module.build).parameters
        return quizzes.chapter(n, **{k: _Results() for k in names})


def all_questions() -> list[tuple[int | str, quiz.Question]]:
    return [(n, q) for n in LABELS for q in chapter_quiz(n).questions]


def test_every_chapter_has_a_quiz_with_a_prediction_or_computation():
    assert len(CHAPTERS) == 13 and LABELS == [*range(1, 11), "10b", 11, 12]
    for n in LABELS:
        kinds = Counter(q.kind for q in chapter_quiz(n).questions)
        assert len(chapter_quiz(n).questions) >= 3, n
        assert kinds["predict"] + kinds["compute"] >= 1, f"chapter {n}: {dict(kinds)}"


def test_correct_position_is_balanced_across_the_book():
    questions = all_questions()
    firsts = Counter(q.correct_indices[0] for _, q in questions)
    three_or_more = [q for _, q in questions if len(q.options) >= 3]
    total = len(three_or_more)
    for pos in range(3):
        share = sum(q.correct_indices[0] == pos for q in three_or_more) / total
        assert 0.2 <= share <= 0.47, (pos, share, firsts)


def test_correct_answer_cannot_be_guessed_from_length():
    questions = all_questions()
    longest = sum(len(q.options[q.correct_indices[0]].text) ==
                  max(len(o.text) for o in q.options) for _, q in questions)
    shortest = sum(len(q.options[q.correct_indices[0]].text) ==
                   min(len(o.text) for o in q.options) for _, q in questions)
    assert longest / len(questions) <= 0.4, f"correct option is the longest in {longest}"
    assert shortest / len(questions) <= 0.45, f"correct option is the shortest in {shortest}"


def test_feedback_markup_renders():
    for n, q in all_questions():
        for k in range(len(q.options)):
            html = q.feedback_html(k)
            visible = re.sub(r"<[^>]+>", "", html)
            assert "*" not in visible and "`" not in visible and "$" not in visible, (n, visible)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_no_answer_key_in_the_notebook(path: Path):
    nb = json.loads(path.read_text())
    sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    assert not any("quiz.option(" in s or "correct=" in s for s in sources)
    label = path.name.split("_")[0]  # "09", or "10b" for a chapter's second part
    call = f"quizzes.chapter({int(label)}" if label.isdigit() else f'quizzes.chapter("{label}"'
    assert sum(call in s for s in sources) == 1, "one quizzes.chapter(n) cell"


@pytest.mark.parametrize("number", [n for n in range(1, 13) if n != 10])  # ch10's needs the lab
def test_an_unrun_quiz_shows_its_questions_but_no_answer(number: int):
    q = quizzes.chapter(number)
    preview = q._repr_mimebundle_()["text/html"]
    assert "Run this cell to answer" in preview
    assert preview.count("<li>") == sum(len(x.options) for x in q.questions)
    assert "posenc-feedback" not in preview and "Correct." not in preview
    for x in q.questions:
        for o in x.options:
            assert o.feedback[:40] not in preview or o.feedback[:40] in x.prompt


@pytest.mark.parametrize("label, message", [("10c", "has no quiz"), ("x1", "chapter number"),
                                            ("10", "chapter number"), (0, "chapter number")])
def test_chapter_labels_are_checked(label, message):
    with pytest.raises(ValueError, match=message):
        quizzes.chapter(label)
