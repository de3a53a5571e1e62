"""Long ordered lists of regular expressions (Matomo's devices, isbot's and crawlerdetect's
bots) searched in one pass by the Rust regex engine that ua-parser already ships
(ua-parser-rs), with the answer a loop of Python `regex` searches would give.

Rust's engine has no lookarounds, so a pattern is compiled there without them: a
superset, confirmed by the Python pattern when it is the one that matched.
"""

from __future__ import annotations

from collections.abc import Sequence

import regex
import ua_parser_rs

_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def without_lookarounds(pattern: str) -> str:
    """The pattern with its lookaround groups left out: it matches wherever the pattern
    does (and sometimes where it does not)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith(_LOOKAROUND, i):
            i = _group_end(pattern, i)
            continue
        step = 2 if pattern[i] == "\\" else 1
        if pattern[i] == "[":
            step = _class_end(pattern, i) - i
        out.append(pattern[i : i + step])
        i += step
    return "".join(out)


def _class_end(pattern: str, start: int) -> int:
    """The index after the character class opened at `start`."""
    i = start + 1
    if pattern.startswith("^", i):
        i += 1
    if pattern.startswith("]", i):
        i += 1  # a "]" first is a literal
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i + 1


def _group_end(pattern: str, start: int) -> int:
    """The index after the group opened at `start`."""
    depth, i = 0, start
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            i = _class_end(pattern, i)
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def _compiles(pattern: str) -> bool:
    try:
        ua_parser_rs.DeviceExtractor([(pattern, "i", "0", None, None)])
    except Exception:  # ua-parser-rs raises SyntaxError or ValueError by the kind of error
        return False
    return True


class _Run:
    """Patterns in one Rust extractor, each answering the index it is given."""

    def __init__(self, patterns: Sequence[tuple[int, str]]) -> None:
        self._extractor = ua_parser_rs.DeviceExtractor(
            [(pattern, "i", str(index), None, None) for index, pattern in patterns]
        )

    def first_match(self, text: str) -> int | None:
        found = self._extractor.extract(text)
        return None if found is None else int(found.family)


def _exact_run(patterns: Sequence[str]) -> tuple[_Run, list[int]]:
    """A run of the patterns Rust compiles as they are, and the indexes of the others."""
    whole = [n for n, pattern in enumerate(patterns) if without_lookarounds(pattern) == pattern]
    try:
        run = _Run([(n, patterns[n]) for n in whole])
    except Exception:  # ua-parser-rs raises SyntaxError or ValueError: find the culprits
        whole = [n for n in whole if _compiles(patterns[n])]
        run = _Run([(n, patterns[n]) for n in whole])
    return run, sorted(set(range(len(patterns))) - set(whole))


class OrderedPatterns:
    """Case-insensitive patterns in order: which is the first to match a text, as
    `next(i for i, p in enumerate(patterns) if regex.search(p, text, regex.I))` says.

    The patterns Rust compiles (all but a few with lookarounds) are searched in one
    pass there, in microseconds. The others are searched there without their
    lookarounds, and in Python only when that finds them before Rust's answer. Built
    in about 1 ms a pattern, once per container."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self._exact, others = _exact_run(patterns)
        self._patterns = patterns
        self._supersets = {n: AnyPattern([patterns[n]]) for n in others}
        self._superset_first = _Run([(n, without_lookarounds(patterns[n])) for n in others])
        self._python = {n: regex.compile(patterns[n], regex.IGNORECASE) for n in others}

    def __len__(self) -> int:
        return len(self._patterns)

    def first(self, text: str) -> int | None:
        """The index of the first pattern that matches `text`, None if none does."""
        found = self._exact.first_match(text)
        candidate = self._superset_first.first_match(text)
        while candidate is not None and (found is None or candidate < found):
            if self._python[candidate].search(text):
                return candidate
            candidate = next(
                (
                    n
                    for n, superset in self._supersets.items()
                    if n > candidate and superset.could_match(text)
                ),
                None,
            )
        return found


class AnyPattern:
    """Whether some of many case-insensitive patterns could match a text: never False
    where one does (Rust searches them without their lookarounds), so a False spares
    the Python search."""

    def __init__(self, patterns: Sequence[str]) -> None:
        rust = [without_lookarounds(pattern) for pattern in patterns]
        try:
            self._run = _Run(list(enumerate(rust)))
        except Exception:  # one Rust rejects even so: it is searched as matching anything
            self._run = _Run([(n, p if _compiles(p) else "") for n, p in enumerate(rust)])

    def could_match(self, text: str) -> bool:
        """False only when no pattern matches `text`."""
        return self._run.first_match(text) is not None
