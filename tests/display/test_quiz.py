"""posenc_lib.display.quiz: a question's widget links each choice to its feedback, the quiz's
text form, inline markup, and validation."""

from __future__ import annotations

import ipywidgets as widgets
import pytest
from ipywidgets.widgets.widget import _instances as live_widgets
from ipywidgets.widgets.widget_link import Link

from posenc_lib.display import quiz


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


def test_inline_markup():
    assert quiz.inline_html("the *score*, `w < 2`") == \
        "the <em>score</em>, <code>w &lt; 2</code>"
    with pytest.raises(ValueError, match="maths"):
        quiz.option("A", True, "costs $x$")
    with pytest.raises(ValueError, match="plain text"):
        quiz.option("*A*", True, "because")
    with pytest.raises(ValueError, match="unbalanced"):
        quiz.option("A", True, "an *unclosed emphasis")
