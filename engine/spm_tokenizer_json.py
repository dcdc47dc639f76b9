"""Writes a Hugging Face tokenizer.json for the SentencePiece (BPE, byte fallback) vocabulary of a
vocab-only GGUF, laid out as Llama-2's own tokenizer.json (legacy normalizer: a leading space,
spaces as U+2581; merges derived from the pieces' scores the way Hugging Face's
SentencePieceExtractor derives them). llama.cpp's tokenizer tests for that vocabulary
(models/ggml-vocab-*.gguf.inp and .out) are run against the result before it is written.
Needs PYTHONPATH pointing at llama.cpp's gguf-py; the check needs the `tokenizers` package,
and is skipped, saying so, without it.
"""
import argparse
import json
import sys
from pathlib import Path

from gguf import GGUFReader, TokenType


def build(vocab_path: str) -> dict:
    r = GGUFReader(vocab_path)
    tokens = r.fields["tokenizer.ggml.tokens"].contents()
    scores = r.fields["tokenizer.ggml.scores"].contents()
    types = r.fields["tokenizer.ggml.token_type"].contents()
    bos = tokens[r.fields["tokenizer.ggml.bos_token_id"].contents()]
    eos = tokens[r.fields["tokenizer.ggml.eos_token_id"].contents()]
    unk = tokens[r.fields["tokenizer.ggml.unknown_token_id"].contents()]
    add_bos = bool(r.fields["tokenizer.ggml.add_bos_token"].contents())
    vocab = {t: i for i, t in enumerate(tokens)}

    merges = []
    for piece, pid in vocab.items():
        if types[pid] != TokenType.NORMAL:
            continue
        local = [(piece[:k], piece[k:]) for k in range(1, len(piece))
                 if piece[:k] in vocab and piece[k:] in vocab]
        local.sort(key=lambda lr: (vocab[lr[0]], vocab[lr[1]]))
        merges.extend((l, r, scores[pid]) for l, r in local)
    merges.sort(key=lambda m: -m[2])  # stable: ties keep the order above

    special = [i for i, ty in enumerate(types) if ty in (TokenType.CONTROL, TokenType.UNKNOWN)]
    single = ([{"SpecialToken": {"id": bos, "type_id": 0}}] if add_bos else []) + [{"Sequence": {"id": "A", "type_id": 0}}]
    pair = single + ([{"SpecialToken": {"id": bos, "type_id": 1}}] if add_bos else []) + [{"Sequence": {"id": "B", "type_id": 1}}]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": i, "content": tokens[i], "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i in special],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Prepend", "prepend": "\u2581"},
            {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
        "pre_tokenizer": None,
        "post_processor": {"type": "TemplateProcessing", "single": single, "pair": pair,
                           "special_tokens": {bos: {"id": bos, "ids": [vocab[bos]], "tokens": [bos]}} if add_bos else {}},
        "decoder": {"type": "Sequence", "decoders": [
            {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
            {"type": "ByteFallback"}, {"type": "Fuse"},
            {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": unk, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": [[l, r] for l, r, _ in merges]},
        "_eos": eos,
    }


def check(path: Path, vocab_path: str) -> None:
    """llama.cpp's own expected token ids for its test strings, through the written file."""
    try:
        from tokenizers import Tokenizer
    except ImportError:
        print("spm_tokenizer_json: the tokenizers package is absent: llama.cpp's vocab tests not run", file=sys.stderr)
        return
    inp = Path(vocab_path + ".inp").read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    out = Path(vocab_path + ".out").read_text(encoding="utf-8").split("\n")
    tok = Tokenizer.from_file(str(path))
    bad = 0
    for text, want in zip(inp, out):
        got = tok.encode(text, add_special_tokens=False).ids
        if got != [int(x) for x in want.split()]:
            bad += 1
            print(f"  {text!r}: got {got}, llama.cpp {want.split()}", file=sys.stderr)
    if bad:
        raise SystemExit(f"spm_tokenizer_json: {bad} of {len(inp)} of llama.cpp's test strings tokenize differently")
    print(f"spm_tokenizer_json: {len(inp)} of llama.cpp's test strings tokenize as llama.cpp does", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vocab", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    t = build(args.vocab)
    del t["_eos"]
    Path(args.out).write_text(json.dumps(t, ensure_ascii=False), encoding="utf-8")
    check(Path(args.out), args.vocab)


if __name__ == "__main__":
    main()
