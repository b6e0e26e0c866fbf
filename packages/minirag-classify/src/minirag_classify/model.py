"""The choice model: one forward pass per question, probabilities read off the next token.

The question goes to the model as a closed choice. The evidence is the document's file name
(introduced by ``file_name_label``) and its first part; each option is lettered A, B, C… and
carries its id and description; the model is told to answer with the letter alone. Nothing is
generated: after evaluating the prompt, the logits the model gives each option letter as the
next token are turned into probabilities by a softmax over those letters only, scaled by the
model's calibration temperature (p ∝ exp(logit / T)). The same prompt gives the same numbers.
"""

from __future__ import annotations

import gc
import json
import math
import string
from collections.abc import Sequence
from pathlib import Path
from typing import Any

LETTERS = string.ascii_uppercase[:16]
N_CTX = 4096
_RESERVE = 8  # tokens kept free after the prompt
SYSTEM = (
    "Read the evidence and apply the criterion to it. Pick exactly one of the listed options "
    "and reply with its capital letter only, without any explanation."
)


def calibrated(logits: Sequence[float], temperature: float) -> list[float]:
    """Softmax of ``logits / temperature`` (over these values only), computed stably."""
    if not temperature > 0 or not math.isfinite(temperature):
        raise ValueError(f"temperature must be a positive number, got {temperature}")
    values = [float(v) for v in logits]
    if not values or not all(math.isfinite(v) for v in values):
        raise ValueError("the model gave no finite score for the option letters")
    top = max(values)
    weights = [math.exp((v - top) / temperature) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def user_message(
    question: str,
    options: Sequence[tuple[str, str]],
    document_head: str,
    file_name: str | None,
    file_name_label: str,
) -> str:
    evidence = document_head
    if file_name:
        evidence = f"{file_name_label}: {file_name}\n\n{document_head}"
    payload = {
        "evidence": evidence,
        "criterion": question,
        "options": [
            {"letter": LETTERS[i], "description": f"{option_id}: {description}"}
            for i, (option_id, description) in enumerate(options)
        ],
    }
    return json.dumps(payload, ensure_ascii=False)


class LlamaChoiceModel:
    """A GGUF model loaded with llama.cpp, answering closed questions."""

    def __init__(
        self,
        model_path: Path,
        *,
        temperature: float,
        file_name_label: str = "File name",
        n_ctx: int = N_CTX,
        n_threads: int | None = None,
    ):
        from llama_cpp import Llama  # the [classify] extra; imported only when loading

        self.path = Path(model_path)
        if not self.path.is_file():
            raise FileNotFoundError(f"the classify model file is not there: {self.path}")
        self.temperature = temperature
        self.file_name_label = file_name_label
        self._llm: Any = Llama(
            model_path=str(self.path),
            n_ctx=n_ctx,
            n_threads=n_threads,
            logits_all=False,
            verbose=False,
        )
        self._template = self._chat_template()
        self._letter_ids = self._letter_tokens(" " if self._template is None else "")

    # -- prompt --------------------------------------------------------------------------
    def _chat_template(self) -> Any:
        text = (self._llm.metadata or {}).get("tokenizer.chat_template")
        if not text:
            return None
        try:
            from jinja2.sandbox import ImmutableSandboxedEnvironment

            def raise_exception(message: str) -> None:
                raise ValueError(message)

            env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
            env.globals["raise_exception"] = raise_exception
            template = env.from_string(text)
            self._render(template, "probe")
            return template
        except Exception:  # an unusual template: fall back to a plain prompt
            return None

    def _render(self, template: Any, user: str) -> str:
        model = self._llm._model
        return template.render(
            messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
            add_generation_prompt=True,
            enable_thinking=False,
            bos_token=model.token_get_text(self._llm.token_bos()),
            eos_token=model.token_get_text(self._llm.token_eos()),
        )

    def _letter_tokens(self, prefix: str) -> list[int]:
        ids = []
        for letter in LETTERS:
            tokens = self._llm.tokenize((prefix + letter).encode(), add_bos=False, special=False)
            if len(tokens) != 1 and prefix:
                tokens = self._llm.tokenize(letter.encode(), add_bos=False, special=False)
            ids.append(tokens[-1])
        if len(set(ids)) != len(ids):
            raise RuntimeError("this model's tokenizer does not give each option letter a token")
        return ids

    def prompt_tokens(self, user: str) -> list[int]:
        if self._template is not None:
            text = self._render(self._template, user)
            tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            bos = self._llm.token_bos()
            if bos >= 0 and (not tokens or tokens[0] != bos) and self._adds_bos():
                tokens = [bos, *tokens]
            return tokens
        text = f"{SYSTEM}\n\n{user}\n\nAnswer:"
        return self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)

    def _adds_bos(self) -> bool:
        flag = str((self._llm.metadata or {}).get("tokenizer.ggml.add_bos_token", "")).lower()
        return flag == "true"

    # -- answering -----------------------------------------------------------------------
    def ask(
        self,
        question: str,
        options: Sequence[tuple[str, str]],
        document_head: str,
        file_name: str | None,
    ) -> dict[str, float]:
        if self._llm is None:
            raise RuntimeError("the classify model was released")
        if not 1 <= len(options) <= len(LETTERS):
            raise ValueError(f"a question takes 1 to {len(LETTERS)} options")
        head = document_head
        limit = self._llm.n_ctx() - _RESERVE
        while True:
            user = user_message(question, options, head, file_name, self.file_name_label)
            tokens = self.prompt_tokens(user)
            if len(tokens) <= limit:
                break
            if not head:
                raise ValueError("the question and its options alone exceed the model's context")
            head = head[: len(head) * 2 // 3]
        logits = self._next_token_logits(tokens)
        scores = [float(logits[self._letter_ids[i]]) for i in range(len(options))]
        probabilities = calibrated(scores, self.temperature)
        return {option_id: p for (option_id, _), p in zip(options, probabilities, strict=True)}

    def _next_token_logits(self, tokens: list[int]) -> Any:
        import llama_cpp
        import numpy as np

        llm = self._llm
        llm.reset()  # a fresh context each time: the answer depends on this prompt only
        llm.eval(tokens)
        row = llama_cpp.llama_get_logits_ith(llm.ctx, -1)
        return np.ctypeslib.as_array(row, shape=(llm.n_vocab(),)).copy()

    def close(self) -> None:
        llm, self._llm = self._llm, None
        if llm is not None:
            try:
                llm.close()
            finally:
                del llm
                gc.collect()

    @property
    def closed(self) -> bool:
        return self._llm is None
