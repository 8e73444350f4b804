#!/usr/bin/env python3
"""An example unolab agent (docs/protocol.md), standard library only.

Run it in games with:
    unolab run --strategies 'ext:python3 bots/simple.py,random' --players 3

It reads one JSON object per line on stdin and answers every "hello" and
"decide" line with one JSON object on stdout; notices need no answer. Its play:
the legal card worth the most points, keeping wilds for last; the colour it
holds most; always calls UNO; swaps with the smallest hand; stacks when it
can; challenges when holding few cards; jumps in; plays a drawn card.
"""
import json
import sys

VERSION = 1
POINTS = {"skip": 20, "reverse": 20, "draw2": 20}


def points(token):
    if token.startswith("wild"):
        return 50
    face = token.split("-", 1)[1]
    return POINTS.get(face, int(face) if face.isdigit() else 0)


def color_of(token):
    return None if token.startswith("wild") else token.split("-", 1)[0]


def choose_card(legal):
    cards = [c for c in legal if c != "draw"]
    if not cards:
        return "draw"
    colored = [c for c in cards if color_of(c)]
    pool = colored or cards
    return max(pool, key=points)


def most_held(hand):
    counts = {c: 0 for c in ("red", "yellow", "green", "blue")}
    for t in hand:
        col = color_of(t)
        if col:
            counts[col] += 1
    return max(counts, key=lambda c: counts[c])


def decide(msg):
    d, legal, obs = msg["decision"], msg["legal"], msg["obs"]
    if d in ("play", "stack"):
        return choose_card(legal)
    if d == "color":
        return most_held(obs["hand"])
    if d == "target":
        sizes = obs["hand_sizes"]
        return min(legal, key=lambda s: sizes[s])
    if d == "challenge":
        return len(obs["hand"]) <= 2
    # play_drawn, uno, jump_in
    return True


def main():
    out = sys.stdout
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            reply = {"type": "hello", "version": VERSION, "name": "simple"}
        elif kind == "decide":
            reply = {"id": msg["id"], "answer": decide(msg)}
        else:
            continue  # match_start, round_start, round_end, match_end
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
