"""The maths of each encoding: numpy functions, one module per concept family."""
