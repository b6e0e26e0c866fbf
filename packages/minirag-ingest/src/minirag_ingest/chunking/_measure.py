"""Token accounting for one document: what a span or a context line costs, counted once and
cached, and the context lines (breadcrumbs, table headers) fitted to the chunk budget."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ._model import CODE_SPLIT_MARKER

if TYPE_CHECKING:
    from ._units import SectionPlan

# Beyond this many characters per token nothing natural fits: not worth counting whole.
SKIP_COUNT_CHARS_PER_TOKEN = 12


class Measure:
    """What text of one document costs in tokens (each piece counted once, cached), and the
    context lines of its chunks fitted to the budget."""

    def __init__(
        self,
        doc: str,
        count_tokens: Callable[[str], int],
        budget: int,
    ) -> None:
        self.doc = doc
        self.count = count_tokens
        self.budget = budget
        self.overhead = count_tokens("")
        self.max_ctx = budget // 3  # a breadcrumb, label or header row on its own
        self._costs: dict[str, int] = {}
        self._contexts: dict[tuple[str, str], str] = {}
        self._next_group = 0
        self._seen_chars = 0
        self._seen_tokens = 0

    def cost(self, text: str) -> int:
        """Content tokens of ``text`` (special tokens excluded), cached."""
        if not text:
            return 0
        cached = self._costs.get(text)
        if cached is None:
            cached = max(0, self.count(text) - self.overhead)
            self._costs[text] = cached
        return cached

    def tokens(self, start: int, end: int) -> int:
        tokens = max(0, self.count(self.doc[start:end]) - self.overhead)
        self._seen_chars += end - start
        self._seen_tokens += tokens
        return tokens

    def chars_per_token(self) -> float:
        """This document's characters per token so far (starting from a typical 4)."""
        return (self._seen_chars + 4000) / (self._seen_tokens + 1000)

    def new_group(self) -> int:
        self._next_group += 1
        return self._next_group

    def fit_line(self, text: str, limit: int | None = None) -> str:
        """``text`` as a context line of at most ``limit`` tokens, shortened word by word."""
        limit = self.max_ctx if limit is None else limit
        text = " ".join(text.split())
        if not text:
            return ""
        if self.cost(text + "\n") <= limit:
            return text + "\n"
        words = text.split(" ")
        low, high = 0, len(words) - 1  # binary search on how many words to keep
        best = ""
        while low <= high:
            middle = (low + high) // 2
            candidate = " ".join(words[: middle + 1]) + " …\n"
            if middle >= 0 and self.cost(candidate) <= limit:
                best = candidate
                low = middle + 1
            else:
                high = middle - 1
        return best

    def breadcrumb(self, titles: list[str]) -> str:
        """Heading titles joined with " > ", elided in the middle to stay within max_ctx."""
        parts = [t for t in (" ".join(t.split()) for t in titles) if t]
        if not parts:
            return ""
        full = " > ".join(parts) + "\n"
        if self.cost(full) <= self.max_ctx:
            return full
        for keep in range(len(parts) - 2, 0, -1):
            candidate = " > ".join([parts[0], "…", *parts[-keep:]]) + "\n"
            if self.cost(candidate) <= self.max_ctx:
                return candidate
        return self.fit_line("… > " + parts[-1])

    def heading_context(self, opening: str, headings: str, titles: list[str]) -> str:
        """The context of a heading section's later chunks: the section's opening context and
        its heading lines as written (``headings``, up to its first text), so that a chunk reads
        the same whether it opens the section (the headings then in its body) or follows on;
        the breadcrumb of ``titles`` when that would take more than max_ctx, or more characters
        than max_ctx tokens of natural text (blank lines cost no tokens, and every later chunk
        would carry them)."""
        exact = opening + headings
        fits = len(exact) <= self.max_ctx * SKIP_COUNT_CHARS_PER_TOKEN
        if headings and fits and self.cost(exact) <= self.max_ctx:
            return exact
        return self.breadcrumb(titles)

    def table_lead(self, header_start: int, header_end: int) -> str:
        """The header row repeated above table rows, shortened if it would crowd them out."""
        header = self.doc[header_start:header_end]
        lines = header.split("\n")
        exact = "\n".join(line.rstrip("\r").strip() for line in lines) + "\n"
        if self.cost(exact) <= self.max_ctx:
            return exact
        head = lines[0].strip()
        columns = max(1, head.strip("|").count("|") + 1)
        compact = head + "\n|" + "-|" * columns + "\n"
        if self.cost(compact) <= self.max_ctx:
            return compact
        return self.fit_line(head)

    def context(self, section_ctx: str, lead: str) -> str:
        """The context a chunk gets: the section's, plus what its first atom needs."""
        key = (section_ctx, lead)
        cached = self._contexts.get(key)
        if cached is not None:
            return cached
        # Each part was fitted to its own third of the budget, so together they leave a third
        # for the body; only the mandatory split-code marker may push the section's out.
        combined = section_ctx + lead
        if self.cost(combined) > 2 * self.max_ctx:
            combined = lead if lead == CODE_SPLIT_MARKER + "\n" else section_ctx
        self._contexts[key] = combined
        return combined

    def avail(self, plan: SectionPlan, lead: str) -> int:
        """Tokens left for a chunk's body once its context (the section's and ``lead``) is in."""
        worst = max(
            self.cost(self.context(plan.ctx_first, lead)),
            self.cost(self.context(plan.ctx_rest, lead)),
        )
        return max(1, self.budget - self.overhead - worst)
