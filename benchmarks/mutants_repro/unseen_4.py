"""Mutants drawn from reformer-pytorch (a package in none of contiglint's corpora), drawn with
those of unseen_3.py.
Run: python benchmarks/mutants_repro/unseen_4.py [CASE ...]
"""
import torch
import torch.nn.functional as F

from common import picked, run_all


# --- reformer-pytorch ----------------------------------------------------------------------

def _look_one_back(x):
    x_extra = torch.cat([x[:, -1:, ...], x[:, :-1, ...]], dim=1)
    return torch.cat([x, x_extra], dim=2)


def _gather(values, indices):  # batched_index_select
    return values.gather(1, indices[:, :, None].expand(-1, -1, values.shape[-1]))


def _lsh_attention(r, qk, v, bucket, n_hashes, query_len, input_mask=None,
                   input_attn_mask=None, allow_dup=True, return_attn=True):
    # reformer_pytorch/reformer_pytorch.py LSHAttention.forward (rehash_each_round, the
    # defaults); r(name) is the reshape/view to use at the site `name`
    batch_size, seqlen, dim = qk.shape
    n_buckets = seqlen // bucket
    rot = torch.randn(1, dim, n_hashes, n_buckets // 2).expand(batch_size, -1, -1, -1)
    rotated = torch.einsum('btf,bfhi->bhti', qk, rot)
    buckets = torch.argmax(torch.cat([rotated, -rotated], dim=-1), dim=-1)
    offsets = torch.reshape(torch.arange(n_hashes) * n_buckets, (1, -1, 1))
    buckets = torch.reshape(buckets + offsets, (batch_size, -1,))
    total_hashes = n_hashes
    ticker = torch.arange(total_hashes * seqlen).unsqueeze(0).expand_as(buckets)
    buckets_and_t = seqlen * buckets + (ticker % seqlen)
    sbuckets_and_t, sticker_i = buckets_and_t.sort(dim=-1)
    sticker = ticker.expand_as(buckets_and_t).gather(-1, sticker_i)
    _, undo_sort = sticker.sort(dim=-1)
    st = (sticker % seqlen)
    sqk, sv = _gather(qk, st), _gather(v, st)
    chunk_size = total_hashes * n_buckets
    bq_t = bkv_t = torch.reshape(st, (batch_size, chunk_size, -1))
    bqk = torch.reshape(sqk, (batch_size, chunk_size, -1, dim))
    bv = torch.reshape(sv, (batch_size, chunk_size, -1, dim))
    bq, bk = bqk, F.normalize(bqk, p=2, dim=-1).type_as(bqk)
    bk, bv, bkv_t = _look_one_back(bk), _look_one_back(bv), _look_one_back(bkv_t)
    dots = torch.einsum('bhie,bhje->bhij', bq, bk) * (dim ** -0.5)
    masked_value = -torch.finfo(dots.dtype).max
    if input_attn_mask is not None:
        input_attn_mask = F.pad(input_attn_mask, (0, seqlen - input_attn_mask.shape[-1], 0,
                                                  seqlen - input_attn_mask.shape[-2]), value=True)
        dot_attn_indices = ((bq_t * seqlen)[:, :, :, None] + bkv_t[:, :, None, :])
        input_attn_mask = r("input_attn_mask")(input_attn_mask, batch_size, -1)
        dot_attn_indices = dot_attn_indices.reshape(batch_size, -1)
        mask = input_attn_mask.gather(1, dot_attn_indices).reshape_as(dots)
        dots.masked_fill_(~mask, masked_value)
    if input_mask is not None:
        input_mask = F.pad(input_mask, (0, seqlen - input_mask.shape[1]), value=True)
        mq = r("mq")(input_mask.gather(1, st), (batch_size, chunk_size, -1))
        mkv = _look_one_back(mq)
        dots.masked_fill_(~(mq[:, :, :, None] * mkv[:, :, None, :]), masked_value)
    dots.masked_fill_(bq_t[:, :, :, None] == bkv_t[:, :, None, :], -5e4)
    if not allow_dup:
        locs1 = undo_sort // bq_t.shape[-1]
        locs2 = (locs1 + 1) % chunk_size
        locs = torch.cat([torch.reshape(locs1, (batch_size, total_hashes, seqlen)),
                          torch.reshape(locs2, (batch_size, total_hashes, seqlen))],
                         1).permute((0, 2, 1))
        slocs = _gather(locs, st)
        b_locs = torch.reshape(slocs, (batch_size, chunk_size, -1, 2 * total_hashes))
        b_locs1 = b_locs[:, :, :, None, :total_hashes]
        bq_locs = torch.reshape(b_locs1.expand(b_locs.shape[:3] + (2, total_hashes)),
                                b_locs.shape)
        bkv_locs = _look_one_back(b_locs)
        dup_counts = (bq_locs[:, :, :, None, :] == bkv_locs[:, :, None, :, :])
        # chunked_sum(dup_counts, chunks=(total_hashes * batch_size))
        *orig_size, last_dim = dup_counts.shape
        flat = r("chunked_sum_in")(dup_counts, -1, last_dim)
        summed = [c.sum(dim=-1) for c in flat.chunk(total_hashes * batch_size, dim=0)]
        dup_counts = r("chunked_sum_out")(torch.cat(summed, dim=0), orig_size)
        dots = dots - torch.log(dup_counts + 1e-9)
    dots_logsumexp = torch.logsumexp(dots, dim=-1, keepdim=True)
    dots = torch.exp(dots - dots_logsumexp).type_as(dots)
    bo = torch.einsum('buij,buje->buie', dots, bv)
    so = torch.reshape(bo, (batch_size, -1, dim))
    slogits = torch.reshape(dots_logsumexp, (batch_size, -1,))
    o = _gather(so, undo_sort)
    logits = slogits.gather(1, undo_sort)
    o = torch.reshape(o, (batch_size, total_hashes, seqlen, dim))
    logits = torch.reshape(logits, (batch_size, total_hashes, seqlen, 1))
    if query_len != seqlen:
        o, logits = o[:, :, :query_len], logits[:, :, :query_len]
    probs = torch.exp(logits - torch.logsumexp(logits, dim=1, keepdim=True))
    out = torch.sum(o * probs, dim=1)
    attn = torch.empty(0)
    if return_attn:
        attn_unsort = ((bq_t * seqlen)[:, :, :, None] + bkv_t[:, :, None, :])
        attn_unsort = attn_unsort.view(batch_size * total_hashes, -1).long()
        unsorted_dots = torch.zeros(batch_size * total_hashes, seqlen * seqlen)
        unsorted_dots.scatter_add_(1, attn_unsort, dots.view_as(attn_unsort))
        unsorted_dots = r("unsorted_dots")(unsorted_dots, batch_size, total_hashes, seqlen,
                                           seqlen)
        attn = torch.sum(unsorted_dots[:, :, 0:query_len, :] * probs, dim=1)
    return out, attn, buckets


def reformer_lsh_self_attn(mutant, which, b, t, heads, dh, l_h=0, bucket=4, n_hashes=2,
                           mem=0, chunks=1, input_mask=False, input_attn_mask=False,
                           allow_dup=True, record=True):
    # reformer_pytorch/reformer_pytorch.py LSHSelfAttention.forward, as Reformer/ReformerLM
    # build it (LSH attention, full_attn_thres 0); record: wrapped in recorder.Recorder, which
    # sets LSHAttention._return_attn and LSHSelfAttention.callback
    def r(name):
        return picked(mutant, which, name)

    e = heads * dh
    x = torch.randn(b, t, e)
    mem_kv = torch.randn(1, mem, e)
    mem_x = mem_kv.expand(b, mem, -1)
    keys = torch.empty(b, 0, e)
    kv_len = t + mem
    x = torch.cat((x, mem_x, keys), dim=1)
    qk = torch.nn.Linear(e, e, bias=False)(x)
    v = torch.nn.Linear(e, e, bias=False)(x)

    def merge_dims(ind_from, ind_to, tensor):  # the module-level merge_dims(0, 1, ...)
        shape = list(tensor.shape)
        arr_slice = slice(ind_from, ind_to + 1)
        shape[arr_slice] = [shape[ind_from] * shape[ind_to]]
        return r("merge_dims")(tensor, *shape)

    def expand_dim(dim, k, tensor):
        tensor = tensor.unsqueeze(dim)
        expand_shape = [-1] * len(tensor.shape)
        expand_shape[dim] = k
        return tensor.expand(*expand_shape)

    qk, v = (u.view(b, kv_len, heads, -1).transpose(1, 2) for u in (qk, v))
    lsh_h = heads - l_h
    lqk, qk = qk[:, :l_h], qk[:, l_h:]
    lv, v = v[:, :l_h], v[:, l_h:]
    lqk, qk, lv, v = (merge_dims(0, 1, u) for u in (lqk, qk, lv, v))
    masks = {}
    if input_mask:
        i_mask = torch.rand(b, t) > 0.2
        i_mask[:, 0] = True
        mask = torch.cat((i_mask, torch.tensor([True]).expand(b, mem)), dim=1)
        masks["input_mask"] = merge_dims(0, 1, expand_dim(1, lsh_h, mask))
    if input_attn_mask:
        am = torch.rand(b, t, t) > 0.3
        am |= torch.eye(t, dtype=torch.bool)
        masks["input_attn_mask"] = merge_dims(0, 1, expand_dim(1, lsh_h, am))
    outs = []  # process_inputs_chunk(partial_attn_fn, chunks=attn_chunks)
    chunked = [u.chunk(chunks, dim=0) for u in [qk, v, *masks.values()]]
    for parts in zip(*chunked):
        kw = dict(zip(masks, parts[2:]))
        outs.append(_lsh_attention(r, parts[0], parts[1], bucket, n_hashes, t,
                                   allow_dup=allow_dup, return_attn=record, **kw))
    out, attn, buckets = (torch.cat(u, dim=0) for u in zip(*outs))
    recorded = None
    if record:  # self.callback(attn.reshape(b, lsh_h, t, -1), buckets.reshape(b, lsh_h, -1))
        recorded = (r("callback_attn")(attn, b, lsh_h, t, -1), buckets.reshape(b, lsh_h, -1))
    if l_h > 0:
        lqk, lv = lqk[:, :t], lv[:, :t]
        # self.local_attn(lqk, lqk, lv, input_mask=input_mask): local-attention's
        # LocalAttention (window bucket * 2, shared_qk) returns (b * l_h, t, dh); here a
        # windowed attention of the same shape stands in for it
        w = bucket * 2
        qw = lqk.reshape(-1, t // w, w, dh)
        local = torch.softmax(qw @ F.normalize(qw, dim=-1).transpose(-1, -2), dim=-1)
        local_out = (local @ lv.reshape(-1, t // w, w, dh)).reshape(-1, t, dh)
        local_out = r("local_out")(local_out, b, l_h, t, -1)
        out = torch.cat((local_out, out.reshape(b, lsh_h, t, -1)), dim=1)
    else:
        out = out.reshape(b, lsh_h, t, -1)
    out = out.transpose(1, 2).contiguous().view(b, t, -1)  # split_heads(out).view(b, t, -1)
    return out, recorded


def _reformer(which):
    return lambda mutant, **kw: reformer_lsh_self_attn(mutant, which, **kw)


REFORMER = [dict(b=1, t=16, heads=4, dh=8), dict(b=2, t=16, heads=4, dh=8),
            dict(b=2, t=16, heads=4, dh=8, l_h=2, mem=0, chunks=2),
            dict(b=1, t=24, heads=2, dh=8, mem=8, chunks=2),
            dict(b=3, t=8, heads=1, dh=16, bucket=2, n_hashes=4)]
REFORMER_MASKS = [dict(kw, input_mask=True, input_attn_mask=True) for kw in REFORMER]
REFORMER_NODUP = [dict(kw, allow_dup=False) for kw in REFORMER]

CASES = {
    "reformer_unsorted_dots": (_reformer("unsorted_dots"), REFORMER),
    "reformer_chunked_sum_in": (_reformer("chunked_sum_in"), REFORMER_NODUP),
    "reformer_chunked_sum_out": (_reformer("chunked_sum_out"), REFORMER_NODUP),
    "reformer_callback_attn": (_reformer("callback_attn"), REFORMER),
    "reformer_local_out": (_reformer("local_out"), [
        dict(b=1, t=16, heads=4, dh=8, l_h=1), dict(b=2, t=16, heads=4, dh=8, l_h=2),
        dict(b=2, t=24, heads=8, dh=4, l_h=4, mem=8, chunks=2, input_mask=True)]),
    "reformer_input_attn_mask": (_reformer("input_attn_mask"), REFORMER_MASKS),
    "reformer_mq": (_reformer("mq"), REFORMER_MASKS),
    "reformer_merge_dims": (_reformer("merge_dims"), REFORMER),
}

if __name__ == "__main__":
    run_all(CASES)
