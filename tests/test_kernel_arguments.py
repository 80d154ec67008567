"""The structs that kernels take by value, and the field lists the Python side packs them
from (8 bytes a field, in order): a field added, dropped or moved on one side only would
hand a kernel wrong addresses. Read from the sources, so this runs without a GPU."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
KERNELS = ROOT / "gpu_backend" / "kernels" / "bfs.cu"


def struct_fields(source: str, name: str) -> list[str]:
    """Field names of ``struct name`` (a template's too) in ``source``, member functions
    left out and fields of a struct type defined in ``source`` spelled out in place."""
    start = re.search(rf"struct {name} \{{", source).end()
    depth, end = 1, start
    while depth:
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        end += 1
    body = re.sub(r"//[^\n]*", "", source[start:end - 1])
    while (function := re.search(r"__device__[^;{]*\{", body)):
        depth, stop = 1, function.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(body[stop], 0)
            stop += 1
        body = body[:function.start()] + body[stop:]
    fields = []
    for statement in body.split(";"):
        words = statement.replace("*", " ").replace(",", " , ").split()
        if not words:
            continue
        kind = words[0] if words[0] != "const" else words[1]
        if re.search(rf"struct {kind} \{{", source):
            fields += struct_fields(source, kind)
            continue
        fields += [declaration.replace("*", " ").split()[-1]
                   for declaration in statement.split(",") if declaration.strip()]
    return fields


def packed_fields(module: Path, *names: str) -> list[str]:
    """The field names of the tuples ``names`` (assigned in ``module``), in order."""
    tree = ast.parse(module.read_text())
    values = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
              if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
              and node.targets[0].id in names}
    fields = []
    for name in names:
        fields += [f[0] if isinstance(f, tuple) else f for f in values[name]]
    return fields


@pytest.mark.parametrize("struct, module, names", [
    ("Search", "gpu_backend/bfs_steps.py", ("_SEARCH_FIELDS", "_SEARCH_CALL")),
    ("RankLevel", "dist_backend/gpu_bfs_steps.py", ("_LEVEL_FIELDS",)),
])
def test_the_python_side_packs_the_fields_of_a_kernel_struct_in_its_order(struct, module,
                                                                            names):
    kernel = struct_fields(KERNELS.read_text(), struct)
    assert kernel == packed_fields(ROOT / module, *names)
    assert len(kernel) > 20
