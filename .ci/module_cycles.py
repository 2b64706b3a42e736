#!/usr/bin/env python3
"""Checks stage2d's internal module dependency graph (one node per file under src/): no cycles, and the layers.

The layers are the folders of src/ (see LAYERS below and each folder's mod.rs): a module may use its own folder
and the folders its folder's entry names, nothing else. A use across layers that the table does not allow is a
violation, printed with the file, the line and the import.

An edge A -> B means A's code names module B through a `crate::`, `super::` or `self::` path (in `use`
statements, grouped ones included, or inline), or a child module by its bare name. Names re-exported by
src/lib.rs or a folder's mod.rs resolve to the file that defines them. `#[cfg(test)] mod` blocks, comments and
string literals are ignored; `mod child;` declarations are not edges; src/lib.rs is not a node.

Run from anywhere:  python3 .ci/module_cycles.py          (exit 1 and print the cycles and layer violations)
                    python3 .ci/module_cycles.py --dot    (the graph in Graphviz dot format)
"""
import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
# Comments and literals (block comments are assumed not nested; 'a' is a char literal, 'a a lifetime), or a word.
LEX = re.compile(r"""(?P<lit>//[^\n]*|/\*.*?\*/|b?r(?P<h>#*)".*?"(?P=h)|b?"(?:\\.|[^"\\])*"|b?'(?:\\.[^']*|[^\\'])')|\w+|.""",
                 re.S)
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
USE = re.compile(r"\b(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]*);")
INLINE = re.compile(r"(?<![\w:.])(?:crate|self|super)(?:::\w+)+")
CHILD_DECL = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.M)


# Which folders (layers) each folder of src/ may use, besides itself. The scene model, the assets' cache, shapes
# and text are CPU-only: they never reach the frame's phases, the GPU systems or the renderer. The GPU systems
# hold what they are told to hold: they never walk a scene or a frame. The frame's phases never call back into
# the renderer that owns them. A new folder must be added here before it is used.
LAYERS = {
    "base": set(),
    "graphics": {"base"},
    "text": {"base"},
    "filter": {"base"},
    "scene": {"base", "graphics", "text", "filter"},
    "assets": {"base", "scene", "text"},
    "gpu": {"base", "graphics", "text", "filter"},
    "frame": {"base", "graphics", "text", "filter", "scene", "assets", "gpu"},
    "renderer": {"base", "graphics", "text", "filter", "scene", "assets", "gpu", "frame"},
    "app": {"base", "graphics", "text", "filter", "scene", "assets", "gpu", "frame", "renderer"},
}


def blank(s):
    return re.sub(r"[^\n]", " ", s)


def strip_code(src):
    """Blanks out comments and string/char literals (newlines kept, so offsets and line numbers still hold)."""
    return LEX.sub(lambda m: blank(m.group(0)) if m.group("lit") else m.group(0), src)


def strip_test_mods(code):
    while m := TEST_MOD.search(code):
        depth, i = 1, m.end()
        while depth and i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        code = code[: m.start()] + blank(code[m.start() : i]) + code[i:]
    return code


def use_paths(tree):
    """`crate::{a, b::{C as D, self}}` -> [(['crate','a'], 'a'), (['crate','b','C'], 'D'), (['crate','b'], 'b')]."""
    toks = re.findall(r"\w+|::|[{},*]", tree)

    def parse(i, prefix):
        path = list(prefix)
        while True:
            t = toks[i]
            if t == "{":
                res, i = [], i + 1
                while toks[i] != "}":
                    sub, i = parse(i, path)
                    res += sub
                    i += toks[i] == ","
                return res, i + 1
            if t == "*":
                return [(path + ["*"], None)], i + 1
            if t != "::":
                path.append(t)
            i += 1
            if i < len(toks) and toks[i] == "::":
                i += 1
                continue
            if path[-1] == "self":
                path.pop()
            alias = path[-1] if path else None
            if i < len(toks) and toks[i] == "as":
                alias, i = toks[i + 1], i + 2
            return [(path, alias)], i

    return parse(0, [])[0] if toks else []


def module_of(f):
    parts = list(f.relative_to(SRC).with_suffix("").parts)
    return tuple(parts[:-1] if parts[-1] in ("mod", "lib") else parts)


def load():
    files = {module_of(f): f for f in sorted(SRC.rglob("*.rs"))}  # () is the crate root, src/lib.rs
    info, reexports = {}, {}
    for mod, f in files.items():
        code = strip_test_mods(strip_code(f.read_text()))
        children = set(CHILD_DECL.findall(code))
        info[mod] = (f, code, children)
        reexports[mod] = {}
        for m in USE.finditer(code):
            if m.group(1) and code[: m.start()].count("{") == code[: m.start()].count("}"):  # top-level pub use
                for path, alias in use_paths(m.group(2)):
                    if alias and path[-1] != "*":
                        reexports[mod][alias] = absolute(mod, path, children)
    return files, info, reexports


def absolute(mod, path, children):
    """A path as written in module `mod` -> an absolute module path, or None for an external crate."""
    if path[0] == "crate":
        return tuple(path[1:])
    if path[0] in ("self", "super") or path[0] in children:
        base = list(mod)
        while path and path[0] in ("self", "super"):
            base, path = (base[:-1] if path[0] == "super" else base), path[1:]
        return tuple(base) + tuple(path)
    return None


