"""Witnesses sized from what the code shows: the input sizes it reads, diagonals, wildcards,
cuts, steps, cat lengths, listed pieces, the least rank of a product or stack. Each case runs
its witness, or the function itself, under torch.
"""
from __future__ import annotations


import pytest
import torch

from contiglint.engine import lint_source
from contiglint.settings import Settings


NAMED_DIMS = """import torch


def f(x):
    B = x.size(0)
    N = x.size(1)
    C = x.size(2)
    D = x.size(3)
    return x.permute(1, 2, 3, 0).view(N, -1)
"""


def test_a_witness_names_the_input_sizes_the_code_reads():
    """x's geometry is only assumed, but the code reads x.size(i): the permuted tensor's dims
    are those sizes, so the witness gives values to x's sizes (not to sizes of its own that
    no input could give), and f raises on a tensor of exactly those sizes."""
    [finding] = lint_source(NAMED_DIMS, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {f"x.size({i})" for i in range(4)}
    namespace: dict = {}
    exec(NAMED_DIMS, namespace)
    x = torch.randn(*(values[f"x.size({i})"] for i in range(4)))
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](x)

DIAGONAL = """import torch


def f(B, N, C, D):
    x = torch.randn(B, N, C, D)
    return x.diagonal(0, 3, 0).view(torch.float64)
"""


def test_a_diagonal_of_unrelated_sizes_is_witnessed_by_those_sizes():
    """The diagonal of dims of sizes B and D has min(B, D) elements: the witness chooses B and
    D (not the diagonal's length apart from them), and f raises at those sizes."""
    [finding] = lint_source(DIAGONAL, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"B", "N", "C", "D"}
    namespace: dict = {}
    exec(DIAGONAL, namespace)
    sizes = [values.get(name, 3) for name in "BNCD"]
    with pytest.raises(RuntimeError, match="stride"):
        namespace["f"](*sizes)

FLATTENED = """import torch


def f(B, N):
    x = torch.randn(B, N)
    flat = x.reshape(-1)
    wide = torch.broadcast_to(flat.unsqueeze(1), (flat.size(0), 3))
    return wide.view(-1)
"""


def test_a_wildcard_of_symbolic_sizes_is_their_quotient():
    """`(B, N).reshape(-1)` is (B*N,): the expanded tensor built from `flat.size(0)` is
    (B*N, 3), so the witness names B and N (inputs f takes), not `flat.size(0)`, which no
    input sets on its own, and f raises at those sizes."""
    [finding] = lint_source(FLATTENED, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {"B", "N"}
    namespace: dict = {}
    exec(FLATTENED, namespace)
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](values["B"], values["N"])
    rows = values["B"] * values["N"]
    wide = torch.broadcast_to(torch.randn(rows, 1), (rows, 3))
    assert tuple(finding.witness.sizes) == tuple(wide.shape)
    assert tuple(finding.witness.strides) == wide.stride()


DIAGONALS = [
    ("x = torch.randn(B, N, C)", "x.diagonal(0, 2, 1).view(-1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 3, 2).view(B, -1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 1, 3).view(B * C, -1)"),
    ("x = torch.randn(B, N, C, D)", "x.diagonal(0, 0, 1).view(-1)"),
]


@pytest.mark.parametrize("make, use", DIAGONALS)
def test_a_diagonal_is_witnessed_at_its_real_strides(make, use):
    """A diagonal's stride is the sum of the strides of the two dims it walks, so whether it
    merges with a neighbour depends on the sizes ((B, N, C).diagonal(0, 2, 1) has strides
    (N*C, C+1): at N=4, C=3 they merge). Every witness is the tensor torch makes at the sizes
    it names, and the view raises there."""
    source = f"import torch\n\n\ndef f(B, N, C, D=1):\n    {make}\n    return {use}\n"
    findings = lint_source(source, "m.py", Settings(select=("CTG101",))).findings
    assert findings, source
    for finding in findings:
        values = dict(finding.witness.values)
        sizes = {name: values.get(name, 3) for name in "BNCD"}
        x = torch.randn(*[sizes[n] for n in make[make.index("(") + 1:-1].split(", ")])
        diagonal = eval(use.split(".view(")[0], {"x": x})
        assert (tuple(diagonal.shape), diagonal.stride()) == \
            (finding.witness.sizes, finding.witness.strides), finding.witness.describe()
        run: dict = {}
        exec(source, run)
        with pytest.raises(RuntimeError, match=finding.witness.error):
            run["f"](**sizes)


