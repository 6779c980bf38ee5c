#!/usr/bin/env python3
"""Train the Precis sentencepiece tokenizer on a deterministic corpus sample.

    python3 tools/train/train_tokenizer.py [--vocab 24000] [--chars 8000000] \
        [--out tools/train/out/precis24k]

Writes <out>.model, <out>.vocab and <out>.sample.txt.gz-free stats in
<out>.json.  Only train splits are sampled (held-out text never reaches the
tokenizer).

Special ids follow BART: <s>=0 <pad>=1 </s>=2 <unk>=3, then 256 byte-fallback
pieces <0x00>..<0xFF>, then the learned pieces, and <mask> is the LAST id
(vocab-1).  spm_train can only put user-defined symbols right after the
specials, so we train with vocab-1 pieces and append <mask> as a
USER_DEFINED piece to the ModelProto afterwards (python3-sentencepiece ships
sentencepiece_model_pb2; without it we append the protobuf record by hand:
repeated fields concatenate, so an extra field-1 record at the end of the
serialized message becomes the last piece).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import precis_corpus as pc  # noqa: E402

# Share of the character budget per source file, and the fraction of
# paragraphs offered (hash-selected) before the budget cap applies.
MIX = {"cnn": 0.20, "wiki_lead": 0.30, "briefings": 0.25, "gutenberg": 0.25}
RATE = {"cnn": 0.20, "wiki_lead": 0.06, "briefings": 0.10, "gutenberg": 0.10}
MAX_LINE_BYTES = 4000


def sample_lines(corpus_dir: str, total_chars: int):
    for name in pc.FILES:
        budget = int(total_chars * MIX[name])
        got = 0
        for rec in pc.iter_records(name, corpus_dir, splits={"train"}):
            texts = [rec["text"]]
            if "summary" in rec:
                texts.append(rec["summary"])
            for t_i, text in enumerate(texts):
                for p_i, para in enumerate(pc.paragraphs(name, text)):
                    if pc.stable_hash(pc.SEED, name, rec["id"], t_i, p_i) % 10000 >= RATE[name] * 10000:
                        continue
                    pieces = [para] if len(para.encode()) <= MAX_LINE_BYTES else pc.split_sentences(para)
                    for line in pieces:
                        line = line.strip()
                        if not line or len(line.encode()) > MAX_LINE_BYTES:
                            continue
                        yield name, line
                        got += len(line)
                    if got >= budget:
                        break
                if got >= budget:
                    break
            if got >= budget:
                break


def append_mask(model_path: str, vocab: int) -> None:
    data = open(model_path, "rb").read()
    try:
        from sentencepiece import sentencepiece_model_pb2 as spm_pb2
        m = spm_pb2.ModelProto()
        m.ParseFromString(data)
        p = m.pieces.add()
        p.piece = "<mask>"
        p.score = 0.0
        p.type = spm_pb2.ModelProto.SentencePiece.USER_DEFINED
        m.trainer_spec.vocab_size = vocab
        data = m.SerializeToString()
    except ImportError:  # hand-written record: field 1 (pieces), LEN
        piece = b"\x0a\x06<mask>" + b"\x15\x00\x00\x00\x00" + b"\x18\x04"  # piece, score 0.0f, type USER_DEFINED=4
        data += b"\x0a" + bytes([len(piece)]) + piece
    with open(model_path, "wb") as f:
        f.write(data)
    with open(os.path.splitext(model_path)[0] + ".vocab", "a", encoding="utf-8") as f:
        f.write("<mask>\t0\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=pc.CORPUS_DIR_DEFAULT)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out", "precis24k"))
    ap.add_argument("--vocab", type=int, default=24000, help="final vocabulary size including <mask>")
    ap.add_argument("--chars", type=int, default=20_000_000, help="characters of training text to sample")
    ap.add_argument("--model-type", default="unigram", choices=["unigram", "bpe"])
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    t0 = time.time()
    stats = {name: {"lines": 0, "chars": 0} for name in pc.FILES}
    with tempfile.TemporaryDirectory() as tmp:
        sample = os.path.join(tmp, "sample.txt")
        with open(sample, "w", encoding="utf-8") as f:
            for name, line in sample_lines(args.corpus, args.chars):
                f.write(line + "\n")
                stats[name]["lines"] += 1
                stats[name]["chars"] += len(line)
        t_sample = time.time() - t0
        cmd = [
            "spm_train", f"--input={sample}", f"--model_prefix={args.out}",
            f"--vocab_size={args.vocab - 1}", f"--model_type={args.model_type}",
            "--bos_id=0", "--pad_id=1", "--eos_id=2", "--unk_id=3",
            "--bos_piece=<s>", "--pad_piece=<pad>", "--eos_piece=</s>", "--unk_piece=<unk>",
            "--byte_fallback=true", "--split_digits=true", "--character_coverage=0.99995",
            "--max_sentence_length=4192", "--input_sentence_size=0",
            "--shuffle_input_sentence=false", f"--num_threads={args.threads}",
            "--minloglevel=1",
        ]
        print(" ".join(cmd), file=sys.stderr)
        subprocess.run(cmd, check=True)
    t_train = time.time() - t0 - t_sample
    append_mask(args.out + ".model", args.vocab)

    import sentencepiece as spm
    sp = spm.SentencePieceProcessor(model_file=args.out + ".model")
    assert sp.get_piece_size() == args.vocab, sp.get_piece_size()
    ids = {p: sp.piece_to_id(p) for p in ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]}
    assert ids == {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": args.vocab - 1}, ids
    example = "The U.S. Senate passed the $1.2 trillion bill on Tuesday <mask> naïve café, 東京."
    info = {
        "model": os.path.basename(args.out) + ".model",
        "vocab_size": sp.get_piece_size(), "model_type": args.model_type,
        "special_ids": ids, "sample_chars": args.chars, "sample": stats,
        "seconds_sampling": round(t_sample, 1), "seconds_spm_train": round(t_train, 1),
        "model_bytes": os.path.getsize(args.out + ".model"),
        "example": {"text": example, "pieces": sp.encode(example, out_type=str), "ids": sp.encode(example)},
    }
    with open(args.out + ".json", "w", encoding="utf-8") as f:
        json.dump(info, f, ensure_ascii=False, indent=1)
    print(json.dumps(info, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