def resolve(path, files, reexports, depth=0):
    """The deepest module file a path names, following re-exports to the file that defines an item."""
    k = max(i for i in range(len(path) + 1) if path[:i] in files)
    target = reexports[path[:k]].get(path[k]) if k < len(path) else None
    if target is not None and depth < 16:
        return resolve(target + path[k + 1 :], files, reexports, depth + 1)
    return path[:k]


def build():
    files, info, reexports = load()
    edges = {}  # (from, to) -> [(file, line, text), ...]
    for mod, (f, code, children) in info.items():
        if mod == ():
            continue
        sites = []
        for m in USE.finditer(code):
            for path, _ in use_paths(m.group(2)):
                sites.append((m.start(), path, ("pub use " if m.group(1) else "use ") + "::".join(path)))
        code_wo_uses = USE.sub(lambda m: blank(m.group(0)), code)
        pattern = INLINE if not children else re.compile(
            INLINE.pattern + r"|(?<![\w:.])(?:%s)(?:::\w+)+" % "|".join(sorted(children)))
        for m in pattern.finditer(code_wo_uses):
            sites.append((m.start(), m.group(0).split("::"), m.group(0)))
        for pos, path, text in sites:
            path = path[:-1] if path[-1] == "*" else path
            abs_path = absolute(mod, path, children) if path else None
            if abs_path is None:
                continue
            target = resolve(abs_path, files, reexports)
            if target not in ((), mod):
                line = code.count("\n", 0, pos) + 1
                edges.setdefault((mod, target), []).append((f.relative_to(SRC.parent), line, text))
    return sorted(m for m in files if m), edges


def sccs(nodes, adj):
    """The strongly connected components with more than one module (by mutual reachability: the graph is small)."""
    reach = {}
    for v in nodes:
        seen, stack = set(), [v]
        while stack:
            for w in adj[stack.pop()]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        reach[v] = seen
    comps = [sorted(w for w in nodes if w in reach[v] and v in reach[w]) for v in nodes]
    return [c for i, c in enumerate(comps) if len(c) > 1 and c not in comps[:i]]


def cycle_in(comp, adj):
    """A shortest cycle through the component's first module (BFS inside the component)."""
    start, members = comp[0], set(comp)
    prev, queue = {}, [start]
    for v in queue:
        for w in adj[v]:
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)


def layer_violations(nodes, edges):
    """(from, to, sites) for each use that crosses layers against LAYERS; a module outside any known layer is one
    too (its folder must be given a row)."""
    bad = []
    for mod in nodes:
        if mod[0] not in LAYERS:
            bad.append((mod, None, []))
    for (u, w), sites in sorted(edges.items()):
        lu, lw = u[0], w[0]
        if lu != lw and lu in LAYERS and lw not in LAYERS[lu]:
            bad.append((u, w, sites))
    return bad


def main():
    nodes, edges = build()
    name = "::".join
    adj = {v: sorted(w for (u, w) in edges if u == v) for v in nodes}
    comps = sccs(nodes, adj)
    if "--dot" in sys.argv[1:]:
        in_cycle = {v: i for i, c in enumerate(comps) for v in c}
        print("digraph modules {\n  node [shape=box];")
        for v in nodes:
            print(f'  "{name(v)}"' + (" [color=red]" if v in in_cycle else "") + ";")
        for (u, w) in sorted(edges):
            red = u in in_cycle and in_cycle.get(u) == in_cycle.get(w)
            print(f'  "{name(u)}" -> "{name(w)}"' + (" [color=red]" if red else "") + ";")
        print("}")
        return 0
    bad = layer_violations(nodes, edges)
    for u, w, sites in bad:
        if w is None:
            print(f"layers: src/{'/'.join(u)} is in no layer: give its folder a row in LAYERS (.ci/module_cycles.py)")
            continue
        allowed = ", ".join(sorted(LAYERS[u[0]])) or "nothing else"
        for f, line, text in sites:
            print(f"layers: {f}:{line} {text}: {u[0]}/ may not use {w[0]}/ ({name(w)}); it may use {allowed}")
    if bad:
        print(f"{len(bad)} layer violation(s); the layers are in LAYERS (.ci/module_cycles.py) and each folder's mod.rs")
    if not comps:
        print(f"no module cycles ({len(nodes)} modules, {len(edges)} edges)")
        return 1 if bad else 0
    print(f"{len(comps)} module cycle(s) ({len(nodes)} modules, {len(edges)} edges):")
    for i, comp in enumerate(comps, 1):
        print(f"\ncycle {i}: strongly connected component {{{', '.join(map(name, comp))}}}")
        path = cycle_in(comp, adj)
        for u, w in zip(path, path[1:]):
            f, line, text = edges[(u, w)][0]
            more = len(edges[(u, w)]) - 1
            print(f"  {name(u)} -> {name(w)} ({f}:{line} {text})" + (f" [+{more} more]" if more else ""))
    return 1


if __name__ == "__main__":
    sys.exit(main())