CONCATENATED = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    doubled = torch.cat([x, x], 0)
    return doubled.movedim(-2, 0).data_ptr()
"""


def test_the_joined_dim_of_a_cat_of_equal_terms_is_their_sum():
    """cat([x, x]) of B rows has 2*B: the raw read's witness names B, N and C (not the size
    of the joined dim, which is never odd), and the tensor it names is the one torch makes."""
    [finding] = lint_source(CONCATENATED, "m.py", Settings(select=("CTG106",))).findings
    values = dict(finding.witness.values)
    assert set(values) == {"B", "N", "C"}
    x = torch.randn(values["B"], values["N"], values["C"])
    moved = torch.cat([x, x], 0).movedim(-2, 0)
    assert (tuple(moved.shape), moved.stride()) == (finding.witness.sizes,
                                                    finding.witness.strides)
    assert not moved.is_contiguous()


CUT = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    return x[:, 1:].view(B * (N - 1), C)


def g(B, N, C):
    x = torch.randn(B, N, C)
    return x[::2, :-1].transpose(0, 1).data_ptr()
"""


def test_a_cut_of_a_symbolic_dim_is_sized_as_the_code_spells_it():
    """x[:, 1:] of N rows has N - 1, x[::2] of B has (B + 1) // 2: the view into
    B * (N - 1) rows is matched against them (it merges the cut dim and raises), and both
    witnesses name the inputs B, N, C only. Each replays under torch: the view raises, the raw
    read's tensor is the one torch makes and is not contiguous."""
    found = {f.code: f for f in lint_source(CUT, "m.py",
                                             Settings(select=("CTG101", "CTG106"))).findings}
    assert set(found) == {"CTG101", "CTG106"}
    namespace: dict = {}
    exec(CUT, namespace)
    view = dict(found["CTG101"].witness.values)
    assert set(view) <= {"B", "N", "C"}
    with pytest.raises(RuntimeError, match=found["CTG101"].witness.error):
        namespace["f"](*(view.get(n, 3) for n in "BNC"))
    raw = found["CTG106"].witness
    values = dict(raw.values)
    assert set(values) <= {"B", "N", "C"}
    x = torch.randn(*(values.get(n, 3) for n in "BNC"))
    made = x[::2, :-1].transpose(0, 1)
    assert (tuple(made.shape), made.stride()) == (raw.sizes, raw.strides)
    assert not made.is_contiguous()


STEPPED = """import torch


def f(B, N, C):
    x = torch.randn(B, N, C)
    v = x[..., ::2]
    return v.view(1, B, N * v.size(2))
"""


def test_a_stepped_dim_is_built_from_the_extent_and_step_its_size_names():
    """x[..., ::2] of C has (C + 1) // 2 elements at stride 2: an even C keeps every other
    element of whole rows, so N and the stepped dim still merge and the view works; the
    witness builds its tensor from C itself (not from 2n - 1 elements), so it names an odd C,
    and the tensor it shows is the one torch makes."""
    [finding] = lint_source(STEPPED, "m.py", Settings(select=("CTG101",))).findings
    witness = finding.witness
    values = dict(witness.values)
    assert set(values) <= {"B", "N", "C"} and values.get("C", 3) % 2 == 1
    args = [values.get(n, 3) for n in "BNC"]
    made = torch.randn(*args)[..., ::2]
    assert (tuple(made.shape), made.stride()) == (witness.sizes, witness.strides)
    namespace: dict = {}
    exec(STEPPED, namespace)
    with pytest.raises(RuntimeError, match=witness.error):
        namespace["f"](*args)
    namespace["f"](args[0], args[1], 4)  # an even C: the view works


OWN_SIZE = """import torch


def f(x):
    B = x.size(0)
    N = x.size(1)
    C = x.size(2)
    v = torch.movedim(x.narrow(0, 0, 1), -1, -2)
    return v.view(v.size(0), -1)
"""


