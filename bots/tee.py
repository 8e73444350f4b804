#!/usr/bin/env python3
"""Runs an agent and logs its exchange with unolab (standard library only).

    python3 bots/tee.py LOGFILE COMMAND...

Every line unolab writes is logged as `> LINE`, every answer as `< LINE`, in
order, and passed on unchanged. For example:
    unolab trace --players 2 --set quick=true \\
        --strategies 'ext:python3 bots/tee.py talk.log python3 bots/simple.py,first'

LOGFILE is written anew. Where unolab starts several copies of the program
(`run`, `compare` and `tournament` start one per seat and worker thread),
put `{pid}` in LOGFILE, for example `talk-{pid}.log`: each copy then writes
its own file (with one name they would overwrite each other's lines).
"""
import os
import subprocess
import sys


def main():
    log = open(sys.argv[1].replace("{pid}", str(os.getpid())), "w")
    bot = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for line in sys.stdin:
        log.write("> " + line)
        log.flush()
        bot.stdin.write(line)
        bot.stdin.flush()
        msg_type = line.split('"type":', 1)[1].split('"')[1] if '"type":' in line else ""
        if msg_type in ("hello", "decide"):
            answer = bot.stdout.readline()
            if not answer:
                break
            log.write("< " + answer)
            log.flush()
            sys.stdout.write(answer)
            sys.stdout.flush()
    bot.stdin.close()
    bot.wait()


if __name__ == "__main__":
    main()
