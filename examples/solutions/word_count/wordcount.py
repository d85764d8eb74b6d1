"""wordcount: print how many words a file has, or write report.json with --json."""

import argparse
import json
from collections import Counter


def count(path: str) -> list[str]:
    with open(path, encoding="utf-8") as fh:
        return fh.read().lower().split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("file", help="text file to count")
    parser.add_argument("--json", action="store_true", help="also write report.json")
    args = parser.parse_args()
    words = count(args.file)
    if args.json:
        report = {
            "file": args.file,
            "words": len(words),
            "top": [[word, n] for word, n in Counter(words).most_common(3)],
        }
        with open("report.json", "w", encoding="utf-8") as out:
            json.dump(report, out, indent=2)
    print(len(words))


if __name__ == "__main__":
    main()