def test_a_view_to_the_tensors_own_size_reads_it_from_the_geometry():
    """`v.view(v.size(0), -1)` where the code leaves v's rank open: at the least rank the
    witness is built at, v.size(0) is v's dim 0 (narrowed to 1), not a value of its own; the
    witness names x's sizes alone, and x of those sizes makes the view raise."""
    [finding] = lint_source(OWN_SIZE, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"x.size(0)", "x.size(1)", "x.size(2)"}
    namespace: dict = {}
    exec(OWN_SIZE, namespace)
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](torch.randn(*(values.get(f"x.size({i})", 3) for i in range(3))))


LISTED = """import torch


def f(B, N):
    x = torch.randn(B, N)
    y = torch.matmul(x, x.mT).clone()
    return y.split_with_sizes([1, B - 1], 1)[-1].data_ptr()
"""


def test_a_listed_piece_size_is_the_size_the_code_names():
    """split_with_sizes([1, B - 1]) of a (B, B) tensor: the last piece has B - 1 columns, not
    a size of its own, so the raw read's witness is the piece torch makes for that B."""
    [finding] = lint_source(LISTED, "m.py", Settings(select=("CTG106",))).findings
    values = dict(finding.witness.values)
    assert set(values) <= {"B", "N"}
    b = values.get("B", 3)
    x = torch.randn(b, values.get("N", 3))
    piece = torch.matmul(x, x.mT).clone().split_with_sizes([1, b - 1], 1)[-1]
    assert (tuple(piece.shape), piece.stride()) == (finding.witness.sizes,
                                                      finding.witness.strides)
    assert not piece.is_contiguous()


UNSHOWN_RANK = """import torch


def product(x):
    B = x.size(0)
    N = x.size(1)
    return (x @ x.mT).permute(1, 0).data_ptr()


def stacked(x):
    B = x.size(0)
    N = x.size(1)
    return torch.permute(torch.stack([x, x], 0), (1, 2, 0)).data_ptr()
"""


def test_a_product_or_stack_of_tensors_of_unshown_rank_has_the_shape_of_the_least_rank():
    """x is read as (B, N) and its rank is not shown, but the permute after the product (or
    the stack) shows it: a 2-D product has 2-D operands, so it is (B, B) there, and the stack
    is (2, B, N). Each witness names x's sizes only, and the tensor it names is torch's."""
    findings = lint_source(UNSHOWN_RANK, "m.py", Settings(select=("CTG106",))).findings
    assert [f.line for f in findings] == [7, 13]
    for finding, make in zip(findings, (lambda x: (x @ x.mT).permute(1, 0),
                                        lambda x: torch.stack([x, x], 0).permute(1, 2, 0))):
        values = dict(finding.witness.values)
        assert set(values) <= {"x.size(0)", "x.size(1)"}, values
        x = torch.randn(values.get("x.size(0)", 3), values.get("x.size(1)", 3))
        made = make(x)
        assert (tuple(made.shape), made.stride()) == (finding.witness.sizes,
                                                      finding.witness.strides)
        assert not made.is_contiguous()


HEADS = """import torch


def f(x):
    B, N, C = x.shape
    q = x.reshape(B, N, 4, C // 4).transpose(1, 2)
    return q.view(B, 4, -1)
"""


def test_a_head_dim_of_a_literal_head_count_is_witnessed_at_twice_the_count():
    """`C // 4` is 1 for every C the witness domain (2 to 7) holds, and a dim of one element
    hides the transpose: the witness tries C = 8 too, where the head dim is 2, and f raises
    there. (Named by the code's text, `C // self.heads` was a name of its own; since sizes
    computed from others are named by what they are made of, a literal head count needs
    this.)"""
    [finding] = lint_source(HEADS, "m.py", Settings(select=("CTG101",))).findings
    values = dict(finding.witness.values)
    assert values["C"] % 4 == 0 and values["C"] // 4 >= 2
    namespace: dict = {}
    exec(HEADS, namespace)
    with pytest.raises(RuntimeError, match=finding.witness.error):
        namespace["f"](torch.randn(values["B"], values["N"], values["C"]))
