#!/usr/bin/env python3
"""Checks a signalling host's log after a conformance run.

usage: check-logs.py LOG [--wrangler] [--require EVENT ...]

Every log record must be one JSON object per line with a `level` of debug,
info, warn or error and an `event`, and no record may hold a nickname or a
payload the conformance suite sends, or a loopback address. Without
--wrangler, every non-empty line must be a record. With --wrangler, the log
is `wrangler dev`'s output, which mixes its own lines with the Worker's
console output and prefixes warn and error lines with a coloured marker
(`▲ [WARNING] {...}`): colour codes are removed, the record is read from the
first `{` of each line holding one, and lines without `{` (wrangler's own)
are skipped. Each --require EVENT must appear at least once, so a host
that logs nothing (or a level filter that hides everything) fails.
"""
import json
import re
import sys

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# Nicknames, payload fragments and the address the suite uses.
SECRETS = ("watcher", "chatty", "Chloé", "בועז", "seventeenth", "prompt",
           "twenty chars", "copycat", "imposter", "candidate:", "sdp", "v=0",
           "127.0.0.1", "xxxxxxxx")


def main(argv):
    path, rest = argv[1], argv[2:]
    wrangler = "--wrangler" in rest
    required = [rest[i + 1] for i, a in enumerate(rest) if a == "--require"]
    records = 0
    seen = set()
    levels = set()
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if wrangler:
                line = ANSI.sub("", line)
                if "{" not in line:
                    continue
                line = line[line.index("{"):]
            if not line:
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                sys.exit(f"not a JSON log line: {line[:200]}")
            if not isinstance(rec, dict):
                sys.exit(f"not a JSON object: {line[:200]}")
            if rec.get("level") not in ("debug", "info", "warn", "error"):
                sys.exit(f"no valid level: {line[:200]}")
            if not isinstance(rec.get("event"), str):
                sys.exit(f"no event: {line[:200]}")
            for secret in SECRETS:
                if secret in line:
                    sys.exit(f"log line holds {secret!r}: {line[:200]}")
            records += 1
            seen.add(rec["event"])
            levels.add(rec["level"])
    if records == 0:
        sys.exit(f"{path}: no log records")
    missing = [e for e in required if e not in seen]
    if missing:
        sys.exit(f"{path}: no {', '.join(missing)} record among {sorted(seen)}")
    print(f"{path}: {records} log records of {len(seen)} kinds ({', '.join(sorted(levels))}), "
          "all JSON with a level and an event; no nicknames, payloads or addresses")


if __name__ == "__main__":
    main(sys.argv)
