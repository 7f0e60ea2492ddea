"""The book's machinery: explorers, plotting style, quizzes, glued numbers, source listings."""
