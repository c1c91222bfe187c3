#!/usr/bin/env python3
"""Lists the import circles between the modules of each crate: groups of modules that each
reach the others through `use crate::…`, `super::…` or an inline `crate::…` path.

A module's own submodules and ancestors are left out of its edges (a parent declares its
children and a child may name `super::`: that is nesting, not a circle). Test modules
(`#[cfg(test)] mod tests { … }` to the end of the file) and comments are ignored.

Usage: scripts/module_cycles.py [CRATE_DIR …]   (default: core functions infra)
Prints each circle as its modules; exits 0 whatever it finds (a report, not a gate yet).
"""
import re
import sys
from pathlib import Path

PATH = re.compile(r"\b(crate|super)((?:::[a-z_][a-z0-9_]*)+)")
USE_GROUP = re.compile(r"\buse\s+(crate|super)((?:::[a-z_][a-z0-9_]*)*)::\{([^;]*)\}", re.S)


def module_of(src: Path, file: Path) -> tuple:
    rel = file.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts in (["lib"], ["main"]):
        return ()
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def strip(text: str) -> str:
    text = re.sub(r"//[^\n]*", "", text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+tests\b", text)
    return text[: cut.start()] if cut else text


def resolve(me: tuple, root: str, rest: list, modules: set, is_dir: bool) -> tuple:
    if root == "crate":
        base = []
    else:
        # `super` from a file module is its parent; from a `mod.rs` directory module, the same.
        base = list(me[:-1])
        while rest and rest[0] == "super":
            rest = rest[1:]
            base = base[:-1]
    path = base + rest
    # The longest prefix that is a module: the rest names items in it.
    for n in range(len(path), -1, -1):
        if tuple(path[:n]) in modules:
            return tuple(path[:n])
    return ()


def edges_of(src: Path):
    files = {module_of(src, f): f for f in src.rglob("*.rs") if "bin" not in f.relative_to(src).parts}
    modules = set(files)
    graph = {m: set() for m in modules}
    for me, file in files.items():
        text = strip(file.read_text())
        refs = []
        for root, group, inner in USE_GROUP.findall(text):
            prefix = [p for p in group.split("::") if p]
            for item in re.split(r",", inner):
                item = item.strip().split(" as ")[0].split("::{")[0]
                names = [p for p in item.split("::") if p and p != "self"]
                refs.append((root, prefix + names))
        for root, rest in PATH.findall(text):
            refs.append((root, [p for p in rest.split("::") if p]))
        for root, rest in refs:
            target = resolve(me, root, rest, modules, file.name == "mod.rs")
            nested = target[: len(me)] == me or me[: len(target)] == target
            if not nested:
                graph[me].add(target)
    return graph


def circles(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(m):
    return "::".join(m) or "crate"


def main():
    crates = sys.argv[1:] or ["core", "functions", "infra"]
    total = 0
    for crate in crates:
        graph = edges_of(Path(crate) / "src")
        found = circles(graph)
        total += len(found)
        print(f"{crate}: {len(graph)} modules, {sum(map(len, graph.values()))} edges, {len(found)} circles")
        for group in found:
            print("   " + " ↔ ".join(name(m) for m in group))
    print(f"{total} circles in all")


if __name__ == "__main__":
    main()
