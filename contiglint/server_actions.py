"""The language server's code actions: one per fix (safe ones are preferred quick fixes, unsafe
ones say so), "fix all" (`source.fixAll.contiglint`, safe fixes; unsafe ones too as a second
action, its edit made when the client resolves it) and "add noqa" for each finding. A mixin of
`ContiglintServer` (server.py), which gives the conversions to the client's positions."""
from __future__ import annotations

import bisect
import os
from typing import TYPE_CHECKING, Optional
from urllib.parse import unquote, urlparse

from lsprotocol import types

from contiglint import noqa
from contiglint.engine import fix_source
from contiglint.findings import Edit, Finding, Fix, Position, line_starts

if TYPE_CHECKING:
    from contiglint.server import Linted

FIX_ALL = f"{types.CodeActionKind.SourceFixAll.value}.contiglint"


class CodeActions:
    def code_actions(self, uri: str, linted: Linted,
                     params: types.CodeActionParams) -> list[types.CodeAction]:
        wanted = params.context.only
        actions: list[types.CodeAction] = []
        diagnostics = self.diagnostics(uri, linted)
        quick = not wanted or any(kind.startswith(types.CodeActionKind.QuickFix)
                                  for kind in wanted)
        for finding, diagnostic in zip(linted.result.findings,
                                       diagnostics[len(linted.result.errors):]):
            if not quick or not overlaps(diagnostic.range, params.range):
                continue
            if finding.fix is not None and finding.fix.edits:
                actions.append(self.fix_action(uri, linted, finding, finding.fix, diagnostic))
            if (action := self.noqa_action(uri, linted, finding, diagnostic)) is not None:
                actions.append(action)
        # Fixing a whole file costs several lints: offered when asked for by kind, or when
        # the client resolves the edit only if the action is chosen.
        if any(FIX_ALL.startswith(kind) or kind.startswith(FIX_ALL) for kind in wanted or ()) \
                or not wanted and self.resolves_edits():
            actions.extend(self.fix_all_actions(uri, linted))
        return actions

    def fix_action(self, uri: str, linted: Linted, finding: Finding, fix: Fix,
                   diagnostic: types.Diagnostic) -> types.CodeAction:
        safe = fix.safety == "safe"
        title = f"{fix.description or 'fix'} ({finding.code})" + ("" if safe else " [unsafe]")
        return types.CodeAction(
            title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            is_preferred=safe,
            edit=self.workspace_edit(uri, linted, self.text_edits(uri, linted, fix.edits)))

    def noqa_action(self, uri: str, linted: Linted, finding: Finding,
                    diagnostic: types.Diagnostic) -> Optional[types.CodeAction]:
        edit = noqa.suppression_edit(linted.text, finding)
        if edit is None:
            return None
        return types.CodeAction(
            title=f"Add `# noqa: {finding.code}` to line {edit.start.line}",
            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic],
            edit=self.workspace_edit(uri, linted, self.text_edits(uri, linted, [edit])))

    def fix_all_actions(self, uri: str, linted: Linted) -> list[types.CodeAction]:
        """Fix all safe fixes, and all fixes; the edit is made when the client resolves the
        action (if it can), since fixing a whole file costs several lints."""
        actions = []
        safe = sum(1 for f in linted.result.findings if f.fix and f.fix.safety == "safe")
        fixable = sum(1 for f in linted.result.findings if f.fix and f.fix.offered)
        for unsafe, count in ((False, safe), (True, fixable)):
            if not count or unsafe and fixable == safe:
                continue
            action = types.CodeAction(
                title="contiglint: fix all" + (" (unsafe fixes included)" if unsafe else
                                               " (safe fixes)"),
                kind=FIX_ALL + (".unsafe" if unsafe else ""),
                data={"uri": uri, "version": linted.version, "unsafe": unsafe})
            actions.append(action if self.resolves_edits() else self.resolve(action, linted))
        return actions

    def resolves_edits(self) -> bool:
        capabilities = self.client_capabilities.text_document
        action = capabilities.code_action if capabilities else None
        support = action.resolve_support if action else None
        return support is not None and "edit" in support.properties

    def resolve(self, action: types.CodeAction, linted: Linted) -> types.CodeAction:
        uri = action.data["uri"]
        fixed = fix_source(linted.text, uri_to_path(uri), linted.settings,
                           unsafe=bool(action.data["unsafe"]))
        edits = [] if fixed.text == linted.text else [whole_text_edit(linted.text, fixed.text)]
        action.edit = self.workspace_edit(uri, linted, self.text_edits(uri, linted, edits))
        return action


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def whole_text_edit(old: str, new: str) -> Edit:
    """One edit covering the text that differs (a fix-all result)."""
    starts = line_starts(old)
    first = 0
    while first < min(len(old), len(new)) and old[first] == new[first]:
        first += 1
    last = 0
    while last < min(len(old), len(new)) - first and old[-1 - last] == new[-1 - last]:
        last += 1

    def position(offset: int) -> Position:
        line = bisect.bisect_right(starts, offset)
        return Position(line, offset - starts[line - 1] + 1)

    return Edit(position(first), position(len(old) - last), new[first:len(new) - last])


def uri_to_path(uri: str) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return os.path.join(os.getcwd(), "untitled.py")  # unsaved buffer: the cwd's config
    path = unquote(parsed.path)
    if os.name == "nt" and path.startswith("/"):
        path = path[1:]
    return path
