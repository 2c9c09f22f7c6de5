"""Resolve a short Python cross-reference to the documented object that the code means by it.

The docstrings of the toolkit write references the way the code reads them: ``:class:`ModelError```
inside :mod:`pufferfish.models.numbers` means :class:`pufferfish.models.errors.ModelError`, which
that module imports, and ``:meth:`support``` inside a prior's method means the ``support`` method
its class inherits.  Sphinx looks a name up only in the current module and class and at the top
level, so such references would be reported as unresolved.  This extension handles the
``missing-reference`` event and tries, in order:

1. the name in the namespace of the referring module (and class): the object it is bound to
   there, under the full name where it is documented; likewise a dotted name whose module
   imports the object from another module;
2. the name as a member of a base class of the referring class;
3. the documented objects whose full name ends with ``.NAME``: the only one, or else the only one
   that shares the longest module prefix with the referring module.

A name none of these settles stays unresolved, and the nitpicky build reports it.
"""

from __future__ import annotations

import importlib
import inspect

from sphinx.util.nodes import make_refnode

# The roles whose targets this resolves, and the object types each may point to.
_ROLE_TYPES = {
    "class": ("class", "exception"),
    "exc": ("exception", "class"),
    "func": ("function", "method", "classmethod", "staticmethod"),
    "meth": ("method", "classmethod", "staticmethod", "function", "property"),
    "attr": ("attribute", "property", "data"),
    "data": ("data", "attribute"),
    "const": ("data", "attribute"),
    "mod": ("module",),
    "obj": None,  # any type
}


def _documented(objects, name: str, allowed) -> bool:
    entry = objects.get(name)
    return entry is not None and not entry.aliased and (allowed is None or entry.objtype in allowed)


def _canonical_name(value) -> str | None:
    if inspect.ismodule(value):
        return value.__name__
    module, qualname = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else None


def _from_namespace(module_name: str | None, class_name: str | None, target: str):
    """Full names the target may denote seen from the referring module and class."""
    if not module_name:
        return
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return
    scopes = []
    if class_name:
        owner = module
        for part in class_name.split("."):
            owner = getattr(owner, part, None)
        if inspect.isclass(owner):
            scopes += list(owner.__mro__)
    scopes.append(module)
    head, _, rest = target.partition(".")
    for scope in scopes:
        value = scope.__dict__.get(head) if inspect.isclass(scope) else getattr(scope, head, None)
        if value is None:
            continue
        if inspect.isclass(scope):  # a member of the class or of a base class
            yield f"{scope.__module__}.{scope.__qualname__}.{target}"
        canonical = _canonical_name(value)
        if canonical:
            yield canonical + ("." + rest if rest else "")


def _from_import_path(target: str):
    """The full name where a dotted target is documented when its module prefix imports the
    object from elsewhere (``package.module.name`` for a name ``module`` re-exports)."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for index, part in enumerate(parts[cut:], start=cut):
            if not hasattr(value, part):
                return
            value = getattr(value, part)
            canonical = _canonical_name(value)
            if canonical and canonical != ".".join(parts[:index + 1]):
                rest = parts[index + 1:]
                yield ".".join([canonical, *rest])
                return
        return


def _common_prefix(first: str, second: str) -> int:
    count = 0
    for a, b in zip(first.split("."), second.split(".")):
        if a != b:
            break
        count += 1
    return count


def _resolve(app, env, node, contnode):
    if node.get("refdomain") != "py" or node.get("reftype") not in _ROLE_TYPES:
        return None
    target = node.get("reftarget", "").lstrip("~.")
    if not target:
        return None
    allowed = _ROLE_TYPES[node["reftype"]]
    objects = env.get_domain("py").objects
    module_name = node.get("py:module")
    candidates = [*_from_namespace(module_name, node.get("py:class"), target),
                  *_from_import_path(target)]
    found = next((name for name in candidates if _documented(objects, name, allowed)), None)
    if found is None:
        suffix = "." + target
        matches = [name for name in objects
                   if name.endswith(suffix) and _documented(objects, name, allowed)]
        if len(matches) > 1 and module_name:
            best = max(_common_prefix(module_name, name) for name in matches)
            matches = [name for name in matches if _common_prefix(module_name, name) == best]
        if len(matches) != 1:
            return None
        found = matches[0]
    entry = objects[found]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode, found)


def setup(app):
    app.connect("missing-reference", _resolve, priority=900)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
