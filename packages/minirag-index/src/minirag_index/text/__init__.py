"""Text analysis shared by indexing and querying: folding, keyword terms, stop words, token
counts.

What other packages use is exported here.
"""

from minirag_index.text.folding import fold
from minirag_index.text.tokens import make_token_counter

__all__ = ["fold", "make_token_counter"]
