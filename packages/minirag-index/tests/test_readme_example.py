"""The README's example runs as written against the test model folder."""

import re
from pathlib import Path

README = Path(__file__).parents[1] / "README.md"


def test_readme_example_runs(model_dir, monkeypatch, capsys):
    code = re.search(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S).group(1)
    monkeypatch.setenv("MODEL_NAME", str(model_dir))
    exec(compile(code, str(README), "exec"), {})
    out = capsys.readouterr().out
    assert "handbook/errors.md#0" in out.splitlines()[0]
    assert "ERR-4711 means the export timed out." in out
