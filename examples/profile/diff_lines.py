"""Compare two versions of a text of n lines with the standard library's difflib."""
import difflib
import random
import sys


def versions(n, seed=1):
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(500)]
    old = [" ".join(rng.choices(words, k=8)) for _ in range(n)]
    new = list(old)
    for k in rng.sample(range(n), max(1, n // 10)):
        new[k] = " ".join(rng.choices(words, k=8))
    return old, new


def main(n):
    old, new = versions(n)
    return sum(1 for _ in difflib.unified_diff(old, new, lineterm=""))


if __name__ == "__main__":
    main(int(sys.argv[1]))
