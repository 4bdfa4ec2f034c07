"""Small, independent tokenizers for the reference scripts.

Only good enough to turn the ASCII prompts of the golden files into ids that a
real tokenizer would also produce: SentencePiece-style merging by score (the
`llama` tokenizer model) and byte-level BPE by merge rank (the `gpt2` model).
The golden files record the ids, so the C++ tests never depend on this file.
"""
import regex

# GPT-2's pre-tokenizer; the `smollm`/`starcoder` variant also splits digits one by one.
GPT2_SPLIT = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


def _bytes_to_unicode():
    # GPT-2's reversible map from bytes to printable code points.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


class SpmTokenizer:
    def __init__(self, tokens, scores, bos, eos, add_bos):
        self.tokens, self.scores = tokens, scores
        self.index = {t: i for i, t in enumerate(tokens)}
        self.bos, self.eos, self.add_bos = bos, eos, add_bos

    def encode(self, text):
        syms = list("▁" + text.replace(" ", "▁"))
        while True:  # merge the adjacent pair with the best score, leftmost first
            best = None
            for i in range(len(syms) - 1):
                j = self.index.get(syms[i] + syms[i + 1])
                if j is not None and (best is None or self.scores[j] > self.scores[best[1]]):
                    best = (i, j)
            if best is None:
                break
            i = best[0]
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
        ids = [self.bos] if self.add_bos else []
        for s in syms:
            if s in self.index:
                ids.append(self.index[s])
            else:  # byte fallback
                ids.extend(self.index[f"<0x{b:02X}>"] for b in s.encode())
        return ids

    def decode(self, ids):
        out = bytearray()
        for i in ids:
            t = self.tokens[i]
            if t.startswith("<0x") and len(t) == 6:
                out.append(int(t[3:5], 16))
            elif not (t.startswith("<") and t.endswith(">")):
                out += t.replace("▁", " ").encode()
        return out.decode(errors="replace")


class Gpt2Tokenizer:
    def __init__(self, tokens, merges, token_types, bos, eos, add_bos):
        self.tokens = tokens
        self.index = {t: i for i, t in enumerate(tokens)}
        self.ranks = {tuple(m.split(" ")): r for r, m in enumerate(merges)}
        self.byte_map = _bytes_to_unicode()
        self.unbyte = {c: b for b, c in self.byte_map.items()}
        # control tokens (type 3) such as <|im_start|> are matched literally
        self.specials = sorted((t for t, ty in zip(tokens, token_types) if ty == 3), key=len, reverse=True)
        self.bos, self.eos, self.add_bos = bos, eos, add_bos

    def _bpe(self, word):
        syms = list(word)
        while len(syms) > 1:
            pairs = [(self.ranks.get((syms[i], syms[i + 1]), 1 << 30), i) for i in range(len(syms) - 1)]
            rank, i = min(pairs)
            if rank == 1 << 30:
                break
            syms[i:i + 2] = [syms[i] + syms[i + 1]]
        return [self.index[s] for s in syms]

    def encode(self, text):
        ids = [self.bos] if self.add_bos else []
        pattern = regex.compile("(" + "|".join(regex.escape(s) for s in self.specials) + ")")
        for part in pattern.split(text) if self.specials else [text]:
            if part in self.index and part in self.specials:
                ids.append(self.index[part])
                continue
            for word in GPT2_SPLIT.findall(part):
                ids.extend(self._bpe("".join(self.byte_map[b] for b in word.encode())))
        return ids

    def decode(self, ids):
        out = bytearray()
        for i in ids:
            t = self.tokens[i]
            if t in self.specials:
                out += t.encode()
            else:
                out += bytes(self.unbyte[c] for c in t)
        return out.decode(errors="replace")


def from_reader(reader):
    model = _field(reader, "tokenizer.ggml.model")
    tokens = _field(reader, "tokenizer.ggml.tokens")
    bos = _field(reader, "tokenizer.ggml.bos_token_id")
    eos = _field(reader, "tokenizer.ggml.eos_token_id")
    if model == "llama":
        return SpmTokenizer(tokens, _field(reader, "tokenizer.ggml.scores"), bos, eos,
                            _field(reader, "tokenizer.ggml.add_bos_token", True))
    if model == "gpt2":
        return Gpt2Tokenizer(tokens, _field(reader, "tokenizer.ggml.merges"),
                             _field(reader, "tokenizer.ggml.token_type"), bos, eos,
                             _field(reader, "tokenizer.ggml.add_bos_token", False))
    raise SystemExit(f"reference tokenizer: model {model!r} not supported")
