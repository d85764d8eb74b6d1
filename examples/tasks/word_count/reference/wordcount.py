"""Count words in a file; optionally write a JSON report."""

import argparse
import json
from collections import Counter


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as fh:
        words = fh.read().lower().split()
    if args.json:
        top = [[w, c] for w, c in Counter(words).most_common(3)]
        with open("report.json", "w", encoding="utf-8") as out:
            json.dump({"file": args.file, "words": len(words), "top": top}, out)
    print(len(words))


if __name__ == "__main__":
    main()
