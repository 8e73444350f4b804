#!/usr/bin/env python3
"""A test agent that misbehaves on purpose (tests/suite/external.rs).

    faulty.py MODE [N] [PIDFILE] [LOGFILE]

Plays like a minimal legal bot, except at decision N (1-based) where MODE says:
  crash    exit with status 3
  silent   stop answering (sleeps)
  garbage  write a line that is not JSON
  garbagectl  the same, with a carriage return, an escape sequence and a
           bell in it, 300 characters long
  long     write 1 MB without a line end, then stop answering
  binary   write a line that is not UTF-8, then stop answering
  illegal  answer a card that is not legal (every play decision from N on)
  version  answer the hello with protocol version 99
  slowhello  wait N seconds before answering the hello, then play legally
  flood    write its answer over and over without reading any further
           (both pipes fill up: unolab must not wait for ever)
  twice    echo every request's id, and answer decision N twice (so the
           second answer is read as the next request's: out of step)
  ok       never misbehave
MODE may end in "+helper": at start it starts a helper process (`sleep
1234`) that shares its standard input and output, as a shell wrapper or a
server would, and leaves it running; "+stubborn" does the same with a helper
that ignores SIGTERM; "+graceful" starts no helper and exits with status 143
on SIGTERM.
With PIDFILE, its process id is appended to that file at start (and a
helper's to PIDFILE-helpers); with LOGFILE, every line it reads is appended
to that file ("{pid}" in its name is replaced by the process id).
"""
import json
import os
import signal
import subprocess
import sys
import time

mode, _, helper = sys.argv[1].partition("+")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1
if len(sys.argv) > 3:
    with open(sys.argv[3], "a") as f:
        f.write(f"{os.getpid()}\n")
if helper == "graceful":
    # Catches SIGTERM and exits with 143, as a runtime that shuts down
    # cleanly on it does (the JVM).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
elif helper:
    ignore = (lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN)) if helper == "stubborn" else None
    child = subprocess.Popen(["sleep", "1234"], preexec_fn=ignore)
    if len(sys.argv) > 3:
        with open(sys.argv[3] + "-helpers", "a") as f:
            f.write(f"{child.pid}\n")
log = open(sys.argv[4].replace("{pid}", str(os.getpid())), "a") if len(sys.argv) > 4 else None

ALL = [f"{c}-{f}" for c in ("red", "yellow", "green", "blue") for f in range(10)] + ["wild"]


def legal_answer(msg):
    legal = msg["legal"]
    if msg["decision"] in ("play", "stack"):
        cards = [c for c in legal if c != "draw"]
        return cards[0] if cards else "draw"
    return legal[0]


count = 0
for line in sys.stdin:
    if log:
        log.write(line)
        log.flush()
    msg = json.loads(line)
    if msg["type"] == "hello":
        if mode == "slowhello":
            time.sleep(n)
        version = 99 if mode == "version" else 1
        print(json.dumps({"type": "hello", "version": version}), flush=True)
        continue
    if msg["type"] != "decide":
        continue
    count += 1
    if mode == "twice":
        reply = json.dumps({"id": msg["id"], "answer": legal_answer(msg)})
        print(reply, flush=True)
        if count == n:
            print(reply, flush=True)
        continue
    if count >= n:
        if mode == "crash":
            sys.exit(3)
        if mode == "silent":
            time.sleep(3600)
        if mode == "unended":
            # Begins its answer and never ends the line.
            sys.stdout.write('{"answer": ')
            sys.stdout.flush()
            time.sleep(3600)
        if mode == "flood":
            line = json.dumps({"answer": legal_answer(msg)}) + "\n"
            try:
                while True:
                    sys.stdout.write(line * 1000)
            except BrokenPipeError:
                sys.exit(0)
        if mode == "garbage":
            print("I am not JSON", flush=True)
            continue
        if mode == "garbagectl":
            print("abc\rdef\x1b[31mRED\x07" + "z" * 300, flush=True)
            continue
        if mode == "long":
            sys.stdout.write("x" * 1_000_000)
            sys.stdout.flush()
            time.sleep(3600)
        if mode == "binary":
            sys.stdout.buffer.write(b'{"answer": "\xff\xfe"}\n')
            sys.stdout.flush()
            # As `long`: no count on stderr at the end, so that the run's
            # one error line is all stderr holds, whatever the timing.
            time.sleep(3600)
        if mode == "illegal" and msg["decision"] == "play":
            bad = next(c for c in ALL if c not in msg["legal"])
            print(json.dumps({"answer": bad}), flush=True)
            continue
    print(json.dumps({"answer": legal_answer(msg)}), flush=True)
sys.stderr.write(f"faulty.py: {count} decisions\n")
