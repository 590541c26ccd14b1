"""The prefilter: can any enabled rule fire on a text? Looked for before the text is parsed
(`may_have_findings`, and `lint_source` before its parse), and once parsed, before the flow pass
(`only_outside_code`, `Rule.may_fire`). Each rule names the substrings its sinks are spelled
with (`Rule.prefilter_tokens`); a text holding none of the enabled rules' is not analysed, nor
parsed for them, and neither is one where each rule that holds its tokens rules itself out
from the text (`Rule.may_fire_text`).
"""
from __future__ import annotations

import keyword
import unicodedata
from dataclasses import dataclass
from typing import Optional

from contiglint.layout.syntax.index import ModuleIndex
from contiglint.layout.syntax.text import Text
from contiglint.rules import enabled_rules
from contiglint.rules.base import Rule
from contiglint.settings import Settings


def per_rule_set(table: dict, rules: list[Rule], make):
    """`make(rules)`, remembered in `table` per set of rule classes: every file of a run asks."""
    key = tuple(type(rule) for rule in rules)
    try:
        return table[key]
    except KeyError:
        made = table[key] = make(rules)
        return made


def prefilter_tokens(settings: Settings) -> frozenset[str]:
    """Substrings of which a file must contain at least one for any enabled rule to fire."""
    return rule_tokens(enabled_rules(settings))


@dataclass(frozen=True)
class Tokens:
    """The prefilter tokens of a set of rules, each once (several rules share `.contiguous(`):
    `words` are those a comment or a string may hold without the code naming them
    (`distributed`, see `only_outside_code`); `code` are the others (`.view(`, a keyword),
    which make the text analysed wherever they are."""

    all: frozenset[str]
    code: tuple[str, ...]
    words: tuple[str, ...]


_RULE_TOKENS: dict[tuple[type, ...], Tokens] = {}


def rule_tokens(rules: list[Rule]) -> frozenset[str]:
    return token_kinds(rules).all


def token_kinds(rules: list[Rule]) -> Tokens:
    """The prefilter tokens of `rules`, each once."""
    return per_rule_set(_RULE_TOKENS, rules, _token_kinds)


def _token_kinds(rules: list[Rule]) -> Tokens:
    tokens = sorted({token for rule in rules for token in tokens_of(rule)})
    return Tokens(frozenset(tokens), tuple(t for t in tokens if not _is_word(t)),
                  tuple(t for t in tokens if _is_word(t)))


def _is_word(token: str) -> bool:
    return token.isidentifier() and not keyword.iskeyword(token)


def live_tokens(rules: list[Rule], searched: str, text: Text,
                settings: Settings) -> tuple[Optional[set[str]], bool]:
    """The prefilter tokens found in the text of the rules that may fire on it (None: one
    that is not a word, which is in the code: see `only_outside_code`), and whether any
    may: a rule may where the text holds one of its tokens and its look at the text
    (`Rule.may_fire_text`) does not rule out what its look at the syntax asks for. A token
    that is not a word makes the text analysed whatever else it holds: the rules that take
    the text as it is are asked first, and the first such token ends the look."""
    found: set[str] = set()
    for rule, words, code in per_rule_set(_BY_COST, rules, _by_cost):
        held = [token for token in words if token in searched]
        in_code = any(token in searched for token in code)
        if (held or in_code) and rule.may_fire_text(text, settings):
            if in_code:
                return None, True
            found.update(held)
    return found, bool(found)


_BY_COST: dict[tuple[type, ...], list] = {}


def _by_cost(rules: list[Rule]) -> list[tuple[type[Rule], tuple[str, ...], tuple[str, ...]]]:
    """Each rule's class (`may_fire_text` reads no instance) with its word and other tokens,
    those that take the text as it is first (see `live_tokens`)."""
    def looks(rule: Rule) -> bool:
        return type(rule).may_fire_text.__func__ is not Rule.may_fire_text.__func__ or \
            rule.names is not None

    return [(type(rule), token_kinds([rule]).words, token_kinds([rule]).code)
            for rule in sorted(rules, key=looks)]


def may_have_findings(text: str, settings: Settings) -> bool:
    searched = as_python_reads(text)
    return any(token in searched for token in prefilter_tokens(settings))


_TOKENS_OF: dict[type, frozenset[str]] = {}


def tokens_of(rule: Rule) -> frozenset[str]:
    try:
        return _TOKENS_OF[type(rule)]
    except KeyError:
        tokens = _TOKENS_OF[type(rule)] = rule.prefilter_tokens()
        return tokens


def as_python_reads(text: str) -> str:
    """The text the prefilter searches: Python reads every identifier in its NFKC form
    (`x.\uff43ontiguous()` calls `contiguous`), so a text with characters of other forms is
    searched as NFKC normalizes it. Keywords and operators are not normalized, and a token
    found in a normalized string or comment only makes the text analysed."""
    if text.isascii() or unicodedata.is_normalized("NFKC", text):
        return text
    return unicodedata.normalize("NFKC", text)


def holds_tokens(rule: Rule, text: str) -> bool:
    """Does `text` hold one of `rule`'s own prefilter tokens?"""
    return any(token in text for token in tokens_of(rule))


def only_outside_code(index: ModuleIndex, found: set[str]) -> bool:
    """The prefilter tokens `found` in the text are all words, none of them in a name of the
    code: they are in comments and strings only (`distributed` in a license header), and no rule
    can fire. A sink is an operation the code names (a method, a function by its qualified
    name through the imports, a module attribute), so a word token of its kind is in one of
    the code's names, or part of one. Tokens that are not names (`.view`, `](`) or that are
    keywords (`import`, `return`) are taken as found, as before."""
    if not all(map(_is_word, found)):
        return False
    return not any(token in name for name in index.names for token in found)
