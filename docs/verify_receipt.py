#!/usr/bin/env python3
"""Checks a Laurel receipt offline (docs/RECEIPTS.md): python3 verify_receipt.py receipt.json"""
import hashlib, json, sys

def H(*parts): return hashlib.sha256(b"".join(parts)).digest()
def ns(*fields): return b"".join(b"%d:%s," % (len(f), f) for f in (str(x).encode() for x in fields))
def leaf(l): return H(b"\0", ns("laurel-leaf-1", l["ranking"], l["member"], l["rank"], l["points"], l.get("prize") or ""))
def key(l): return (l["ranking"].encode(), l["member"].encode())

def root(p, n):  # the root a leaf and its proof lead to; the index says each sibling's side
    h, i, steps = leaf(p["leaf"]), p["index"], [bytes.fromhex(s) for s in p["proof"]]
    assert i < n, "leaf index beyond the leaves"
    while n > 1:
        if i ^ 1 < n:
            s = steps.pop(0)
            h = H(b"\1", s, h) if i % 2 else H(b"\1", h, s)
        i, n = i // 2, (n + 1) // 2
    assert not steps, "proof longer than the tree"
    return h.hex()

r = json.load(open(sys.argv[1]))
assert (r["format"], r["format_version"]) == ("laurel-receipt", 1), "not a receipt"
n, me = r["leaves"], key(r)
if r.get("inclusion"):
    p = r["inclusion"]
    assert key(p["leaf"]) == me and root(p, n) == r["root"], "the leaf is not under the root"
else:
    b, a = r["absence"].get("before"), r["absence"].get("after")
    assert all(root(p, n) == r["root"] for p in (b, a) if p), "a neighbour is not under the root"
    assert (not b or key(b["leaf"]) < me) and (not a or key(a["leaf"]) > me), "neighbours out of order"
    assert (b["index"] + 1 == a["index"] if b and a else a["index"] == 0 if a else b["index"] + 1 == n if b
            else n == 0 and r["root"] == hashlib.sha256(b"").hexdigest()), "neighbours not adjacent"
c0 = r["chain"][0]
assert (c0["revision"], c0["root"], c0["digest"]) == (r["revision"], r["root"], r["digest"]), "chain start"
for prev, c in zip([None] + r["chain"], r["chain"]):
    assert c["link"] == H(ns("laurel-link-1", r["board"], r["period"], c["revision"], c.get("previous_link") or "",
                             c["digest"], c["root"])).hex(), "link of revision %d" % c["revision"]
    assert not prev or (c["revision"], c["previous_link"]) == (prev["revision"] + 1, prev["link"]), "chain order"
print("ok: %s revision %d, chain to revision %d" % (r["member"], r["revision"], r["chain"][-1]["revision"]))
