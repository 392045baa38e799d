"""Text an agent process sends is made safe where it enters pibench (issue 25 §2), even when
agent code escaped the first layer and writes raw protocol lines itself (found by a QA tester:
a raw ``out`` message carried a lone surrogate and a NUL straight into the ``--jsonl`` reply,
where honest code's ``print(chr(0xd800))`` gives a replacement character)."""

from __future__ import annotations

import json

from pibench_tui.sandbox import Sandbox

#: Agent code that escapes the first layer (possible only with the test-only
#: ``static_check=False``) and writes raw protocol lines to the parent.
RAW_LINES = (
    "def _real(name):\n"
    "    for c in ().__class__.__base__.__subclasses__():\n"
    "        if c.__name__ == '_wrap_close':\n"
    "            return c.__init__.__globals__['sys'].modules[name]\n"
    "os = _real('os')\n"
    'os.write(1, b\'{"t":"out","s":"A\\\\ud800B\\\\u0000C"}\\n\')\n'
)


def test_raw_output_messages_are_made_safe_in_the_parent():
    """The raw message's text reaches the block's output, and what the front end streams as
    it arrives (``on_output``, which ``headless --jsonl`` and the TUI console show), with
    U+FFFD for the lone surrogate and the NUL: encodable as UTF-8 and as strict JSON;
    before, both passed through to the stream."""
    streamed: list[str] = []
    with Sandbox(lambda ns, m, a, k: {"month": 1}, {}, block_timeout=10, static_check=False) as sb:
        result = sb.run(RAW_LINES, on_output=streamed.append)
    for text in (result.stdout, "".join(streamed)):
        assert "A\ufffdB\ufffdC" in text, (result, streamed)
        text.encode("utf-8")  # a lone surrogate would raise UnicodeEncodeError
        assert "\x00" not in json.dumps(text, ensure_ascii=False)
