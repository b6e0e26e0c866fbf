"""The files of the corpus: walking the roots, opening them safely, their names and state."""
