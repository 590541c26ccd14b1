"""Sinks: places where a tensor's layout matters. (Being written; API is stable.)"""
from __future__ import annotations


def tokens_for(kinds) -> frozenset[str]:
    return frozenset({".view("})
