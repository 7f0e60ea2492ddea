"""Course content: the catalogue of methods, toy data, figures, exercises and quizzes."""
